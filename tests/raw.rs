//! A run's observations as `run --raw` keeps them: `raw.csv.gz` by
//! default, small, read back by `analyze` to the run's own verdicts, and
//! read by pandas where it is installed.

mod common;
use common::*;

const INPUT: &str = "budget: 150ms\nrounds: 10\nsync: barrier\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512]\n    competitors: all\n";

/// A candidate as a verdict has it: name, observations, rounds, median of
/// per-round medians.
type Candidate = (String, u64, u64, f64);

/// What a results.json says of each case: verdict, severity, the
/// competitor that violated and the fastest, and each candidate.
fn decided(results: &serde_json::Value) -> Vec<(String, Vec<Candidate>)> {
    results["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let what = format!(
                "{} {} {} {} {} {}",
                c["size_bytes"],
                c["verdict"],
                c["severity"],
                c["violated_by"],
                c["fastest"],
                c["competitor"]
            );
            let candidates = c["candidates"]
                .as_array()
                .unwrap()
                .iter()
                .map(|k| {
                    (
                        k["name"].as_str().unwrap().to_string(),
                        k["n"].as_u64().unwrap(),
                        k["rounds"].as_u64().unwrap(),
                        k["round_median_s"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect();
            (what, candidates)
        })
        .collect()
}

#[test]
fn a_run_s_compact_observations_are_small_and_analyse_to_its_verdicts() {
    let dir = scratch("raw-compact");
    let input = input(&dir, "raw.yaml", INPUT);
    let out_dir = dir.join("out");
    let out = pgcheck(
        2,
        &[
            "run",
            "--fail-on",
            "none",
            "--allow-undecided",
            &input,
            "--output",
            out_dir.to_str().unwrap(),
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.text());
    let gz = out_dir.join("raw.csv.gz");
    assert!(gz.is_file() && !out_dir.join("raw.csv").exists());
    // Bytes per observation, every row (valid or late) an observation.
    let text = raw_text(&out_dir);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "run,collective,size_bytes,count,datatype,op,root,candidate,round,valid,ns"
    );
    // Every row under the run's id, which results.json records: rows of
    // several runs can share one table.
    let run_id = results(&out_dir)["meta"]["run_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(run_id.len() > "20260101T000000Z-1".len() - 2, "{run_id}");
    assert!(
        text.lines()
            .skip(1)
            .all(|l| l.starts_with(&format!("{run_id},"))),
        "{}",
        &text[..300]
    );
    let rows = lines.count();
    let per_observation = std::fs::metadata(&gz).unwrap().len() as f64 / rows as f64;
    eprintln!("raw.csv.gz: {rows} observations, {per_observation:.2} B each");
    assert!(rows >= 1_000, "{rows} observations");
    assert!(
        per_observation <= 16.0,
        "{per_observation:.2} B per observation"
    );
    // `analyze` reads it back to the run's verdicts: the times to the
    // picosecond, so that medians agree to that.
    let again = out_dir.join("again");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["analyze", "--fail-on", "none", "--allow-undecided"])
        .arg(&out_dir)
        .arg("--output")
        .arg(&again)
        .output()
        .expect("pgcheck starts");
    assert_eq!(status.status.code(), Some(0), "{status:?}");
    let (run, reread) = (decided(&results(&out_dir)), decided(&results(&again)));
    assert_eq!(run.len(), 3);
    for ((what, candidates), (what_again, candidates_again)) in run.iter().zip(&reread) {
        assert_eq!(what, what_again);
        for (c, a) in candidates.iter().zip(candidates_again) {
            assert_eq!((&c.0, c.1, c.2), (&a.0, a.1, a.2), "{what}");
            assert!(
                (c.3 - a.3).abs() <= 0.5e-12 || (c.3.is_nan() && a.3.is_nan()),
                "{what}: {} median {} then {}",
                c.0,
                c.3,
                a.3
            );
        }
    }
    // Python's own gzip and csv modules read every gzip member; pandas,
    // where it is installed, reads the file as it is.
    let python = |script: &str| {
        std::process::Command::new("python3")
            .args(["-c", script])
            .arg(&gz)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8(o.stdout).unwrap().trim().to_string())
    };
    let valid = text.lines().filter(|l| l.contains(",true,")).count();
    let expected = format!("{rows} {valid}");
    let stdlib = "import csv, gzip, sys\nr = list(csv.DictReader(gzip.open(sys.argv[1], 'rt')))\nprint(len(r), sum(x['ns'] != '' for x in r))";
    match python(stdlib) {
        Some(counts) => assert_eq!(counts, expected, "Python's gzip and csv"),
        None => eprintln!("SKIPPED: no python3: raw.csv.gz not read by Python"),
    }
    if python("import pandas").is_none() {
        eprintln!("SKIPPED: pandas is not installed: raw.csv.gz not read by pandas");
        return;
    }
    let pandas = "import sys, pandas\nd = pandas.read_csv(sys.argv[1])\nprint(len(d), d['ns'].notna().sum())";
    assert_eq!(python(pandas).as_deref(), Some(&expected[..]), "pandas");
}

#[test]
fn raw_chooses_the_format_or_none() {
    let dir = scratch("raw-formats");
    let input = input(
        &dir,
        "raw.yaml",
        "budget: 20ms\nrounds: 6\nsync: barrier\nchecks:\n  - collective: bcast\n    sizes: [8]\n",
    );
    let out_dir = dir.join("out");
    let run = |raw: &str| {
        let out = pgcheck(
            2,
            &[
                "run",
                "--fail-on",
                "none",
                "--allow-undecided",
                &input,
                "--raw",
                raw,
                "--output",
                out_dir.to_str().unwrap(),
            ],
        );
        assert_eq!(out.code, Some(0), "{}", out.text());
    };
    run("csv");
    assert!(out_dir.join("raw.csv").is_file() && !out_dir.join("raw.csv.gz").exists());
    assert!(raw_text(&out_dir).starts_with(
        "run,collective,size_bytes,count,datatype,op,root,candidate,round,valid,seconds\n"
    ));
    run("none");
    assert!(!out_dir.join("raw.csv").exists() && !out_dir.join("raw.csv.gz").exists());
    run("csv.gz");
    assert!(out_dir.join("raw.csv.gz").is_file() && !out_dir.join("raw.csv").exists());
}
