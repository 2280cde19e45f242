//! Exit statuses, identical on every rank, and the gate that chooses one
//! from a finished analysis.

use crate::analyse::{Conclusion, Results};
use crate::cli::FailOn;

/// Why pgcheck ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Nothing at or above `--fail-on` was violated.
    Pass = 0,
    /// A guideline violation at or above `--fail-on`.
    Violation = 1,
    /// A usage or input error, found before measuring.
    Input = 2,
    /// A candidate, the library's own call included, failed verification.
    Verification = 3,
    /// An MPI, I/O or internal error.
    Internal = 4,
    /// Interrupted by a signal; the files hold what was measured.
    Interrupted = 5,
    /// A case has no verdict: the library's own call was not measured
    /// (skipped by --max-memory, every observation invalid).
    Unmeasured = 6,
    /// A call of the library, or a wait for the other ranks, outlived its
    /// bound (`--timeout`); the watchdog ended the job.
    Hang = 7,
    /// A rank exited, aborted or crashed while MPI ran.
    LostRank = 8,
}

impl Exit {
    const ALL: [Exit; 9] = [
        Exit::Pass,
        Exit::Violation,
        Exit::Input,
        Exit::Verification,
        Exit::Internal,
        Exit::Interrupted,
        Exit::Unmeasured,
        Exit::Hang,
        Exit::LostRank,
    ];

    pub fn code(self) -> i32 {
        self as i32
    }

    /// The status of `code` (as another rank sent it); unknown codes are
    /// internal errors.
    pub fn from_code(code: i32) -> Exit {
        Exit::ALL
            .into_iter()
            .find(|e| e.code() == code)
            .unwrap_or(Exit::Internal)
    }
}

/// The exit status of a finished analysis: a wrong result first, then a
/// violation or regression the gate fails on, then a case without verdict.
pub fn gate(results: &Results, fail_on: Option<FailOn>) -> Exit {
    let wrong = results
        .checks
        .iter()
        .any(|c| c.candidates.iter().any(|c| c.outcome.is_wrong()));
    let regressions = results
        .baseline
        .as_ref()
        .map_or(0, |b| b.regressions().count());
    let fails = |level: FailOn| {
        results.worst() >= level.severity()
            || (level == FailOn::Inconclusive
                && results
                    .checks
                    .iter()
                    .any(|c| c.conclusion == Conclusion::Inconclusive))
    };
    let unmeasured = results
        .checks
        .iter()
        .any(|c| c.conclusion == Conclusion::Unmeasured);
    match fail_on {
        _ if wrong => Exit::Verification,
        _ if regressions > 0 => Exit::Violation,
        Some(level) if fails(level) => Exit::Violation,
        _ if unmeasured && results.complete => Exit::Unmeasured,
        _ => Exit::Pass,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{Conclusion, Severity, Verdict};
    use crate::collective::Collective;
    use crate::meta::Meta;
    use crate::report::fixture;

    /// A case whose only competitor is `slowdown` times faster than
    /// `default`, with the fixture's significance rule (p = 1e-9 makes it
    /// significant above the margin); its conclusion is set as given.
    fn case(size_bytes: u64, slowdown: f64, conclusion: Conclusion) -> Verdict {
        let competitors = [("competitor", 10.0 / slowdown, 1e-9)];
        let mut verdict = fixture::check(
            Collective::Allreduce,
            size_bytes,
            0,
            10.0,
            &competitors,
            vec![],
        );
        verdict.conclusion = conclusion;
        verdict
    }

    fn holds(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Holds)
    }

    /// Violated with severity medium-high (2×).
    fn violated(size_bytes: u64) -> Verdict {
        let verdict = case(size_bytes, 2.0, Conclusion::Violated);
        assert_eq!(verdict.severity, Severity::MediumHigh);
        verdict
    }

    fn inconclusive(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Inconclusive)
    }

    fn unmeasured(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Unmeasured)
    }

    /// A case whose competitor failed verification.
    fn wrong(size_bytes: u64) -> Verdict {
        let mut verdict = holds(size_bytes);
        verdict.candidates.push(fixture::excluded(
            "allreduce_as_reduce_bcast",
            "wrong",
            "rank 1: element 0 is 1, expected 2",
        ));
        verdict
    }

    fn results(checks: Vec<Verdict>) -> Results {
        Results {
            meta: Meta::default(),
            complete: true,
            checks,
            guidelines: Default::default(),
            baseline: None,
            failure: None,
        }
    }

    /// `results` with a baseline comparison that found a regression.
    fn regressed(mut results: Results) -> Results {
        let baseline = fixture::results().baseline.expect("the fixture has one");
        assert_eq!(baseline.regressions().count(), 1);
        results.baseline = Some(baseline);
        results
    }

    const LEVELS: [FailOn; 6] = [
        FailOn::Inconclusive,
        FailOn::Low,
        FailOn::Medium,
        FailOn::MediumHigh,
        FailOn::High,
        FailOn::VeryHigh,
    ];

    fn every_fail_on() -> impl Iterator<Item = Option<FailOn>> {
        std::iter::once(None).chain(LEVELS.into_iter().map(Some))
    }

    #[test]
    fn a_wrong_result_comes_before_everything() {
        let all = regressed(results(vec![
            wrong(8),
            violated(16),
            inconclusive(32),
            unmeasured(64),
        ]));
        for fail_on in every_fail_on() {
            assert_eq!(gate(&all, fail_on), Exit::Verification, "{fail_on:?}");
        }
    }

    #[test]
    fn a_regression_fails_at_every_level_and_before_an_unmeasured_case() {
        let all = regressed(results(vec![holds(8), unmeasured(16)]));
        for fail_on in every_fail_on() {
            assert_eq!(gate(&all, fail_on), Exit::Violation, "{fail_on:?}");
        }
    }

    #[test]
    fn a_violation_fails_only_at_or_below_its_severity() {
        let one = results(vec![holds(8), violated(16)]);
        assert_eq!(gate(&one, None), Exit::Pass);
        for (level, exit) in LEVELS.into_iter().zip([
            Exit::Violation,
            Exit::Violation,
            Exit::Violation,
            Exit::Violation,
            Exit::Pass,
            Exit::Pass,
        ]) {
            assert_eq!(gate(&one, Some(level)), exit, "{level:?}");
        }
    }

    #[test]
    fn a_violation_the_gate_fails_on_comes_before_an_unmeasured_case() {
        let both = results(vec![violated(8), unmeasured(16)]);
        assert_eq!(gate(&both, Some(FailOn::Low)), Exit::Violation);
        assert_eq!(gate(&both, Some(FailOn::High)), Exit::Unmeasured);
        assert_eq!(gate(&both, None), Exit::Unmeasured);
    }

    #[test]
    fn inconclusive_fails_only_with_fail_on_inconclusive() {
        let one = results(vec![holds(8), inconclusive(16)]);
        for fail_on in every_fail_on() {
            let exit = if fail_on == Some(FailOn::Inconclusive) {
                Exit::Violation
            } else {
                Exit::Pass
            };
            assert_eq!(gate(&one, fail_on), exit, "{fail_on:?}");
        }
    }

    #[test]
    fn an_unmeasured_case_fails_a_complete_run_only() {
        let mut one = results(vec![holds(8), unmeasured(16)]);
        assert_eq!(gate(&one, None), Exit::Unmeasured);
        assert_eq!(gate(&one, Some(FailOn::Inconclusive)), Exit::Unmeasured);
        // An interrupted run has cases it never reached: its status is
        // the interruption's, not the gate's.
        one.complete = false;
        assert_eq!(gate(&one, None), Exit::Pass);
    }

    #[test]
    fn a_run_that_holds_passes_at_every_level() {
        let all = results(vec![holds(8), holds(16)]);
        for fail_on in every_fail_on() {
            assert_eq!(gate(&all, fail_on), Exit::Pass, "{fail_on:?}");
        }
    }

    #[test]
    fn a_universal_guideline_from_shared_rounds_counts_for_the_gate() {
        let mut one = results(vec![holds(8), holds(16)]);
        let mut finding = fixture::results().guidelines.monotony[0].clone();
        assert_eq!(finding.severity, Severity::MediumHigh);
        finding.shared_rounds = false;
        one.guidelines.monotony = vec![finding.clone()];
        assert_eq!(gate(&one, Some(FailOn::Low)), Exit::Pass, "measured apart");
        finding.shared_rounds = true;
        one.guidelines.monotony = vec![finding];
        assert_eq!(gate(&one, Some(FailOn::MediumHigh)), Exit::Violation);
        assert_eq!(gate(&one, Some(FailOn::High)), Exit::Pass);
    }

    #[test]
    fn codes_go_and_come_back() {
        for exit in Exit::ALL {
            assert_eq!(Exit::from_code(exit.code()), exit);
        }
        assert_eq!(Exit::from_code(9), Exit::Internal);
        assert_eq!(
            Exit::ALL.map(Exit::code),
            [0, 1, 2, 3, 4, 5, 6, 7, 8],
            "the statuses the README documents"
        );
    }
}
