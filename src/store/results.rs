//! `results.json`: everything, rewritten after every check so that a killed
//! run keeps what it measured.

use super::write_atomically;
use crate::analyse::Results;
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
