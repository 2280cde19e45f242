//! How to measure: the settings every stage shares (a leaf module, so that
//! the command line, the input file and the plan can all name them).

use std::time::Duration;

/// How to measure.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Time budget per candidate and case.
    pub budget: Duration,
    /// Rounds the budget is cut into.
    pub rounds: usize,
    pub seed: u64,
    /// Warm-up calls per candidate and case.
    pub warmup: usize,
    pub sync: SyncMode,
    pub cache: CacheState,
    /// Resynchronise clocks older than this (`roundtime`).
    pub resync_s: f64,
    /// Fit a linear drift from two synchronisations this far apart (0: offsets only).
    pub drift_s: f64,
    pub universal: UniversalMode,
    /// The share of the time in timed calls that checking sampled outputs
    /// between them may cost (0: only a chunk's last call and one more).
    pub check_share: f64,
}

/// How the universal guidelines get the sizes they compare.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum UniversalMode {
    /// From the cases of the two sizes, measured at different times: reported, not gated on.
    Apart,
    /// The library's call at the next smaller size of the series also runs in every case's
    /// rounds: monotony and split-robustness against it count for --fail-on.
    Shared,
}

/// How observations are synchronised.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncMode {
    /// MPI_Barrier before each observation; observation = max over ranks of the local duration.
    Barrier,
    /// Synchronised clocks, every observation starts at a common time; max end − min start.
    Roundtime,
}

/// Whether pgcheck binds ranks that the launcher left unbound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum PinMode {
    /// Each unbound rank to a core of its own (distinct physical cores first, spread over
    /// sockets); ranks the launcher bound stay as they are.
    #[default]
    Auto,
    /// Leave placement to the launcher and the scheduler.
    None,
}

impl PinMode {
    pub fn name(self) -> &'static str {
        match self {
            PinMode::Auto => "auto",
            PinMode::None => "none",
        }
    }
}

/// The cache state each observation starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CacheState {
    /// Buffers stay in cache between observations.
    Warm,
    /// A buffer twice the last-level cache is overwritten before each observation.
    Cold,
}

/// Which forms of the library's own call (`default`) a case times; both
/// the usual form and the in-place one (`MPI_IN_PLACE`) are always
/// verified. The input's `in_place: false | true | both`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimedForms {
    /// `default` is the usual form (separate send and receive buffers).
    #[default]
    Usual,
    /// `default` is the in-place form.
    InPlace,
    /// `default` is the usual form, and the in-place form is timed beside
    /// it as the competitor `default_in_place`.
    Both,
}
