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
    /// A candidate failed verification (`pgcheck verify`).
    Verification = 3,
    /// An MPI, I/O or internal error.
    Internal = 4,
    /// Interrupted by a signal; the files hold what was measured.
    Interrupted = 5,
}

impl Exit {
    pub fn code(self) -> i32 {
        self as i32
    }
}
