//! The summary as CSV: one row per check and candidate (`summary.csv`,
//! `--format csv`).

use crate::analyse::Results;
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use serde::Serialize;

/// One candidate of one check. Its fields are the CSV's columns (serde
/// writes the header from them); numbers without a value are empty.
#[derive(Serialize)]
struct SummaryRow<'a> {
    collective: Collective,
    size_bytes: u64,
    count: usize,
    datatype: Datatype,
    op: Op,
    root: usize,
    candidate: &'a str,
    status: &'static str,
    n: usize,
    invalid: usize,
    invalid_share: String,
    rounds: usize,
    median_s: String,
    q1_s: String,
    q3_s: String,
    round_median_s: String,
    slowdown: String,
    p_value: String,
    p_adjusted: String,
    significant: bool,
    p_equivalence: String,
    sensitivity: String,
    /// Only on the candidate that sets the check's severity.
    severity: &'static str,
    verdict: &'static str,
}

/// The summary as CSV: one row per check and candidate.
pub fn render<W: std::io::Write>(out: W, results: &Results) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:e}"));
    for check in &results.checks {
        let k = &check.key;
        for c in &check.candidates {
            let sets_severity = check.violated_by.as_deref() == Some(c.name.as_str());
            writer.serialize(SummaryRow {
                collective: k.collective,
                size_bytes: k.size_bytes,
                count: k.count,
                datatype: k.datatype,
                op: k.op,
                root: k.root,
                candidate: &c.name,
                status: c.outcome.label(),
                n: c.n,
                invalid: c.invalid,
                invalid_share: format!("{:.4}", c.invalid_share()),
                rounds: c.rounds,
                median_s: opt(c.median_s),
                q1_s: opt(c.q1_s),
                q3_s: opt(c.q3_s),
                round_median_s: opt(c.round_median_s),
                slowdown: opt(c.slowdown),
                p_value: opt(c.p_value),
                p_adjusted: opt(c.p_adjusted),
                significant: c.significant,
                p_equivalence: opt(c.p_equivalence),
                sensitivity: opt(c.sensitivity),
                severity: if sets_severity {
                    check.severity.label()
                } else {
                    ""
                },
                verdict: check.conclusion.label(),
            })?;
        }
    }
    writer.flush()
}
