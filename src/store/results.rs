//! `results.json`: everything, rewritten after every check so that a killed
//! run keeps what it measured.

use super::{replace_with, write_atomically, Durable};
use crate::analyse::{Failure, RankFailure, Results};
use crate::report;
use crate::report::json::SCHEMA_VERSION;
use std::path::Path;

/// Writes `results.json` atomically.
pub fn write(dir: &Path, results: &Results) -> Result<(), super::WriteError> {
    replace_with(dir, "results.json", Durable::Yes, |out| {
        report::json::write(out, results)
    })
}

/// Writes the `results.json` of a run still measuring, rewritten every few
/// seconds while the other ranks wait: whole, but not flushed to disk.
pub fn write_partial(dir: &Path, results: &Results) -> Result<(), super::WriteError> {
    replace_with(dir, "results.json", Durable::No, |out| {
        report::json::write(out, results)
    })
}

/// Reads a `results.json`: of this format's version or an earlier one;
/// runs written before `schema_version` existed have none.
pub fn read(path: &Path) -> anyhow::Result<Results> {
    let text = std::fs::read_to_string(path)?;
    let document: serde_json::Value = serde_json::from_str(&text)?;
    match document.get("schema_version").map(|v| (v, v.as_u64())) {
        None | Some((_, Some(1..=SCHEMA_VERSION))) => {}
        Some((v, Some(version))) if version > SCHEMA_VERSION => anyhow::bail!(
            "schema_version {v} is newer than this pgcheck reads ({SCHEMA_VERSION}): use a newer pgcheck"
        ),
        Some((v, _)) => anyhow::bail!("schema_version {v} is not a version of results.json"),
    }
    Ok(serde_json::from_value(document)?)
}

/// Adds one rank's view of the failure that ends the run to the
/// `results.json` in `dir` (the cases decided so far, `complete: false`),
/// or writes one that holds only the failure. Several ranks may record at
/// once: each reads, adds and writes under a lock file of its own making.
pub fn record_failure(
    dir: &Path,
    kind: &str,
    status: i32,
    rank: RankFailure,
) -> Result<(), String> {
    let lock = dir.join(".results.json.lock");
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    while std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&lock)
        .is_err()
    {
        if std::time::Instant::now() > deadline {
            break; // a lock left by a killed process: record regardless
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let recorded = add_failure(dir, kind, status, rank);
    let _ = std::fs::remove_file(&lock);
    recorded
}

fn add_failure(dir: &Path, kind: &str, status: i32, rank: RankFailure) -> Result<(), String> {
    let path = dir.join("results.json");
    let mut results = match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?,
        Err(_) => serde_json::json!({ "schema_version": SCHEMA_VERSION, "complete": false }),
    };
    let object = results
        .as_object_mut()
        .ok_or_else(|| format!("{}: not an object", path.display()))?;
    let mut failure: Failure = object
        .get("failure")
        .and_then(|f| serde_json::from_value(f.clone()).ok())
        .unwrap_or(Failure {
            kind: kind.into(),
            status,
            ranks: Vec::new(),
        });
    failure.ranks.push(rank);
    failure.ranks.sort_by_key(|r| r.rank);
    object.insert("complete".into(), false.into());
    let failure = serde_json::to_value(failure).map_err(|e| e.to_string())?;
    object.insert("failure".into(), failure);
    let text = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
    write_atomically(dir, "results.json", text.as_bytes()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_carry_their_schema_version_and_older_runs_still_read() {
        let dir = std::env::temp_dir().join(format!("pgcheck-schema-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let results = report::fixture::results();
        write(&dir, &results).unwrap();
        let path = dir.join("results.json");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("{\n  \"schema_version\": 1,\n"), "{text}");
        assert_eq!(read(&path).unwrap().checks.len(), results.checks.len());
        // A run written before the field existed.
        let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
        old.as_object_mut().unwrap().remove("schema_version");
        std::fs::write(&path, old.to_string()).unwrap();
        assert_eq!(read(&path).unwrap().checks.len(), results.checks.len());
        // A run of a later format is refused, not misread.
        old["schema_version"] = 2.into();
        std::fs::write(&path, old.to_string()).unwrap();
        let error = read(&path).unwrap_err().to_string();
        assert_eq!(
            error,
            "schema_version 2 is newer than this pgcheck reads (1): use a newer pgcheck"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
