//! A run's observations, one row per observation, appended after every
//! case, so that a killed run keeps what it measured and `analyze` can
//! decide again. An observation discarded for a late start has a row too,
//! without a time.
//!
//! Two formats, chosen with `run --raw`; `analyze` reads either:
//! - `raw.csv.gz` (the default): gzip-compressed CSV with the time in
//!   nanoseconds to the picosecond (`ns`), one gzip member per case.
//!   Gzip because pandas, polars and R (`read.csv`, data.table, readr) read
//!   `.csv.gz` as it is, with nothing to install, and flate2 is pure Rust;
//!   zstd compresses somewhat better but R needs a package for it, and
//!   Parquet would need the arrow crates, a build far heavier than the
//!   rest of pgcheck. Nanoseconds to the picosecond, because the times
//!   are differences of MPI_Wtime values whose last digits are
//!   floating-point noise (`6.339999999882551e-6` becomes `6340`): a
//!   picosecond is a thousandth of the finest timer, and the short number
//!   compresses. The key columns repeat from row to row and cost almost
//!   nothing compressed: about 5 bytes per observation against 65–77 in
//!   `raw.csv`.
//! - `raw.csv`: plain CSV with the time in seconds as f64 prints it
//!   (shortest round trip: re-read, every bit comes back).
//!
//! The first column, `run`, is the run's id (`meta.run_id` in
//! results.json), so that the rows of several runs can be put in one
//! table; files written before it existed have no such column.

use crate::analyse::Results;
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, CaseKey, Outcome, Sample, Smaller};
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The plain CSV file's name.
pub const CSV: &str = "raw.csv";
/// The compressed file's name.
pub const CSV_GZ: &str = "raw.csv.gz";

/// How a run keeps its observations (`run --raw`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum RawFormat {
    /// Not at all: `analyze` cannot decide the run again.
    None,
    /// `raw.csv`, seconds as f64 prints them (65–77 bytes an observation).
    Csv,
    /// `raw.csv.gz`, nanoseconds to the picosecond (about 5 bytes an
    /// observation).
    #[default]
    #[value(name = "csv.gz")]
    CsvGz,
}

impl RawFormat {
    /// The file's name; None for no file.
    pub fn file_name(self) -> Option<&'static str> {
        match self {
            RawFormat::None => None,
            RawFormat::Csv => Some(CSV),
            RawFormat::CsvGz => Some(CSV_GZ),
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
    pub collective: Collective,
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

/// The key columns of a row of `raw.csv.gz`: the same for every
/// observation of a candidate in a case, so they are written once per
/// candidate and copied ([`append`]); `round`, `valid` and `ns` follow.
#[derive(Serialize)]
struct CompactKey<'a> {
    run: &'a str,
    collective: Collective,
    size_bytes: u64,
    count: usize,
    datatype: Datatype,
    op: Op,
    root: usize,
    candidate: &'a str,
}

/// The columns of `raw.csv.gz` after [`CompactKey`]'s.
const COMPACT_TAIL: &str = "round,valid,ns";

/// A row of either file as read: `seconds` in `raw.csv`, `ns` in
/// `raw.csv.gz`.
#[derive(Deserialize)]
struct StoredRow {
    #[serde(default)]
    run: String,
    collective: Collective,
    size_bytes: u64,
    count: usize,
    datatype: Datatype,
    op: Op,
    root: usize,
    candidate: String,
    round: u32,
    #[serde(default = "valid_by_default")]
    valid: bool,
    #[serde(default)]
    seconds: Option<f64>,
    #[serde(default)]
    ns: Option<String>,
}

/// Files written before the `valid` column held valid observations only
/// (their invalid observations are not counted).
fn valid_by_default() -> bool {
    true
}

impl RawRow {
    fn key(&self) -> CaseKey {
        CaseKey {
            collective: self.collective,
            size_bytes: self.size_bytes,
            count: self.count,
            datatype: self.datatype,
            op: self.op,
            root: self.root,
        }
    }
}

/// `seconds` in nanoseconds to the picosecond, without trailing zeros:
/// `6.339999999882551e-6` is `6340`.
pub fn nanoseconds(seconds: f64) -> String {
    let mut text = String::new();
    push_nanoseconds(&mut text, seconds);
    text
}

/// [`nanoseconds`] appended to `text`, which a row is built in without
/// an allocation of its own. Whole picoseconds in integers: formatting
/// the float with three decimals cost rank 0 a third of a row's time.
fn push_nanoseconds(text: &mut String, seconds: f64) {
    let picoseconds = (seconds * 1e12).round();
    // Beyond 2^53 ps (2.5 hours) integers no longer hold every picosecond.
    if picoseconds.is_nan() || picoseconds.abs() >= 9.0e15 {
        use std::fmt::Write as _;
        let start = text.len();
        write!(text, "{:.3}", seconds * 1e9).expect("writing to a String");
        if text[start..].contains('.') {
            let kept = text.trim_end_matches('0').trim_end_matches('.').len();
            text.truncate(kept);
        }
        return;
    }
    if picoseconds < 0.0 {
        text.push('-');
    }
    let picoseconds = picoseconds.abs() as u64;
    push_decimal(text, picoseconds / 1000);
    let mut fraction = picoseconds % 1000;
    if fraction > 0 {
        text.push('.');
        let mut digits = 3;
        while fraction.is_multiple_of(10) {
            fraction /= 10;
            digits -= 1;
        }
        let width = text.len();
        push_decimal(text, fraction);
        let written = text.len() - width;
        // Leading zeros of the fraction: 0.05 ns is "0.05", not "0.5".
        for _ in written..digits {
            text.insert(width, '0');
        }
    }
}

/// `value` in decimal, appended to `text`.
fn push_decimal(text: &mut String, value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = value;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    text.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

/// The seconds of a `ns` field: the decimal read as nanoseconds, rounded
/// once to the nearest f64.
fn seconds_of_ns(ns: &str) -> Result<f64, std::num::ParseFloatError> {
    format!("{}e-9", ns.trim()).parse()
}

/// Creates the empty file of `format` (its header comes with the first
/// case) and removes the other format's file, so that a directory holds
/// one run's observations.
pub fn create(dir: &Path, format: RawFormat) -> std::io::Result<()> {
    for name in [CSV, CSV_GZ] {
        if Some(name) != format.file_name() {
            match std::fs::remove_file(dir.join(name)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
                _ => {}
            }
        }
    }
    match format.file_name() {
        Some(name) => std::fs::File::create(dir.join(name)).map(drop),
        None => Ok(()),
    }
}

/// Appends one case's observations to the file of `format`, each row
/// under the run's id.
pub fn append(dir: &Path, format: RawFormat, run: &str, case: &CaseData) -> std::io::Result<()> {
    let Some(name) = format.file_name() else {
        return Ok(());
    };
    let mut file = OpenOptions::new().append(true).open(dir.join(name))?;
    let empty = file.metadata()?.len() == 0;
    let text = match format {
        RawFormat::Csv => plain_rows(run, case, empty)?,
        RawFormat::CsvGz | RawFormat::None => compact_rows(run, case, empty)?,
    };
    let bytes = match format {
        RawFormat::CsvGz => {
            // The fastest level: rank 0 compresses while the other ranks
            // wait. Level 6 made a 50 ms case of 8 B allreduce cost 16 ms
            // more between cases, for 3.3 instead of 5.3 bytes an
            // observation.
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&text)?;
            gz.finish()?
        }
        _ => text,
    };
    // One write per case: a killed run leaves whole cases.
    file.write_all(&bytes)?;
    file.flush()
}

/// The samples of `case`, the smaller size's last.
fn samples(case: &CaseData) -> impl Iterator<Item = &Sample> {
    case.samples
        .iter()
        .chain(case.smaller.as_ref().map(|s| &s.sample))
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

/// The rows of `raw.csv` for `case`, with the header first when `header`.
fn plain_rows(run: &str, case: &CaseData, header: bool) -> std::io::Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    let k = &case.key;
    for (sample, (round, seconds)) in samples(case).flat_map(|s| rows(s).map(move |r| (s, r))) {
        writer.serialize(RawRow {
            run: run.to_string(),
            collective: k.collective,
            size_bytes: k.size_bytes,
            count: k.count,
            datatype: k.datatype,
            op: k.op,
            root: k.root,
            candidate: sample.name.clone(),
            round,
            valid: seconds.is_some(),
            seconds,
        })?;
    }
    writer.into_inner().map_err(|e| e.into_error())
}

/// The rows of `raw.csv.gz` (before compression) for `case`, with the
/// header first when `header`. The key columns are serialised once per
/// candidate and copied into each row: serialising every row whole cost
/// rank 0 about 0.6 µs an observation, 18 ms for a 50 ms case of 8 B
/// allreduce on 2 ranks, while the other ranks waited.
fn compact_rows(run: &str, case: &CaseData, header: bool) -> std::io::Result<Vec<u8>> {
    use std::fmt::Write as _;
    let k = &case.key;
    let rows_of = |s: &Sample| s.rounds.len() + s.invalid_rounds.len();
    // Room for every row at once: growing by doubling copied the text
    // again and again while the other ranks waited.
    let mut text = String::with_capacity(samples(case).map(|s| rows_of(s) * 96).sum());
    let mut header = header;
    for sample in samples(case) {
        if rows_of(sample) == 0 {
            continue;
        }
        let mut writer = csv::WriterBuilder::new()
            .has_headers(header)
            .from_writer(Vec::new());
        writer.serialize(CompactKey {
            run,
            collective: k.collective,
            size_bytes: k.size_bytes,
            count: k.count,
            datatype: k.datatype,
            op: k.op,
            root: k.root,
            candidate: &sample.name,
        })?;
        let bytes = writer.into_inner().map_err(|e| e.into_error())?;
        let lines = String::from_utf8(bytes).map_err(std::io::Error::other)?;
        let mut lines = lines.lines();
        if std::mem::take(&mut header) {
            let names = lines.next().unwrap_or_default();
            writeln!(text, "{names},{COMPACT_TAIL}").expect("writing to a String");
        }
        let key = lines.next().unwrap_or_default();
        for (round, seconds) in rows(sample) {
            text.push_str(key);
            text.push(',');
            push_decimal(&mut text, u64::from(round));
            text.push_str(if seconds.is_some() {
                ",true,"
            } else {
                ",false,"
            });
            if let Some(s) = seconds {
                push_nanoseconds(&mut text, s);
            }
            text.push('\n');
        }
    }
    Ok(text.into_bytes())
}

/// The observations file of the run in `dir`: `raw.csv.gz`, else `raw.csv`.
pub fn find(dir: &Path) -> Option<PathBuf> {
    [CSV_GZ, CSV]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Reads `raw.csv` or `raw.csv.gz` (by its name).
pub fn read(path: &Path) -> anyhow::Result<Vec<RawRow>> {
    let file = std::fs::File::open(path)?;
    let gz = path.extension().is_some_and(|e| e == "gz");
    let input: Box<dyn std::io::Read> = match gz {
        true => Box::new(flate2::read::MultiGzDecoder::new(std::io::BufReader::new(
            file,
        ))),
        false => Box::new(file),
    };
    let mut reader = csv::Reader::from_reader(input);
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<StoredRow>().enumerate() {
        let row = row?;
        let seconds =
            match (row.seconds, row.ns.as_deref().filter(|n| !n.is_empty())) {
                (Some(s), _) => Some(s),
                (None, Some(ns)) => Some(seconds_of_ns(ns).map_err(|e| {
                    anyhow::anyhow!("line {}: ns `{ns}` is not a number: {e}", i + 2)
                })?),
                (None, None) => None,
            };
        rows.push(RawRow {
            run: row.run,
            collective: row.collective,
            size_bytes: row.size_bytes,
            count: row.count,
            datatype: row.datatype,
            op: row.op,
            root: row.root,
            candidate: row.candidate,
            round: row.round,
            valid: row.valid,
            seconds,
        });
    }
    Ok(rows)
}

/// Cases from `raw.csv` rows, in the order they were measured, with the
/// candidates that `results.json` says were wrong or skipped.
pub fn cases(rows: &[RawRow], previous: Option<&Results>) -> Result<Vec<CaseData>, String> {
    // Rows of several runs (files put together) would mix their rounds.
    let mut runs: Vec<&str> = rows.iter().map(|r| r.run.as_str()).collect();
    runs.sort_unstable();
    runs.dedup();
    if runs.len() > 1 {
        return Err(format!(
            "rows of {} runs ({}): a run is analysed on its own rows",
            runs.len(),
            runs.join(", ")
        ));
    }
    // The cases results.json knows, in their order: a case may have no row
    // (every candidate wrong, skipped or without a valid observation).
    let mut cases: Vec<CaseData> = previous
        .map(|p| &p.checks[..])
        .unwrap_or_default()
        .iter()
        .map(|v| CaseData {
            key: v.key.clone(),
            samples: Vec::new(),
            smaller: None,
        })
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let seconds = match (row.valid, row.seconds) {
            (true, Some(s)) if s.is_finite() && s >= 0.0 => Some(s),
            (true, Some(s)) => {
                return Err(format!("line {}: seconds `{s}` is not a duration", i + 2))
            }
            (true, None) => {
                return Err(format!(
                    "line {}: a valid observation without seconds",
                    i + 2
                ))
            }
            (false, _) => None,
        };
        let key = row.key();
        let case = match cases.iter().position(|c| c.key == key) {
            Some(c) => &mut cases[c],
            None => {
                cases.push(CaseData {
                    key,
                    samples: Vec::new(),
                    smaller: None,
                });
                cases.last_mut().expect("just pushed")
            }
        };
        let sample = match Smaller::size_of(&row.candidate) {
            Some(size_bytes) => {
                let smaller = case.smaller.get_or_insert_with(|| Smaller {
                    size_bytes,
                    sample: Sample::measured(&row.candidate),
                });
                &mut smaller.sample
            }
            None => match case.samples.iter().position(|s| s.name == row.candidate) {
                Some(s) => &mut case.samples[s],
                None => {
                    case.samples.push(Sample::measured(&row.candidate));
                    case.samples.last_mut().expect("just pushed")
                }
            },
        };
        match seconds {
            Some(seconds) => {
                sample.seconds.push(seconds);
                sample.rounds.push(row.round);
            }
            None => sample.invalid_rounds.push(row.round),
        }
    }
    for case in &mut cases {
        let verdict = previous.and_then(|p| p.checks.iter().find(|v| v.key == case.key));
        for c in verdict.map(|v| &v.candidates[..]).unwrap_or_default() {
            // raw.csv holds observations only: what results.json says of
            // the rest (wrong and skipped candidates) comes from there.
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
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{verdicts, Correction, Options, Outliers, Test};
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
                key: CaseKey {
                    collective: Collective::Allreduce,
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

    fn options() -> Options {
        Options {
            alpha: 0.05,
            test: Test::Rounds,
            correction: Correction::Holm,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: crate::analyse::DEFAULT_MARGIN,
            qmax: crate::analyse::DEFAULT_QMAX,
            timer_resolution_s: 1e-9,
            fail_on: None,
        }
    }

    /// Writes `cases` as a run does, one append per case, and reads them back.
    fn written(format: RawFormat, cases: &[CaseData]) -> (u64, Vec<CaseData>) {
        let dir =
            std::env::temp_dir().join(format!("pgcheck-raw-{}-{format:?}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        create(&dir, format).unwrap();
        for case in cases {
            append(&dir, format, "20261124T164911Z-4242", case).unwrap();
        }
        let path = find(&dir).unwrap();
        assert_eq!(
            path.file_name(),
            format.file_name().map(std::ffi::OsStr::new)
        );
        let bytes = std::fs::metadata(&path).unwrap().len();
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
        let (bytes, back) = written(RawFormat::CsvGz, &cases);
        let per_observation = bytes as f64 / observations as f64;
        eprintln!("raw.csv.gz: {per_observation:.2} B per observation");
        assert!(
            per_observation <= 16.0,
            "{per_observation} B per observation"
        );
        // Every time comes back to the picosecond, every round and late start.
        for (case, again) in cases.iter().zip(&back) {
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
        let (before, after) = (verdicts(&cases, &options()), verdicts(&back, &options()));
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
        // raw.csv keeps every bit, at several times the size.
        let (csv_bytes, exact) = written(RawFormat::Csv, &cases);
        assert!(csv_bytes > 4 * bytes, "{csv_bytes} against {bytes}");
        for (case, again) in cases.iter().zip(&exact) {
            assert_eq!(case.samples[0].seconds, again.samples[0].seconds);
        }
    }

    #[test]
    fn rows_carry_their_run_and_runs_are_not_mixed() {
        let dir = std::env::temp_dir().join(format!("pgcheck-raw-runs-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let case = &run()[0];
        create(&dir, RawFormat::Csv).unwrap();
        append(&dir, RawFormat::Csv, "first", case).unwrap();
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

    #[test]
    fn nanoseconds_drop_the_noise_of_clock_differences() {
        assert_eq!(nanoseconds(6.339999999882551e-6), "6340");
        assert_eq!(nanoseconds(1.2225e-6), "1222.5");
        assert_eq!(nanoseconds(0.0), "0");
        assert_eq!(nanoseconds(2.5), "2500000000");
        assert_eq!(seconds_of_ns("1222.5").unwrap(), 1.2225e-6);
        assert_eq!(nanoseconds(5e-11), "0.05");
        assert_eq!(nanoseconds(1.005e-9), "1.005");
        assert_eq!(nanoseconds(-2.5e-9), "-2.5");
        assert_eq!(nanoseconds(1e5), "100000000000000");
    }

    /// Written in integers, read back within half a picosecond: the
    /// float's own three-decimal rendering, which the integer path
    /// replaced, is the reference.
    #[test]
    fn nanoseconds_keep_every_picosecond() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..100_000 {
            let start = 1e4 * rng.gen::<f64>();
            let seconds = (start + 10f64.powf(-9.0 + 9.0 * rng.gen::<f64>())) - start;
            let ours = nanoseconds(seconds);
            let back = seconds_of_ns(&ours).unwrap();
            assert!(
                (back - seconds).abs() <= 0.5e-12 + 1e-15 * seconds,
                "{seconds:e}: {ours}"
            );
            let float = format!("{:.3}", seconds * 1e9);
            let float = float.trim_end_matches('0').trim_end_matches('.');
            let apart = (float.parse::<f64>().unwrap() - ours.parse::<f64>().unwrap()).abs();
            assert!(apart <= 1.0001e-3, "{seconds:e}: {ours} against {float}");
        }
    }
}
