//! Exit statuses, identical on every rank.

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
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}
