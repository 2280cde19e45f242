//! A run's observations, one row per observation, written after every
//! case, so that a killed run keeps what it measured and `analyze` can
//! decide again. An observation discarded for a late start has a row too,
//! without a time.
//!
//! Every format has the same columns: `run`, the run's id (`meta.run_id`
//! in results.json, so that the rows of several runs can be put in one
//! table; files written before it existed have none), the case's key
//! (`collective`, `size_bytes`, `count`, `datatype`, `op`, `root`),
//! `candidate`, `round`, `valid`, and the time. Three formats, chosen with
//! `run --raw`; `analyze` reads each:
//! - `raw/` (the default, [`parquet`]): one Parquet file per case, the
//!   time in integer picoseconds (`ps`), about 3 bytes an observation,
//!   written in about 1 ms for a case of 30,000 observations while the
//!   other ranks wait;
//! - `raw.csv.gz` ([`csv`]): gzip-compressed CSV, the time in nanoseconds
//!   to the picosecond (`ns`), 3–5 bytes an observation, read with
//!   nothing to install, but 5–6 ms to write for such a case, most of it
//!   compressing the key columns that every row repeats;
//! - `raw.csv` ([`csv`]): plain CSV, the time in seconds as f64 prints it
//!   (every bit comes back), 65–77 bytes an observation.

pub mod csv;
pub mod parquet;
mod thrift;

use crate::analyse::Results;
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, CaseKey, Outcome, Overlapped, Sample, Smaller, CALIBRATION};
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The plain CSV file's name.
pub const CSV: &str = "raw.csv";
/// The compressed CSV file's name.
pub const CSV_GZ: &str = "raw.csv.gz";

/// How a run keeps its observations (`run --raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RawFormat {
    /// Not at all: `analyze` cannot decide the run again.
    None,
    /// `raw.csv`, seconds as f64 prints them (65–77 bytes an observation).
    Csv,
    /// `raw.csv.gz`, nanoseconds to the picosecond (3–5 bytes an
    /// observation).
    #[value(name = "csv.gz")]
    CsvGz,
    /// `raw/`, a Parquet file per case, integer picoseconds (about 3 bytes
    /// an observation).
    #[default]
    Parquet,
}

impl RawFormat {
    /// The file's (or for Parquet the directory's) name; None for none.
    pub fn file_name(self) -> Option<&'static str> {
        match self {
            RawFormat::None => None,
            RawFormat::Csv => Some(CSV),
            RawFormat::CsvGz => Some(CSV_GZ),
            RawFormat::Parquet => Some(parquet::DIR),
        }
    }
}

/// One observation. Its fields are the columns of `raw.csv` (serde writes
/// the header from them).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RawRow {
    /// The run's id; empty in files written before the column existed.
    #[serde(default)]
    pub run: String,
    pub collective: Operation,
    pub size_bytes: u64,
    pub count: usize,
    pub datatype: Datatype,
    pub op: Op,
    pub root: usize,
    pub candidate: String,
    pub round: u32,
    /// False for an observation discarded because a rank started late.
    #[serde(default = "valid_by_default")]
    pub valid: bool,
    /// Empty when not valid.
    pub seconds: Option<f64>,
}

/// Files written before the `valid` column held valid observations only
/// (their invalid observations are not counted).
fn valid_by_default() -> bool {
    true
}

impl RawRow {
    fn key(&self) -> CaseKey {
        CaseKey {
            operation: self.collective,
            size_bytes: self.size_bytes,
            count: self.count,
            datatype: self.datatype,
            op: self.op,
            root: self.root,
        }
    }
}

/// One observation as read, its text borrowed from what holds it.
pub struct Row<'a> {
    pub run: &'a str,
    pub key: CaseKey,
    pub candidate: &'a str,
    pub round: u32,
    pub valid: bool,
    pub seconds: Option<f64>,
}

impl Row<'_> {
    fn to_raw_row(&self) -> RawRow {
        RawRow {
            run: self.run.to_string(),
            collective: self.key.operation,
            size_bytes: self.key.size_bytes,
            count: self.key.count,
            datatype: self.key.datatype,
            op: self.key.op,
            root: self.key.root,
            candidate: self.candidate.to_string(),
            round: self.round,
            valid: self.valid,
            seconds: self.seconds,
        }
    }
}

impl RawRow {
    fn row(&self) -> Row<'_> {
        Row {
            run: &self.run,
            key: self.key(),
            candidate: &self.candidate,
            round: self.round,
            valid: self.valid,
            seconds: self.seconds,
        }
    }
}

/// Makes `dir` ready for the observations of `format` (an empty file, or
/// an empty `raw/`) and removes the other formats' files, so that a
/// directory holds one run's observations.
pub fn create(dir: &Path, format: RawFormat) -> std::io::Result<()> {
    for name in [CSV, CSV_GZ] {
        super::remove_file_if_any(&dir.join(name))?;
    }
    let cases = dir.join(parquet::DIR);
    parquet::clear(&cases)?;
    match format {
        RawFormat::Parquet => std::fs::create_dir_all(&cases),
        _ => {
            // Gone unless it holds something else.
            let _ = std::fs::remove_dir(&cases);
            match format.file_name() {
                Some(name) => std::fs::File::create(dir.join(name)).map(drop),
                None => Ok(()),
            }
        }
    }
}

/// Writes the observations of `case`, measured `index`-th (from 1), each
/// row under the run's id, in `format`.
pub fn append(
    dir: &Path,
    format: RawFormat,
    run: &str,
    index: usize,
    case: &CaseData,
) -> std::io::Result<()> {
    match format {
        RawFormat::None => Ok(()),
        RawFormat::Csv | RawFormat::CsvGz => csv::append(dir, format, run, case),
        RawFormat::Parquet => parquet::write(&dir.join(parquet::DIR), run, index, case),
    }
}

/// The samples of `case`, the smaller size's and the overlapped call's
/// last.
fn samples(case: &CaseData) -> impl Iterator<Item = &Sample> {
    case.samples
        .iter()
        .chain(case.smaller.as_ref().map(|s| &s.sample))
        .chain(case.overlapped.as_ref().map(|o| &o.sample))
        .chain(case.calibration.as_ref())
}

/// Every observation of `sample`: its round and its time, or None for one
/// discarded for a late start.
fn rows(sample: &Sample) -> impl Iterator<Item = (u32, Option<f64>)> + '_ {
    let valid = sample.rounds.iter().zip(sample.seconds.iter().map(Some));
    let invalid = sample.invalid_rounds.iter().zip(std::iter::repeat(None));
    valid
        .chain(invalid)
        .map(|(&round, seconds)| (round, seconds.copied()))
}

/// The observations of the run in `dir`: `raw/`, else `raw.csv.gz`, else
/// `raw.csv`.
pub fn find(dir: &Path) -> Option<PathBuf> {
    let cases = dir.join(parquet::DIR);
    if cases.is_dir() {
        return Some(cases);
    }
    [CSV_GZ, CSV]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Reads the observations at `path`: `raw/` (a directory), `raw.csv.gz`
/// or `raw.csv` (by its name).
pub fn read(path: &Path) -> anyhow::Result<Vec<RawRow>> {
    match path.is_dir() {
        true => parquet::read(path),
        false => csv::read(path),
    }
}

/// The cases of the observations at `path` (as [`read`] finds them), in
/// the order they were measured, with the candidates that `results.json`
/// (`previous`) says were wrong or skipped. `raw/` is read a file at a
/// time, its text borrowed from the columns read: as rows of their own,
/// 6 million observations took `analyze` 1.1 GB and most of its time in
/// the allocator.
pub fn load(path: &Path, previous: Option<&Results>) -> Result<Vec<CaseData>, String> {
    let mut cases = Cases::new(previous);
    match path.is_dir() {
        true => {
            let files = parquet::files(path).map_err(|e| e.to_string())?;
            for file in files {
                let in_file = |e: anyhow::Error| format!("{}: {e:#}", file.display());
                for group in parquet::read_file(&file).map_err(in_file)? {
                    for row in group.rows() {
                        cases.add(row.map_err(in_file)?)?;
                    }
                }
            }
        }
        false => {
            for row in csv::read(path).map_err(|e| e.to_string())? {
                cases.add(row.row())?;
            }
        }
    }
    cases.finish(previous)
}

/// Cases from rows, in the order they were measured, with the candidates
/// that `results.json` says were wrong or skipped.
pub fn cases(rows: &[RawRow], previous: Option<&Results>) -> Result<Vec<CaseData>, String> {
    let mut cases = Cases::new(previous);
    for row in rows {
        cases.add(row.row())?;
    }
    cases.finish(previous)
}

/// Cases being built from rows as they are read.
struct Cases {
    cases: Vec<CaseData>,
    /// The runs the rows came from.
    runs: std::collections::BTreeSet<String>,
    /// Rows added so far, for the line numbers of errors.
    rows: usize,
    /// The case and sample of the last row: the next is mostly of the same.
    last: Option<(usize, Slot)>,
}

impl Cases {
    /// The cases results.json knows, in their order: a case may have no
    /// row (every candidate wrong, skipped or without a valid observation).
    fn new(previous: Option<&Results>) -> Cases {
        let cases = previous
            .map(|p| &p.checks[..])
            .unwrap_or_default()
            .iter()
            .map(|v| CaseData {
                key: v.key.clone(),
                samples: Vec::new(),
                smaller: None,
                overlapped: None,
                calibration: None,
            })
            .collect();
        Cases {
            cases,
            runs: Default::default(),
            rows: 0,
            last: None,
        }
    }

    fn add(&mut self, row: Row) -> Result<(), String> {
        self.rows += 1;
        let line = self.rows + 1;
        let seconds = match (row.valid, row.seconds) {
            (true, Some(s)) if s.is_finite() && s >= 0.0 => Some(s),
            (true, Some(s)) => return Err(format!("line {line}: seconds `{s}` is not a duration")),
            (true, None) => {
                return Err(format!("line {line}: a valid observation without seconds"))
            }
            (false, _) => None,
        };
        if !self.runs.contains(row.run) {
            self.runs.insert(row.run.to_string());
        }
        let sample = self.sample_of(&row);
        match seconds {
            Some(seconds) => {
                sample.seconds.push(seconds);
                sample.rounds.push(row.round);
            }
            None => sample.invalid_rounds.push(row.round),
        }
        Ok(())
    }

    /// The sample `row` belongs to, made if new.
    fn sample_of(&mut self, row: &Row) -> &mut Sample {
        let (c, s) = match self.last.filter(|&(c, s)| {
            let case = &self.cases[c];
            case.key == row.key && sample_at(case, s).name == row.candidate
        }) {
            Some(last) => last,
            None => {
                let c = self.case_of(&row.key);
                let s = slot_of(&mut self.cases[c], row.candidate);
                self.last = Some((c, s));
                (c, s)
            }
        };
        sample_at_mut(&mut self.cases[c], s)
    }

    /// The index of the case of `key`, made if new.
    fn case_of(&mut self, key: &CaseKey) -> usize {
        match self.cases.iter().position(|c| c.key == *key) {
            Some(c) => c,
            None => {
                self.cases.push(CaseData {
                    key: key.clone(),
                    samples: Vec::new(),
                    smaller: None,
                    overlapped: None,
                    calibration: None,
                });
                self.cases.len() - 1
            }
        }
    }

    fn finish(mut self, previous: Option<&Results>) -> Result<Vec<CaseData>, String> {
        // Rows of several runs (files put together) would mix their rounds.
        if self.runs.len() > 1 {
            let runs: Vec<&str> = self.runs.iter().map(String::as_str).collect();
            return Err(format!(
                "rows of {} runs ({}): a run is analysed on its own rows",
                runs.len(),
                runs.join(", ")
            ));
        }
        for case in &mut self.cases {
            let verdict = previous.and_then(|p| p.checks.iter().find(|v| v.key == case.key));
            for c in verdict.map(|v| &v.candidates[..]).unwrap_or_default() {
                // The raw file holds observations only: what results.json
                // says of the rest (wrong and skipped candidates) comes
                // from there.
                if !case.samples.iter().any(|s| s.name == c.name) {
                    case.samples.push(Sample {
                        outcome: match &c.outcome {
                            Outcome::Unmeasured(_) => Outcome::Measured,
                            outcome => outcome.clone(),
                        },
                        ..Sample::measured(&c.name)
                    });
                }
            }
            // `default` first, as measured runs have it.
            case.samples.sort_by_key(|s| s.name != DEFAULT);
        }
        Ok(self.cases)
    }
}

/// Where a sample is in a case.
#[derive(Clone, Copy, PartialEq)]
enum Slot {
    /// The i-th candidate's.
    Candidate(usize),
    Smaller,
    Overlapped,
    Calibration,
}

/// Where `candidate`'s sample is in `case`, made if new.
fn slot_of(case: &mut CaseData, candidate: &str) -> Slot {
    if candidate == CALIBRATION {
        case.calibration
            .get_or_insert_with(|| Sample::measured(candidate));
        return Slot::Calibration;
    }
    if let Some(size_bytes) = Smaller::size_of(candidate) {
        case.smaller.get_or_insert_with(|| Smaller {
            size_bytes,
            sample: Sample::measured(candidate),
        });
        return Slot::Smaller;
    }
    if let Some(compute_s) = Overlapped::compute_of(candidate) {
        case.overlapped.get_or_insert_with(|| Overlapped {
            compute_s,
            sample: Sample::measured(candidate),
        });
        return Slot::Overlapped;
    }
    Slot::Candidate(
        match case.samples.iter().position(|s| s.name == candidate) {
            Some(s) => s,
            None => {
                case.samples.push(Sample::measured(candidate));
                case.samples.len() - 1
            }
        },
    )
}

/// The sample at a slot of [`slot_of`].
fn sample_at(case: &CaseData, slot: Slot) -> &Sample {
    match slot {
        Slot::Candidate(s) => &case.samples[s],
        Slot::Smaller => &case.smaller.as_ref().expect("a smaller sample").sample,
        Slot::Overlapped => {
            &case
                .overlapped
                .as_ref()
                .expect("an overlapped sample")
                .sample
        }
        Slot::Calibration => case.calibration.as_ref().expect("calibrations"),
    }
}

/// [`sample_at`], to add to.
fn sample_at_mut(case: &mut CaseData, slot: Slot) -> &mut Sample {
    match slot {
        Slot::Candidate(s) => &mut case.samples[s],
        Slot::Smaller => &mut case.smaller.as_mut().expect("a smaller sample").sample,
        Slot::Overlapped => {
            &mut case
                .overlapped
                .as_mut()
                .expect("an overlapped sample")
                .sample
        }
        Slot::Calibration => case.calibration.as_mut().expect("calibrations"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{verdicts, Options};
    use rand::{Rng, SeedableRng};

    /// 20 cases of `default` and a competitor 3 % faster, 5,000
    /// observations each in 10 rounds, with a few late starts: times as
    /// pgcheck gets them, differences of clock readings near 10⁴ s (whose
    /// last digits are floating-point noise) on a nanosecond timer.
    fn run() -> Vec<CaseData> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(26);
        let mut sample = |name: &str, floor_ns: f64| {
            let mut s = Sample::measured(name);
            for i in 0..5_000u32 {
                let start = 1e4 + rng.gen::<f64>();
                let ns = (floor_ns + -(1.0 - rng.gen::<f64>()).ln() * 300.0).round();
                s.seconds.push((start + ns * 1e-9) - start);
                s.rounds.push(i / 500);
            }
            s.invalid_rounds.extend([3, 7]);
            s
        };
        (0..20u64)
            .map(|i| CaseData {
                overlapped: None,
                calibration: None,
                key: CaseKey {
                    operation: crate::collective::Collective::Allreduce.into(),
                    size_bytes: 8 << i,
                    count: 8 << i,
                    datatype: Datatype::Byte,
                    op: Op::Bor,
                    root: 0,
                },
                samples: vec![
                    sample(DEFAULT, 2_000.0 + i as f64 * 500.0),
                    sample("allreduce_as_reduce_bcast", 1_940.0 + i as f64 * 485.0),
                ],
                smaller: None,
            })
            .collect()
    }

    /// Writes `cases` as a run does, one append per case, and reads them back.
    fn written(format: RawFormat, cases: &[CaseData]) -> (u64, Vec<CaseData>) {
        let dir =
            std::env::temp_dir().join(format!("pgcheck-raw-{}-{format:?}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        create(&dir, format).unwrap();
        for (i, case) in cases.iter().enumerate() {
            append(&dir, format, "20261124T164911Z-4242", i + 1, case).unwrap();
        }
        let path = find(&dir).unwrap();
        assert_eq!(
            path.file_name(),
            format.file_name().map(std::ffi::OsStr::new)
        );
        let bytes = match path.is_dir() {
            true => parquet::files(&path)
                .unwrap()
                .iter()
                .map(|f| std::fs::metadata(f).unwrap().len())
                .sum(),
            false => std::fs::metadata(&path).unwrap().len(),
        };
        let back = super::cases(&read(&path).unwrap(), None).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        (bytes, back)
    }

    #[test]
    fn compact_observations_take_at_most_16_bytes_and_decide_the_same() {
        let cases = run();
        let observations: usize = cases
            .iter()
            .flat_map(|c| &c.samples)
            .map(|s| s.seconds.len() + s.invalid_rounds.len())
            .sum();
        let mut compact = 0;
        for format in [RawFormat::Parquet, RawFormat::CsvGz] {
            let (bytes, back) = written(format, &cases);
            let per_observation = bytes as f64 / observations as f64;
            eprintln!("{format:?}: {per_observation:.2} B per observation");
            assert!(
                per_observation <= 16.0,
                "{format:?}: {per_observation} B per observation"
            );
            same_to_the_picosecond(&cases, &back);
            compact = compact.max(bytes);
        }
        // raw.csv keeps every bit, at several times the size.
        let (csv_bytes, exact) = written(RawFormat::Csv, &cases);
        assert!(csv_bytes > 4 * compact, "{csv_bytes} against {compact}");
        for (case, again) in cases.iter().zip(&exact) {
            assert_eq!(case.samples[0].seconds, again.samples[0].seconds);
        }
    }

    /// `back` holds `cases` as measured, every time to the picosecond, and
    /// decides as they do.
    fn same_to_the_picosecond(cases: &[CaseData], back: &[CaseData]) {
        // Every time comes back to the picosecond, every round and late start.
        for (case, again) in cases.iter().zip(back) {
            assert_eq!(case.key, again.key);
            for (s, a) in case.samples.iter().zip(&again.samples) {
                assert_eq!((&s.name, &s.rounds), (&a.name, &a.rounds));
                assert_eq!(s.invalid_rounds, a.invalid_rounds);
                for (x, y) in s.seconds.iter().zip(&a.seconds) {
                    assert!((x - y).abs() <= 0.5e-12, "{x} read back as {y}");
                }
            }
        }
        // The same verdicts as from the observations as measured.
        let (before, after) = (
            verdicts(cases, &Options::default()),
            verdicts(back, &Options::default()),
        );
        assert!(before.iter().any(|v| v.violated_by.is_none()));
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(
                (b.conclusion, b.severity, &b.violated_by, &b.fastest),
                (a.conclusion, a.severity, &a.violated_by, &a.fastest)
            );
            // No time moved by more than half a picosecond, nor can a median.
            for (x, y) in b.candidates.iter().zip(&a.candidates) {
                let (x, y) = (x.round_median_s.unwrap(), y.round_median_s.unwrap());
                assert!((x - y).abs() <= 0.5e-12, "median {x} then {y}");
            }
        }
    }

    #[test]
    fn rows_carry_their_run_and_runs_are_not_mixed() {
        let dir = std::env::temp_dir().join(format!("pgcheck-raw-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let case = &run()[0];
        create(&dir, RawFormat::Csv).unwrap();
        append(&dir, RawFormat::Csv, "first", 1, case).unwrap();
        let path = dir.join(CSV);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.starts_with("run,collective,size_bytes,"),
            "{}",
            &text[..80]
        );
        let rows = read(&path).unwrap();
        assert!(rows.iter().all(|r| r.run == "first"));
        assert_eq!(super::cases(&rows, None).unwrap()[0].samples.len(), 2);
        // Two runs' rows in one table are told apart, not merged.
        let mut both = rows.clone();
        both.extend(rows.iter().map(|r| RawRow {
            run: "second".into(),
            ..r.clone()
        }));
        assert_eq!(
            super::cases(&both, None).unwrap_err(),
            "rows of 2 runs (first, second): a run is analysed on its own rows"
        );
        // A file written before the column existed reads as one run.
        let old: String = text
            .lines()
            .map(|l| l.split_once(',').unwrap().1.to_string() + "\n")
            .collect();
        std::fs::write(&path, old).unwrap();
        let rows = read(&path).unwrap();
        assert!(rows.iter().all(|r| r.run.is_empty()));
        assert_eq!(
            super::cases(&rows, None).unwrap()[0].samples[0]
                .seconds
                .len(),
            5_000
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
