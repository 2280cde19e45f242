//! `results.json`: everything, rewritten after every check so that a killed
//! run keeps what it measured.

use crate::analyse::Results;
use crate::report;
use std::io::Write;
use std::path::Path;

/// Writes `results.json` atomically (temporary file, then rename).
pub fn write(dir: &Path, results: &Results) -> std::io::Result<()> {
    let path = dir.join("results.json");
    let tmp = dir.join(".results.json.tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(report::json::render(results).as_bytes())?;
    file.sync_all()?;
    std::fs::rename(tmp, path)
}

/// Reads a `results.json`.
pub fn read(path: &Path) -> anyhow::Result<Results> {
    let text = std::fs::read_to_string(path)?;
    Ok(serde_json::from_str(&text)?)
}
