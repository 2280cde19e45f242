//! Every file a run writes is safe to publish as a CI job's summary or
//! artifact: no NUL or other control character (Open MPI's
//! `MPI_Get_library_version` hands one over), and nothing of what the
//! launcher gives its ranks to find and trust each other: Open MPI's
//! transport key (`OMPI_MCA_orte_precondition_transports`, Open MPI 4) and
//! its daemons' and PMIx servers' URIs. The values looked for are the very
//! ones the run's ranks got: each rank records its environment before it
//! becomes pgcheck.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 1024]
    competitors: [allreduce_as_reduce_bcast]
";

/// Whether `c` may stand in a text file: any character but the controls,
/// of which line feed and tab.
fn allowed(c: char) -> bool {
    c == '\n' || c == '\t' || !c.is_control()
}

/// Every string of a JSON document, keys included: JSON writes a NUL as
/// `\u0000`, which a look at the bytes would not see.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            out.push(k.clone());
            strings(v, out);
        }),
        _ => {}
    }
}

/// The first character of `text` that may not stand in a text file, with
/// its position.
fn first_control(text: &str) -> Option<(usize, char)> {
    text.char_indices().find(|&(_, c)| !allowed(c))
}

/// Each rank's environment as the launcher gave it, from the files of
/// `dir` (`env -0`).
fn environments(dir: &Path) -> Vec<Vec<(String, String)>> {
    files_under(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            bytes
                .split(|&b| b == 0)
                .filter_map(|entry| {
                    let entry = String::from_utf8_lossy(entry);
                    let (k, v) = entry.split_once('=')?;
                    Some((k.to_string(), v.to_string()))
                })
                .collect()
        })
        .collect()
}

/// What must never be published, from a rank's environment: the name and
/// value of the transport key, and the values of every variable that
/// holds a URI (each `;`-separated address too), or PMI's port.
fn secrets(environment: &[(String, String)]) -> Vec<String> {
    let mut secrets = Vec::new();
    for (name, value) in environment {
        let uri = name
            .to_ascii_lowercase()
            .split('_')
            .any(|word| word.starts_with("uri"));
        if name.contains("precondition_transports") {
            secrets.push(name.clone());
            secrets.push(value.clone());
            secrets.extend(value.split('-').map(String::from));
        } else if uri || value.contains("://") || name == "PMI_PORT" {
            secrets.push(value.clone());
            secrets.extend(
                value
                    .split(';')
                    .filter(|part| part.contains("://"))
                    .map(String::from),
            );
        }
    }
    secrets.retain(|s| s.len() >= 6);
    secrets.sort();
    secrets.dedup();
    secrets
}

#[test]
fn no_output_holds_a_control_character_or_a_launchers_secret() {
    let np = 2;
    let dir = scratch("publishable");
    let input = input(&dir, "input.yaml", ALLREDUCE);
    let out_dir = dir.join("out");
    let env_dir = dir.join("env");
    std::fs::create_dir_all(&env_dir).unwrap();
    // Each rank writes the environment it got, then becomes pgcheck.
    let record = format!("env -0 > {}/rank-$$; exec \"$@\"", env_dir.display());
    let mut command = Command::new(mpirun());
    if is_open_mpi() {
        // A session root of its own, short enough for the launcher's
        // socket paths (as `Launch::new` does).
        let session =
            std::env::temp_dir().join(format!("pgcheck-publishable-{}", std::process::id()));
        std::fs::create_dir_all(&session).unwrap();
        command
            .args(["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"])
            .env("OMPI_MCA_orte_tmpdir_base", &session)
            .env("PRTE_MCA_prte_tmpdir_base", &session);
    }
    command
        .args(["-np", &np.to_string(), "sh", "-c", &record, "sh"])
        .arg(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["run", &input, "--output", out_dir.to_str().unwrap()])
        .args(["--budget", "100ms", "--rounds", "10", "--details"])
        .args(REPORT_ONLY)
        .env("NO_COLOR", "1")
        // A user's choices, one with a control character in it.
        .env("UCX_TLS", "self,sm")
        .env("PGCHECK_PUBLISH_PROBE", "before\u{1b}[2Jafter");
    let out = Launch::from_command(command, Duration::from_secs(300)).run();
    assert_eq!(out.code, Some(0), "{}", out.text());

    let environments = environments(&env_dir);
    assert_eq!(environments.len(), np, "one environment per rank");
    let secrets: Vec<String> = environments.iter().flat_map(|e| secrets(e)).collect();
    if is_open_mpi() {
        // Else the test looks for nothing. Open MPI 5's launcher (PRRTE)
        // hands over no transport key, only PMIx servers' URIs.
        if library().starts_with("Open MPI 4") {
            assert!(
                secrets
                    .iter()
                    .any(|s| s.contains("precondition_transports")),
                "the ranks got a transport key: {environments:?}"
            );
        }
        assert!(
            secrets.iter().any(|s| s.contains("://")),
            "the ranks got a daemon URI: {environments:?}"
        );
    }

    let written = files_under(&out_dir);
    assert!(written.len() >= 4, "{written:?}");
    // raw/ is binary (Parquet): what a reader of it sees is its rows.
    let mut texts: Vec<(String, String)> = vec![("raw/ (its rows)".into(), raw_text(&out_dir))];
    texts.extend(
        written
            .iter()
            .filter(|path| path.extension().is_none_or(|e| e != "parquet"))
            .map(|path| {
                let mut bytes = std::fs::read(path).unwrap();
                if path.extension().is_some_and(|e| e == "gz") {
                    // What a reader of the compressed observations sees.
                    let mut plain = Vec::new();
                    std::io::Read::read_to_end(
                        &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                        &mut plain,
                    )
                    .unwrap();
                    bytes = plain;
                }
                let text = String::from_utf8(bytes)
                    .unwrap_or_else(|e| panic!("{} is not UTF-8: {e}", path.display()));
                (path.display().to_string(), text)
            }),
    );
    for (name, text) in texts.clone() {
        if name.ends_with(".json") {
            let mut all = Vec::new();
            strings(&serde_json::from_str(&text).unwrap(), &mut all);
            texts.push((format!("{name} (its strings)"), all.join("\n")));
        }
    }
    texts.push(("standard output".into(), out.stdout.clone()));
    texts.push(("standard error".into(), out.stderr.clone()));
    for (name, text) in &texts {
        if let Some((at, c)) = first_control(text) {
            let from = text[..at]
                .char_indices()
                .rev()
                .nth(60)
                .map_or(0, |(i, _)| i);
            panic!(
                "{name}: control character {c:?} at byte {at}, after {:?}",
                &text[from..at]
            );
        }
        for secret in &secrets {
            assert!(
                !text.contains(secret.as_str()),
                "{name} holds the launcher's {secret:?}"
            );
        }
    }

    // The user's choices are still recorded, cleaned.
    let environment = &results(&out_dir)["meta"]["environment"];
    assert_eq!(environment["UCX_TLS"], "self,sm", "{environment}");
    assert_eq!(
        environment["PGCHECK_PUBLISH_PROBE"], "before[2Jafter",
        "{environment}"
    );
    let library = results(&out_dir)["meta"]["mpi_library"].clone();
    assert!(library.as_str().is_some_and(|l| !l.is_empty()), "{library}");
    // The revision is the commit built, not an earlier one: the build
    // script once watched only .git/HEAD, which a commit does not change.
    let head = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(head) = head {
        assert_eq!(results(&out_dir)["meta"]["git_revision"], head.as_str());
    }
}
