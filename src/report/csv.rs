//! The summary as CSV (`summary.csv`, `--format csv`): tidy, one row per
//! case and candidate, with the case's columns repeated on each of its
//! rows. Column names carry their units (`_bytes`, `_ns`; `share` is a
//! fraction of 1, `slowdown` and `sensitivity` are factors); numbers are
//! plain decimals at a fixed precision per column (times to 0.1 ns,
//! factors and shares to 4 decimals, p-values to 10), empty where there is
//! no value.

use crate::analyse::Results;
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use serde::Serialize;

/// One candidate of one case. Its fields are the CSV's columns (serde
/// writes the header from them).
#[derive(Serialize)]
struct SummaryRow<'a> {
    collective: Operation,
    size_bytes: u64,
    count: usize,
    datatype: Datatype,
    op: Op,
    root: usize,
    candidate: &'a str,
    status: &'static str,
    /// Valid observations.
    n: usize,
    /// Observations lost to late starts, and their share of all.
    invalid: usize,
    invalid_share: String,
    rounds: usize,
    median_ns: String,
    q1_ns: String,
    q3_ns: String,
    /// The median of the per-round medians, which the slowdown compares.
    round_median_ns: String,
    /// `default`'s round median over this candidate's.
    slowdown: String,
    p_value: String,
    p_adjusted: String,
    significant: bool,
    p_equivalence: String,
    sensitivity: String,
    /// This candidate sets the case's severity.
    violates: bool,
    /// The case's severity and verdict.
    severity: &'static str,
    verdict: &'static str,
}

/// Nanoseconds to a tenth, finer than any MPI timer here.
fn nanoseconds(seconds: Option<f64>) -> String {
    fixed(seconds.map(|s| s * 1e9), 1)
}

/// A p-value to 10 decimals: four significant digits at 10⁻⁶, well
/// below any level a test is run at (results.json has every digit).
fn probability(p: Option<f64>) -> String {
    fixed(p, 10)
}

/// `value` with `decimals` digits after the point; empty for none.
fn fixed(value: Option<f64>, decimals: usize) -> String {
    value.map_or(String::new(), |v| format!("{v:.decimals$}"))
}

/// The summary as CSV: one row per case and candidate.
pub fn render<W: std::io::Write>(out: W, results: &Results) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    for check in &results.checks {
        let k = &check.key;
        for c in &check.candidates {
            writer.serialize(SummaryRow {
                collective: k.operation,
                size_bytes: k.size_bytes,
                count: k.count,
                datatype: k.datatype,
                op: k.op,
                root: k.root,
                candidate: &c.name,
                status: c.outcome.label(),
                n: c.n,
                invalid: c.invalid,
                invalid_share: fixed(Some(c.invalid_share()), 4),
                rounds: c.rounds,
                median_ns: nanoseconds(c.median_s),
                q1_ns: nanoseconds(c.q1_s),
                q3_ns: nanoseconds(c.q3_s),
                round_median_ns: nanoseconds(c.round_median_s),
                slowdown: fixed(c.slowdown, 4),
                p_value: probability(c.p_value),
                p_adjusted: probability(c.p_adjusted),
                significant: c.significant,
                p_equivalence: probability(c.p_equivalence),
                sensitivity: fixed(c.sensitivity, 4),
                violates: check.violated_by.as_deref() == Some(c.name.as_str()),
                severity: check.severity.label(),
                verdict: check.conclusion.label(),
            })?;
        }
    }
    writer.flush()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn every_row_is_one_case_and_candidate_in_plain_decimals() {
        let results = fixture::results();
        let mut out = Vec::new();
        render(&mut out, &results).unwrap();
        let text = String::from_utf8(out).unwrap();
        let mut rows = text.lines();
        let header: Vec<&str> = rows.next().unwrap().split(',').collect();
        for column in [
            "size_bytes",
            "median_ns",
            "round_median_ns",
            "invalid_share",
        ] {
            assert!(header.contains(&column), "{header:?}");
        }
        let rows: Vec<Vec<&str>> = rows.map(|r| r.split(',').collect()).collect();
        let candidates: usize = results.checks.iter().map(|c| c.candidates.len()).sum();
        assert_eq!(rows.len(), candidates);
        let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
        for row in &rows {
            assert_eq!(row.len(), header.len(), "{row:?}");
            // No exponents: every number is a plain decimal.
            for cell in row {
                let number = cell.parse::<f64>().is_ok();
                assert!(!number || !cell.contains(['e', 'E']), "{cell} in {row:?}");
            }
            let median = row[column("median_ns")];
            if !median.is_empty() {
                assert_eq!(median.split('.').nth(1).map(str::len), Some(1), "{median}");
            }
            let slowdown = row[column("slowdown")];
            if !slowdown.is_empty() {
                assert_eq!(
                    slowdown.split('.').nth(1).map(str::len),
                    Some(4),
                    "{slowdown}"
                );
            }
        }
        // The case's verdict and severity on each of its rows; the one
        // candidate that sets the severity is marked.
        let check = results
            .checks
            .iter()
            .find(|c| c.violated_by.is_some())
            .expect("a violated case in the fixture");
        let of_check: Vec<&Vec<&str>> = rows
            .iter()
            .filter(|r| r[column("size_bytes")] == check.key.size_bytes.to_string())
            .filter(|r| r[column("collective")] == check.key.operation.name())
            .collect();
        assert!(of_check
            .iter()
            .all(|r| r[column("severity")] == check.severity.label()));
        let violating: Vec<&str> = of_check
            .iter()
            .filter(|r| r[column("violates")] == "true")
            .map(|r| r[column("candidate")])
            .collect();
        assert_eq!(violating, [check.violated_by.as_deref().unwrap()]);
    }
}
