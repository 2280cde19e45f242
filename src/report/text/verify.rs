//! `pgcheck verify`'s pass/fail table.

use super::{style, wrap, Look};
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, Outcome};
use comfy_table::Table;
use std::collections::BTreeMap;

/// One row per (collective, candidate): how many cases passed; under the
/// table, the first failure or the reason for skipping of each, so that the
/// table fits the terminal. Returns the text and the number of failed cases.
pub fn render(runs: &[CaseData]) -> (String, usize) {
    render_to(runs, &Look::auto())
}

/// [`render`] in a given look.
pub fn render_to(runs: &[CaseData], look: &Look) -> (String, usize) {
    #[derive(Default)]
    struct Tally {
        passed: usize,
        failed: usize,
        skipped: usize,
        first_failure: Option<String>,
        skip_reason: Option<String>,
    }
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for run in runs {
        let c = &run.key;
        // `default`, the library's own call, is verified like every other.
        for candidate in &run.samples {
            let tally = tallies
                .entry((c.collective.name().to_string(), candidate.name.clone()))
                .or_default();
            match &candidate.outcome {
                Outcome::Measured | Outcome::Unmeasured(_) => tally.passed += 1,
                Outcome::Wrong(why) => {
                    tally.failed += 1;
                    tally.first_failure.get_or_insert_with(|| {
                        format!(
                            "{} B ({} elements, {}), root {}: {why}",
                            c.size_bytes,
                            c.count,
                            c.datatype.name(),
                            c.root
                        )
                    });
                }
                Outcome::Skipped(why) => {
                    tally.skipped += 1;
                    tally.skip_reason.get_or_insert_with(|| why.clone());
                }
            }
        }
    }
    let mut table = Table::new();
    style(&mut table, look);
    table.set_header(vec![
        "collective",
        "candidate",
        "result",
        "passed",
        "failed",
        "skipped",
    ]);
    let mut details = String::new();
    let (mut failures, mut skipped) = (0, 0);
    for ((collective, candidate), t) in &tallies {
        failures += t.failed;
        skipped += t.skipped;
        let result = if t.failed > 0 {
            "FAIL"
        } else if t.passed > 0 {
            "pass"
        } else {
            "skipped"
        };
        if let Some(detail) = t.first_failure.as_ref().or(t.skip_reason.as_ref()) {
            details += &wrap(
                &format!("{candidate} ({collective}), {result}: {detail}"),
                usize::from(look.width),
                "    ",
            );
        }
        table.add_row(vec![
            collective.clone(),
            candidate.clone(),
            result.into(),
            t.passed.to_string(),
            t.failed.to_string(),
            t.skipped.to_string(),
        ]);
    }
    super::arrange(&mut table);
    let mut summary = format!(
        "verify: {} cases, {failures} candidate runs failed, {skipped} skipped\n",
        runs.len(),
    );
    for run in runs {
        for candidate in run.samples.iter().filter(|c| c.name == DEFAULT) {
            if let Outcome::Wrong(why) = &candidate.outcome {
                summary += &format!(
                    "{}: {}: {why}\n",
                    crate::report::model::who_failed(DEFAULT),
                    run.key.label()
                );
            }
        }
    }
    (format!("{table}\n{details}{summary}"), failures)
}
