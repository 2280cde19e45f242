//! `results.json`: everything, rewritten after every check so that a killed
//! run keeps what it measured.

use super::write_atomically;
use crate::analyse::{Failure, RankFailure, Results};
use crate::report;
use std::path::Path;

/// Writes `results.json` atomically.
pub fn write(dir: &Path, results: &Results) -> Result<(), super::WriteError> {
    write_atomically(
        dir,
        "results.json",
        report::json::render(results).as_bytes(),
    )
}

/// Reads a `results.json`.
pub fn read(path: &Path) -> anyhow::Result<Results> {
    let text = std::fs::read_to_string(path)?;
    Ok(serde_json::from_str(&text)?)
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
        Err(_) => serde_json::json!({ "complete": false }),
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
