//! `pgcheck verify`'s pass/fail table.

use super::{table_text, wrap, Look};
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, CaseKey, Outcome};
use crate::report::document::{Align, Line, Table};
use std::collections::BTreeMap;

/// One row per (collective, candidate): how many cases passed; under the
/// table, the first failure or the reason for skipping of each, so that the
/// table fits the terminal. Returns the text and the number of failed cases.
pub fn render(runs: &[CaseData]) -> (String, usize) {
    render_to(runs, &Look::auto())
}

/// [`render`] in a given look.
pub fn render_to(runs: &[CaseData], look: &Look) -> (String, usize) {
    let tallies = tallies(runs);
    let width = usize::from(look.width);
    let failures = tallies.values().map(|t| t.failed).sum();
    let skipped = tallies.values().map(|t| t.skipped).sum();
    let details: String = tallies
        .iter()
        .filter_map(|((collective, candidate), t)| detail(collective, candidate, t))
        .map(|detail| wrap(&detail, width, "    "))
        .collect();
    let summary = summary(runs, failures, skipped, width);
    (
        format!("{}{details}{summary}", table_text(&table(&tallies), look)),
        failures,
    )
}

/// How one candidate fared in one collective's cases.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
    first_failure: Option<String>,
    skip_reason: Option<String>,
}

impl Tally {
    /// Counts one case's outcome; keeps the first failure and skip reason.
    fn add(&mut self, c: &CaseKey, outcome: &Outcome) {
        match outcome {
            Outcome::Measured | Outcome::Unmeasured(_) => self.passed += 1,
            Outcome::Wrong(why) => {
                self.failed += 1;
                self.first_failure.get_or_insert_with(|| {
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
                self.skipped += 1;
                self.skip_reason.get_or_insert_with(|| why.clone());
            }
        }
    }

    /// `FAIL` on any failure, else `pass` on any pass, else `skipped`.
    fn result(&self) -> &'static str {
        if self.failed > 0 {
            "FAIL"
        } else if self.passed > 0 {
            "pass"
        } else {
            "skipped"
        }
    }
}

/// A tally per (collective, candidate), in their order.
fn tallies(runs: &[CaseData]) -> BTreeMap<(String, String), Tally> {
    let mut tallies: BTreeMap<(String, String), Tally> = BTreeMap::new();
    for run in runs {
        // `default`, the library's own call, is verified like every other.
        for candidate in &run.samples {
            tallies
                .entry((run.key.operation.name().to_string(), candidate.name.clone()))
                .or_default()
                .add(&run.key, &candidate.outcome);
        }
    }
    tallies
}

/// The table of counts, a row per tally.
fn table(tallies: &BTreeMap<(String, String), Tally>) -> Table {
    use Align::{Left, Right};
    // The counts' headers short, so that the longest collective and
    // candidate names (reduce_scatter_block, 41 characters) and the rest
    // stand side by side within 100 columns.
    let mut table = Table::new([
        ("collective", Left),
        ("candidate", Left),
        ("result", Left),
        ("pass", Right),
        ("fail", Right),
        ("skip", Right),
    ]);
    for ((collective, candidate), t) in tallies {
        table.push(
            [
                collective.clone(),
                candidate.clone(),
                t.result().into(),
                t.passed.to_string(),
                t.failed.to_string(),
                t.skipped.to_string(),
            ]
            .into_iter()
            .map(Line::plain)
            .collect(),
        );
    }
    table
}

/// The line under the table naming a tally's first failure or reason
/// for skipping, if it has one.
fn detail(collective: &str, candidate: &str, t: &Tally) -> Option<String> {
    // The library's own failures are named case by case under the
    // table; its first one here too printed the same line twice.
    let named_below = candidate == DEFAULT && t.failed > 0;
    let detail = (t.first_failure.as_ref().or(t.skip_reason.as_ref())).filter(|_| !named_below)?;
    Some(format!(
        "{candidate} ({collective}), {}: {detail}",
        t.result()
    ))
}

/// The counts in a line, then each wrong result of the library's own call.
fn summary(runs: &[CaseData], failures: usize, skipped: usize, width: usize) -> String {
    let runs_failed = if failures == 1 { "run" } else { "runs" };
    let mut summary = wrap(
        &format!(
            "verify: {}, {failures} candidate {runs_failed} failed, {skipped} skipped",
            crate::case::cases(runs.len()),
        ),
        width,
        "  ",
    );
    for run in runs {
        for candidate in run.samples.iter().filter(|c| c.name == DEFAULT) {
            if let Outcome::Wrong(why) = &candidate.outcome {
                let who = crate::report::model::who_failed(DEFAULT);
                summary += &wrap(&format!("{who}: {}: {why}", run.key.label()), width, "  ");
            }
        }
    }
    summary
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::{CaseKey, Sample};

    fn cases() -> Vec<CaseData> {
        let mut wrong = Sample::measured("allreduce_as_reducescatterblock_allgather");
        wrong.outcome = Outcome::Wrong("rank 1: element 3 is 4, expected 5".into());
        vec![CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(64),
            samples: vec![Sample::measured(DEFAULT), wrong],
            smaller: None,
        }]
    }

    fn plain(width: u16) -> Look {
        Look {
            color: false,
            width,
        }
    }

    #[test]
    fn counts_each_candidate_and_names_its_first_failure() {
        let (text, failures) = render_to(&cases(), &plain(120));
        assert_eq!(failures, 1);
        assert!(text.contains("| allreduce"), "{text}");
        assert!(
            text.contains("verify: 1 case, 1 candidate run failed, 0 skipped"),
            "{text}"
        );
        assert!(
            text.contains("allreduce_as_reducescatterblock_allgather (allreduce), FAIL: 64 B"),
            "{text}"
        );
    }

    /// The library's wrong result is one line, not two (the first failure's
    /// and the case's).
    #[test]
    fn a_wrong_result_of_the_library_is_named_once() {
        let mut wrong = Sample::measured(DEFAULT);
        wrong.outcome = Outcome::Wrong("rank 1: element 3 is 4, expected 5".into());
        let run = CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(64),
            samples: vec![wrong],
            smaller: None,
        };
        let (text, failures) = render_to(&[run], &plain(120));
        assert_eq!(failures, 1);
        assert_eq!(
            text.matches("element 3 is 4, expected 5").count(),
            1,
            "{text}"
        );
    }

    /// At 60, 80 and 100 columns: no word broken ("resu/lt", "skip/ped").
    #[test]
    fn the_verification_breaks_no_word_at_any_width() {
        let mut skipped = Sample::measured("allreduce_as_allreduce_lane");
        skipped.outcome =
            Outcome::Skipped("needs several nodes with the same ranks per node".into());
        let mut all = cases();
        all[0].samples.push(skipped);
        crate::report::text::assert_no_word_broken(|width| render_to(&all, &plain(width)).0);
    }

    /// The longest collective and candidate names side by side in a box
    /// at 100 columns, as the tests read it (`VerifyCounts`).
    #[test]
    fn the_longest_names_fit_a_box_at_100_columns() {
        let longest = crate::operation::Operation::all()
            .flat_map(|c| crate::candidates::competitors_of(c).map(move |k| (c, k.name)))
            .max_by_key(|(c, name)| c.name().len() + name.len())
            .unwrap();
        let mut key = CaseKey::allreduce_bytes(64);
        key.operation = longest.0;
        let run = CaseData {
            overlapped: None,
            calibration: None,
            key,
            samples: vec![Sample::measured(DEFAULT), Sample::measured(longest.1)],
            smaller: None,
        };
        let (text, _) = render_to(&[run], &plain(100));
        assert!(text.contains(&format!("| {} ", longest.0.name())), "{text}");
    }

    /// A width its names cannot fit: a record per row, no line wider.
    #[test]
    fn names_wider_than_the_width_become_records() {
        let (text, _) = render_to(&cases(), &plain(50));
        assert!(!text.contains('+'), "no box: {text}");
        let name = "allreduce_as_reducescatterblock_allgather";
        assert!(text.lines().any(|l| l.trim() == name), "{text}");
        for line in text.lines() {
            assert!(line.chars().count() <= 50, "{line:?} in\n{text}");
        }
    }
}
