//! A run's files: `raw.csv` (observations), `results.json` (everything
//! decided), and the reports written beside them. Writing and reading them
//! is this module's job alone.

pub mod raw;
pub mod results;

use crate::analyse::Results;
use crate::case::CaseData;
use crate::report;
use std::path::Path;

/// A saved run: its `results.json` if there is one, and its cases from `raw.csv`.
pub struct Saved {
    pub results: Option<Results>,
    pub cases: Vec<CaseData>,
}

/// Reads the run saved in `dir`.
pub fn load(dir: &Path) -> Result<Saved, String> {
    let saved = dir.join("results.json");
    let results = if saved.exists() {
        Some(results::read(&saved).map_err(|e| format!("{}: {e}", saved.display()))?)
    } else {
        None
    };
    let raw_path = dir.join("raw.csv");
    let rows = raw::read(&raw_path).map_err(|e| format!("{}: {e}", raw_path.display()))?;
    let cases =
        raw::cases(&rows, results.as_ref()).map_err(|e| format!("{}: {e}", raw_path.display()))?;
    Ok(Saved { results, cases })
}

/// The cases of the baseline run at `path` (its directory or its results.json).
pub fn load_baseline(path: &Path) -> Result<Vec<CaseData>, String> {
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    load(&dir)
        .map(|saved| saved.cases)
        .map_err(|e| format!("--baseline: {e}"))
}

/// Creates the output directory with an empty `raw.csv`.
pub fn create(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    raw::create(dir)
}

/// Writes every file of a finished analysis into `dir`: results.json,
/// summary.csv, report.md and the SVG figures.
pub fn write_reports(dir: &Path, results: &Results) -> std::io::Result<()> {
    results::write(dir, results)?;
    report::csv::render(std::fs::File::create(dir.join("summary.csv"))?, results)?;
    std::fs::write(dir.join("report.md"), report::markdown::render(results))?;
    for (name, svg) in report::svg::render_all(results) {
        std::fs::write(dir.join(name), svg)?;
    }
    Ok(())
}
