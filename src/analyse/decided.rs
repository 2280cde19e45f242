//! Whether a run decided: the rule behind exit status 9, and the exit
//! status the gate chose, as results.json and the reports record it.

use super::{Conclusion, NoiseVerdict, Results};
use serde::{Deserialize, Serialize};

/// The exit status of a finished analysis and why (`results.exit`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitStatus {
    pub status: i32,
    /// `pass`, `guideline violation or regression`, `undecided`, …
    pub meaning: String,
    /// What in this run chose it: "2 cases violated, worst high (--fail-on violated)".
    pub reason: String,
}

impl Results {
    /// How many cases have `conclusion`.
    pub fn count(&self, conclusion: Conclusion) -> usize {
        self.checks
            .iter()
            .filter(|c| c.conclusion == conclusion)
            .count()
    }

    /// Why this run could not decide, if it could not: the baseline too
    /// small to decide regressions and new violations, and then noisy by
    /// the noise rule, or more than half of its decidable cases (measured,
    /// library right) inconclusive or powerless.
    pub fn undecided(&self) -> Option<String> {
        let baseline = self
            .baseline
            .as_ref()
            .and_then(|b| b.undecided.as_deref())
            .map(|why| format!("regressions and new violations {why}"));
        let noisy = self
            .meta
            .noise
            .as_ref()
            .filter(|n| n.verdict == NoiseVerdict::Noisy)
            .map(|noise| format!("noisy run: {}", noise.reason));
        let decidable: Vec<_> = self
            .checks
            .iter()
            .filter(|c| {
                matches!(
                    c.conclusion,
                    Conclusion::Holds | Conclusion::Inconclusive | Conclusion::Violated
                )
            })
            .collect();
        let open = decidable
            .iter()
            .filter(|c| c.conclusion == Conclusion::Inconclusive || c.powerless)
            .count();
        let open = (2 * open > decidable.len()).then(|| {
            format!(
                "{open} of {} cases inconclusive or powerless",
                decidable.len()
            )
        });
        let reasons: Vec<String> = [baseline, noisy.or(open)].into_iter().flatten().collect();
        (!reasons.is_empty()).then(|| reasons.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use crate::analyse::{Conclusion, Results};
    use crate::collective::Collective;
    use crate::report::fixture;

    fn results(conclusions: &[(Conclusion, bool)]) -> Results {
        let mut results = fixture::results();
        results.meta.noise = None;
        results.checks = conclusions
            .iter()
            .enumerate()
            .map(|(i, &(conclusion, powerless))| {
                let mut v = fixture::check(
                    Collective::Allreduce,
                    8 << i,
                    0,
                    10.0,
                    &[("c", 10.0, 0.5)],
                    vec![],
                );
                v.conclusion = conclusion;
                v.powerless = powerless;
                v
            })
            .collect();
        results
    }

    #[test]
    fn more_than_half_inconclusive_or_powerless_is_undecided() {
        use Conclusion::*;
        let half = results(&[(Holds, false), (Inconclusive, false)]);
        assert_eq!(half.undecided(), None, "half is not more than half");
        let more = results(&[(Holds, false), (Inconclusive, false), (Violated, true)]);
        assert_eq!(
            more.undecided().as_deref(),
            Some("2 of 3 cases inconclusive or powerless")
        );
        // Cases without a verdict have their own status and do not count.
        let unmeasured = results(&[(Holds, false), (Inconclusive, false), (Unmeasured, false)]);
        assert_eq!(unmeasured.undecided(), None);
    }

    #[test]
    fn a_noisy_run_is_undecided_whatever_its_cases() {
        let mut noisy = results(&[(Conclusion::Holds, false)]);
        assert_eq!(noisy.undecided(), None);
        noisy.meta.noise = fixture::results_with_usual().meta.noise;
        let noise = noisy
            .meta
            .noise
            .as_mut()
            .expect("the fixture has a noise verdict");
        noise.verdict = crate::analyse::NoiseVerdict::Noisy;
        noise.reason = "median case sensitivity 1.3×".into();
        assert_eq!(
            noisy.undecided().as_deref(),
            Some("noisy run: median case sensitivity 1.3×")
        );
    }
}
