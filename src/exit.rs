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
