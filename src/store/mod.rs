//! A run's files: `raw/`, `raw.csv.gz` or `raw.csv` (observations, [`raw`]),
//! `results.json` (everything
//! decided), and the reports written beside them. Writing and reading them
//! is this module's job alone.

pub mod raw;
pub mod results;

use crate::analyse::history::History;
use crate::analyse::Results;
use crate::case::CaseData;
use crate::report;
use crate::report::compare::Comparison;
use std::io::Write;
use std::path::{Path, PathBuf};

/// A saved run: its `results.json` if there is one, and its cases from
/// its observations (`raw/`, `raw.csv.gz` or `raw.csv`).
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
    let raw_path = raw::find(dir).unwrap_or_else(|| dir.join(raw::parquet::DIR));
    let cases = raw::load(&raw_path, results.as_ref())
        .map_err(|e| format!("{}: {e}", raw_path.display()))?;
    Ok(Saved { results, cases })
}

/// The baseline run at `path` (its directory or its results.json).
pub fn load_baseline(path: &Path) -> Result<Saved, String> {
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    load(&dir).map_err(|e| format!("--baseline: {e}"))
}

/// Whether `dir` holds a run.
fn is_run(dir: &Path) -> bool {
    dir.join("results.json").is_file() || raw::find(dir).is_some()
}

/// A run found on the command line: its directory, and the name the
/// published files give it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct FoundRun {
    pub dir: PathBuf,
    /// The path as given when it was relative, else the directory's own
    /// name: reports, summaries and history files are published (CI job
    /// summaries, artifacts) and never carry this machine's absolute paths.
    pub name: String,
}

impl FoundRun {
    fn of(given: &Path, dir: PathBuf) -> FoundRun {
        let name = match given.is_relative() {
            true => dir.display().to_string(),
            false => dir
                .file_name()
                .map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into()),
        };
        FoundRun { dir, name }
    }
}

/// The runs `paths` name, each a run (its directory or its results.json)
/// or a directory whose subdirectories are runs (in name order); runs are
/// named by their directories.
pub fn runs(paths: &[PathBuf]) -> Result<Vec<FoundRun>, String> {
    let mut runs = Vec::new();
    for path in paths {
        let dir = match path.file_name() {
            Some(name) if name == "results.json" => path.parent().unwrap_or(Path::new(".")),
            _ => path,
        };
        if is_run(dir) {
            runs.push(FoundRun::of(path, dir.to_path_buf()));
            continue;
        }
        if !path.is_dir() {
            return Err(format!(
                "{}: neither a run directory, its results.json, nor a directory of runs",
                path.display()
            ));
        }
        let entries = std::fs::read_dir(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut inside: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_dir() && is_run(p))
            .collect();
        if inside.is_empty() {
            return Err(format!(
                "{}: neither a run (results.json, raw/, raw.csv.gz, raw.csv) nor a directory of runs",
                path.display()
            ));
        }
        inside.sort();
        runs.extend(inside.into_iter().map(|dir| FoundRun::of(path, dir)));
    }
    Ok(runs)
}

/// The results of the runs `paths` name ([`runs`]), each once (a run named
/// itself and through its parent), by name.
pub fn load_runs(paths: &[PathBuf]) -> Result<Vec<(String, Results)>, String> {
    let mut found = runs(paths)?;
    found.sort();
    found.dedup_by(|a, b| a.dir == b.dir);
    found
        .iter()
        .map(|run| Ok((run.name.clone(), load_results(&run.dir)?)))
        .collect()
}

/// The `results.json` of the run at `path` (its directory or the file itself).
pub fn load_results(path: &Path) -> Result<Results, String> {
    if !path.exists() {
        return Err(format!("{}: no such run directory", path.display()));
    }
    let file = match path.is_dir() {
        true => path.join("results.json"),
        false => path.to_path_buf(),
    };
    results::read(&file).map_err(|e| format!("{}: {e}", file.display()))
}

/// Writes a comparison of runs into `dir`: `compare.md` and `compare.svg`.
pub fn write_comparison(dir: &Path, comparison: &Comparison) -> Result<(), WriteError> {
    std::fs::create_dir_all(dir).map_err(|error| WriteError {
        path: dir.to_path_buf(),
        error,
    })?;
    let markdown = report::markdown::write(&report::compare::document::blocks(comparison));
    write_atomically(dir, "compare.md", markdown.as_bytes())?;
    let svg = report::compare::svg::render(comparison);
    write_atomically(dir, "compare.svg", svg.as_bytes())
}

/// Writes a history of launches into `dir`: `history.svg`, `history.md`
/// and `history.json`.
pub fn write_history(dir: &Path, history: &History) -> Result<(), WriteError> {
    std::fs::create_dir_all(dir).map_err(|error| WriteError {
        path: dir.to_path_buf(),
        error,
    })?;
    let svg = report::history::svg::render(history);
    write_atomically(dir, "history.svg", svg.as_bytes())?;
    let markdown = report::markdown::write(&report::history::document::blocks(history));
    write_atomically(dir, "history.md", markdown.as_bytes())?;
    let json = report::history::json::render(history);
    write_atomically(dir, "history.json", json.as_bytes())
}

/// Creates an output directory for reports only (`analyze`'s).
pub fn create_for_reports(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Creates the output directory with an empty observations file of `raw`,
/// and removes the files an earlier analysis listed in [`MANIFEST`]: a run
/// that ends before its own analysis leaves no earlier run's report beside
/// its observations.
pub fn create(dir: &Path, raw: raw::RawFormat) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    remove_listed(dir, &[]).map_err(|e| e.error)?;
    remove_file_if_any(&dir.join(MANIFEST))?;
    raw::create(dir, raw)
}

/// Removes the files [`MANIFEST`] lists in `dir` but for those `kept`.
fn remove_listed(dir: &Path, kept: &[String]) -> Result<(), WriteError> {
    for stale in listed(dir).iter().filter(|name| !kept.contains(name)) {
        remove_file_if_any(&dir.join(stale)).map_err(|error| WriteError {
            path: dir.join(stale),
            error,
        })?;
    }
    Ok(())
}

/// Removes `path`; one that is not there is already removed.
fn remove_file_if_any(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(error) if error.kind() != std::io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// A file that could not be written, and why.
#[derive(Debug)]
pub struct WriteError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.error)
    }
}

/// Writes `dir/name` whole or not at all: into a temporary file, flushed
/// to disk, then renamed over the old one. A full or read-only file system
/// leaves the previous version in place, never a truncated file.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), WriteError> {
    replace(dir, name, bytes, Durable::Yes)
}

/// Whether a file is flushed to disk before it replaces the old one.
/// Renaming alone keeps it whole when a process dies; flushing keeps it
/// through a crash of the machine, and costs: 9 ms for a 1.2 MB
/// results.json, 3.7 ms a small file, on this project's test machine.
#[derive(Clone, Copy, PartialEq)]
enum Durable {
    Yes,
    /// For what is rewritten soon, or rendered again from results.json.
    No,
}

fn replace(dir: &Path, name: &str, bytes: &[u8], durable: Durable) -> Result<(), WriteError> {
    replace_with(dir, name, durable, |out| out.write_all(bytes))
}

/// [`replace`] with what `write` writes, through a buffer.
fn replace_with(
    dir: &Path,
    name: &str,
    durable: Durable,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let path = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    let written = std::fs::File::create(&tmp)
        .and_then(|file| {
            let mut out = std::io::BufWriter::new(file);
            write(&mut out)?;
            let file = out.into_inner().map_err(|e| e.into_error())?;
            match durable {
                Durable::Yes => file.sync_all(),
                Durable::No => Ok(()),
            }
        })
        .and_then(|()| std::fs::rename(&tmp, &path));
    written.map_err(|error| {
        let _ = std::fs::remove_file(&tmp);
        WriteError { path, error }
    })
}

/// [`write_atomically`] for a file named by its path (a tuning file,
/// wherever the user asked for it).
pub fn write_path_atomically(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let name = path.file_name().ok_or_else(|| WriteError {
        path: path.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file name"),
    })?;
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    write_atomically(dir, &name.to_string_lossy(), bytes)
}

/// The list of the files a finished analysis wrote into its directory, one
/// name a line: the next analysis written there removes those of them it
/// does not write again (a per-collective figure of a collective no longer
/// checked), and nothing else.
pub const MANIFEST: &str = "files.txt";

/// The names [`MANIFEST`] in `dir` lists; only plain file names in the
/// directory itself (no path, no hidden file), so that an edited list can
/// never remove anything elsewhere. None listed if there is no list.
fn listed(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join(MANIFEST)).unwrap_or_default();
    text.lines()
        .map(str::trim)
        .filter(|name| {
            !name.is_empty()
                && !name.starts_with('.')
                && !name.contains(['/', '\\'])
                && *name != MANIFEST
        })
        .map(str::to_string)
        .collect()
}

/// Writes every file of a finished analysis into `dir`: results.json,
/// flushed to disk, and what is rendered from it (summary.csv, report.md,
/// the SVG figures), each replaced whole but not flushed: a few hundred
/// figures took 1.5 s flushed one by one, 0.7 s not. Then the files an
/// earlier analysis listed in [`MANIFEST`] and this one did not write are
/// removed, and the list replaced by this one's.
pub fn write_reports(dir: &Path, results: &Results) -> Result<(), WriteError> {
    let mut written = vec![
        "results.json".to_string(),
        "summary.csv".to_string(),
        "report.md".to_string(),
    ];
    results::write(dir, results)?;
    let mut summary = Vec::new();
    report::csv::render(&mut summary, results).expect("writing to memory");
    replace(dir, "summary.csv", &summary, Durable::No)?;
    replace_with(dir, "report.md", Durable::No, |out| {
        report::markdown::write_to(out, results)
    })?;
    for (name, svg) in report::svg::render_all(results) {
        replace(dir, &name, svg.as_bytes(), Durable::No)?;
        written.push(name);
    }
    remove_listed(dir, &written)?;
    let mut list = written.join("\n");
    list.push('\n');
    replace(dir, MANIFEST, list.as_bytes(), Durable::No)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only plain names of the directory count: a list that names a path,
    /// a parent or a hidden file removes nothing there.
    #[test]
    fn the_list_names_only_files_of_its_own_directory() {
        let dir = std::env::temp_dir().join(format!("pgcheck-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(MANIFEST),
            "report.md\n../outside.txt\nsub/x.svg\n.hidden\n\nlatency-bcast.svg\nfiles.txt\n",
        )
        .unwrap();
        assert_eq!(listed(&dir), ["report.md", "latency-bcast.svg"]);
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(listed(&dir).is_empty());
    }

    /// A new run removes the earlier analysis's files as it starts, so that
    /// one ending before its own analysis leaves its observations alone,
    /// never beside the earlier run's report; files not listed stay.
    #[test]
    fn a_new_run_starts_without_the_earlier_analysis() {
        let dir = std::env::temp_dir().join(format!("pgcheck-create-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "results.json",
            "report.md",
            "latency-bcast.svg",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), "earlier").unwrap();
        }
        std::fs::write(
            dir.join(MANIFEST),
            "results.json\nreport.md\nlatency-bcast.svg\n",
        )
        .unwrap();
        create(&dir, raw::RawFormat::Parquet).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["notes.txt", raw::parquet::DIR]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
