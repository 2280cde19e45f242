//! The summary as CSV: one row per check and candidate (`summary.csv`,
//! `--format csv`).

use crate::analyse::Results;

/// The summary as CSV: one row per check and candidate.
pub fn render<W: std::io::Write>(out: W, results: &Results) -> std::io::Result<()> {
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
                c.outcome.label().into(),
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
