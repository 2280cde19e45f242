//! `raw.csv` (one row per observation, appended after every check) and
//! `summary.csv` (one row per check and candidate).

use super::Results;
use crate::analyse::CaseKey;
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::path::Path;

/// One observation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RawRow {
    pub collective: String,
    pub size_bytes: u64,
    pub count: usize,
    pub datatype: String,
    pub op: String,
    pub root: usize,
    pub candidate: String,
    pub round: u32,
    pub seconds: f64,
}

/// Creates `raw.csv` with its header.
pub fn create_raw(dir: &Path) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_path(dir.join("raw.csv"))?;
    writer.write_record([
        "collective",
        "size_bytes",
        "count",
        "datatype",
        "op",
        "root",
        "candidate",
        "round",
        "seconds",
    ])?;
    writer.flush()
}

/// Appends one case's observations to `raw.csv`.
pub fn append_raw<'a>(
    dir: &Path,
    key: &CaseKey,
    samples: impl Iterator<Item = (&'a str, &'a [u32], &'a [f64])>,
) -> std::io::Result<()> {
    let file = OpenOptions::new().append(true).open(dir.join("raw.csv"))?;
    let mut writer = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(file);
    for (candidate, rounds, seconds) in samples {
        for (&round, &s) in rounds.iter().zip(seconds) {
            writer.serialize(RawRow {
                collective: key.collective.name().into(),
                size_bytes: key.size_bytes,
                count: key.count,
                datatype: key.datatype.name().into(),
                op: key.op.name().into(),
                root: key.root,
                candidate: candidate.into(),
                round,
                seconds: s,
            })?;
        }
    }
    writer.flush()
}

/// Reads `raw.csv`.
pub fn read_raw(path: &Path) -> anyhow::Result<Vec<RawRow>> {
    let mut reader = csv::Reader::from_path(path)?;
    Ok(reader.deserialize().collect::<Result<_, _>>()?)
}

/// Writes `summary.csv`: one row per check and candidate.
pub fn write_summary(dir: &Path, results: &Results) -> std::io::Result<()> {
    summary(std::fs::File::create(dir.join("summary.csv"))?, results)
}

/// The summary as CSV: one row per check and candidate.
pub fn summary<W: std::io::Write>(out: W, results: &Results) -> std::io::Result<()> {
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record([
        "collective",
        "size_bytes",
        "count",
        "datatype",
        "op",
        "root",
        "candidate",
        "status",
        "n",
        "invalid",
        "invalid_share",
        "rounds",
        "median_s",
        "q1_s",
        "q3_s",
        "round_median_s",
        "slowdown",
        "p_value",
        "p_adjusted",
        "significant",
        "p_equivalence",
        "sensitivity",
        "severity",
        "verdict",
    ])?;
    let opt = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:e}"));
    for check in &results.checks {
        for c in &check.candidates {
            let k = &check.key;
            let severity = if check.violated_by.as_deref() == Some(c.name.as_str()) {
                check.severity.label()
            } else {
                ""
            };
            writer.write_record([
                k.collective.name().to_string(),
                k.size_bytes.to_string(),
                k.count.to_string(),
                k.datatype.name().into(),
                k.op.name().into(),
                k.root.to_string(),
                c.name.clone(),
                c.status.clone(),
                c.n.to_string(),
                c.invalid.to_string(),
                format!("{:.4}", c.invalid_share()),
                c.rounds.to_string(),
                opt(c.median_s),
                opt(c.q1_s),
                opt(c.q3_s),
                opt(c.round_median_s),
                opt(c.slowdown),
                opt(c.p_value),
                opt(c.p_adjusted),
                c.significant.to_string(),
                opt(c.p_equivalence),
                opt(c.sensitivity),
                severity.into(),
                check.conclusion.label().into(),
            ])?;
        }
    }
    writer.flush()
}
