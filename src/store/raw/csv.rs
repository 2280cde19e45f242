//! `raw.csv` and `raw.csv.gz`: one CSV row per observation.
//!
//! - `raw.csv.gz`: gzip-compressed CSV with the time in nanoseconds to the
//!   picosecond (`ns`), one gzip member per case. Nanoseconds to the
//!   picosecond, because the times are differences of MPI_Wtime values
//!   whose last digits are floating-point noise (`6.339999999882551e-6`
//!   becomes `6340`): a picosecond is a thousandth of the finest timer,
//!   and the short number compresses.
//! - `raw.csv`: plain CSV with the time in seconds as f64 prints it
//!   (shortest round trip: re-read, every bit comes back).

use super::{rows, samples, valid_by_default, RawFormat, RawRow};
use crate::case::{CaseData, Sample};
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

/// The key columns of a row of `raw.csv.gz`: the same for every
/// observation of a candidate in a case, so they are written once per
/// candidate and copied ([`append`]); `round`, `valid` and `ns` follow.
#[derive(Serialize)]
struct CompactKey<'a> {
    run: &'a str,
    collective: Operation,
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
    collective: Operation,
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

/// The rows of `raw.csv` for `case`, with the header first when `header`.
fn plain_rows(run: &str, case: &CaseData, header: bool) -> std::io::Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .has_headers(header)
        .from_writer(Vec::new());
    let k = &case.key;
    for (sample, (round, seconds)) in samples(case).flat_map(|s| rows(s).map(move |r| (s, r))) {
        writer.serialize(RawRow {
            run: run.to_string(),
            collective: k.operation,
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
            collective: k.operation,
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

/// Appends one case's observations to `raw.csv` or `raw.csv.gz`
/// (`format`), each row under the run's id.
pub fn append(dir: &Path, format: RawFormat, run: &str, case: &CaseData) -> std::io::Result<()> {
    let name = format.file_name().expect("a CSV format");
    let mut file = OpenOptions::new().append(true).open(dir.join(name))?;
    let empty = file.metadata()?.len() == 0;
    let bytes = match format {
        RawFormat::CsvGz => {
            // The fastest level: rank 0 compresses while the other ranks
            // wait. Level 6 made a 50 ms case of 8 B allreduce cost 16 ms
            // more between cases, for 3.3 instead of 5.3 bytes an
            // observation.
            let text = compact_rows(run, case, empty)?;
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            gz.write_all(&text)?;
            gz.finish()?
        }
        _ => plain_rows(run, case, empty)?,
    };
    // One write per case: a killed run leaves whole cases.
    file.write_all(&bytes)?;
    file.flush()
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

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
