//! Settings: how to measure, the vocabulary every stage shares (here, so
//! that the command line, the input file and the plan can all name it).

use crate::meta::{Meta, SharedCpus};
use std::time::Duration;

/// The share of late starts above which a candidate's observations are
/// reported as unevenly discarded; the slack keeps below it.
pub const LATE_CAP: f64 = 0.05;

/// How long one candidate's slice of a round lasts by default: short
/// enough that a round sits inside one state of the machine (this VM
/// changed state within seconds, and a round of a 1 s budget cut into ten
/// spanned fast and slow states), long enough that the slice's agreement
/// and reduction stay a small share of it. 5 ms rather than 10: of 24
/// identical launches of inputs/quick.yaml at 300 ms (60 rounds) one ended
/// undecided, of 12 with 30 rounds four, for 0.3 % more wall time
/// (docs/statistics.md).
pub const DEFAULT_SLICE: Duration = Duration::from_millis(5);

/// The fewest rounds a budget is cut into by default: below 100 ms slices
/// shorter than [`DEFAULT_SLICE`], and rounds enough for the paired test
/// (`analyse` pairs from 20 rounds on). An exact 1.25× slowdown at 100 ms (2 bound ranks, 128
/// cases) was found in 125 with 20 rounds, 112 with 10; no A/A false
/// violation with either.
pub const MIN_DEFAULT_ROUNDS: usize = 20;

/// The fewest rounds of a case whose calls are long, by default: its
/// slices keep [`MIN_CALLS_PER_SLICE`] calls down to this many rounds.
pub const MIN_LONG_CALL_ROUNDS: usize = 10;

/// The most rounds by default: 1.5 s of budget; beyond, slices grow.
pub const MAX_DEFAULT_ROUNDS: usize = 300;

/// The rounds a budget is cut into when neither the command line nor the
/// input says: one per [`DEFAULT_SLICE`] of it, so that a longer budget
/// buys more rounds (and power), not longer ones.
pub fn default_rounds(budget: Duration) -> usize {
    let rounds = (budget.as_secs_f64() / DEFAULT_SLICE.as_secs_f64()).round() as usize;
    rounds.clamp(MIN_DEFAULT_ROUNDS, MAX_DEFAULT_ROUNDS)
}

/// By default a case's slices hold at least this many calls: a case whose
/// call is long gets fewer rounds (down to [`MIN_LONG_CALL_ROUNDS`]), not
/// a run many times its budget.
pub const MIN_CALLS_PER_SLICE: f64 = 10.0;

/// Disturbed rounds (every candidate far slower than usual) are measured
/// again, at most this share of a case's rounds more.
pub const REMEASURE_SHARE: f64 = 0.2;

/// How far a case's send and receive buffers move within their allocation
/// from one round to the next, at most (`measure`'s moving buffers): a
/// page's worth of cache lines, which every buffer's footprint counts.
pub const MAX_BUFFER_SHIFT_BYTES: usize = 4096;

/// `--timeout`'s default where every rank has a CPU of its own.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a call or a wait may last before it is a hang: `given`, else
/// [`DEFAULT_TIMEOUT`] times the square of the ranks per CPU on the most
/// crowded host (`shared`). Ranks that busy-poll on shared CPUs advance a
/// collective only when the ranks it waits for get a time slice, so each
/// step of it can take a slice per rank: MPICH 5's 1 MiB gather on 5 and
/// 6 ranks of 2 CPUs took over 10 s, which the watchdog called a hang.
pub fn timeout(given: Option<Duration>, shared: Option<&SharedCpus>) -> Duration {
    given.unwrap_or_else(|| {
        let crowding = shared.map_or(1, |s| s.ranks.div_ceil(s.cpus.max(1))) as u32;
        DEFAULT_TIMEOUT * crowding * crowding
    })
}

/// How to measure.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Time budget per candidate and case.
    pub budget: Duration,
    /// Rounds the budget is cut into (a case's: [`Settings::rounds_for`]).
    pub rounds: usize,
    /// Whether `rounds` is the budget's default ([`default_rounds`]) rather
    /// than asked for: then cases of long calls get fewer.
    pub rounds_by_budget: bool,
    pub seed: u64,
    /// Warm-up calls per candidate and case.
    pub warmup: usize,
    /// What the command line or the input asked for; measuring resolves
    /// `auto` once the ranks' placement is known ([`SyncRequest::resolve`]).
    pub sync: SyncRequest,
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

impl Settings {
    /// The rounds of a case whose one call takes `call_s` (0: not known):
    /// the rounds asked for; by default as many as leave each slice
    /// [`MIN_CALLS_PER_SLICE`] calls, at least [`MIN_LONG_CALL_ROUNDS`] and
    /// at most the budget's default.
    pub fn rounds_for(&self, call_s: f64) -> usize {
        if !self.rounds_by_budget || call_s <= 0.0 {
            return self.rounds;
        }
        let fit = self.budget.as_secs_f64() / (MIN_CALLS_PER_SLICE * call_s);
        (fit.floor() as usize)
            .max(MIN_LONG_CALL_ROUNDS)
            .min(self.rounds)
    }

    /// How many disturbed rounds a case of `rounds` rounds may measure
    /// again ([`REMEASURE_SHARE`] of them, rounded up).
    pub fn extra_rounds(rounds: usize) -> usize {
        (rounds as f64 * REMEASURE_SHARE).ceil() as usize
    }
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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncMode {
    /// MPI_Barrier before each observation; observation = max over ranks of the local duration.
    Barrier,
    /// Synchronised clocks, every observation starts at a common time; max end − min start.
    Roundtime,
}

impl SyncMode {
    pub fn name(self) -> &'static str {
        match self {
            SyncMode::Barrier => "barrier",
            SyncMode::Roundtime => "roundtime",
        }
    }
}

/// The synchronisation asked for: a mode, or `auto`, which chooses by
/// placement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SyncRequest {
    /// Roundtime when every rank has a CPU of its own, barrier when ranks share CPUs (there
    /// timed starts are late: ranks wait for each other's time slices).
    #[default]
    Auto,
    /// MPI_Barrier before each observation; observation = max over ranks of the local duration.
    Barrier,
    /// Synchronised clocks, every observation starts at a common time; max end − min start.
    Roundtime,
}

impl SyncRequest {
    pub fn name(self) -> &'static str {
        match self {
            SyncRequest::Auto => "auto",
            SyncRequest::Barrier => "barrier",
            SyncRequest::Roundtime => "roundtime",
        }
    }

    /// The mode to measure with, given where ranks share CPUs (`shared`:
    /// the most crowded set of CPUs, None when every rank has one of its
    /// own), why, and a warning when an explicit `roundtime` runs on
    /// shared CPUs. A function of its arguments alone, so that ranks that
    /// know the same placement decide alike.
    pub fn resolve(self, shared: Option<&SharedCpus>) -> SyncChoice {
        let (mode, reason) = match (self, shared) {
            (SyncRequest::Barrier, _) => (SyncMode::Barrier, String::new()),
            (SyncRequest::Roundtime, _) => (SyncMode::Roundtime, String::new()),
            (SyncRequest::Auto, Some(s)) => (SyncMode::Barrier, s.describe()),
            (SyncRequest::Auto, None) => (SyncMode::Roundtime, "no two ranks share a CPU".into()),
        };
        let warning = match (self, shared) {
            (SyncRequest::Roundtime, Some(s)) => Some(format!(
                "--sync roundtime although {}: ranks wait for each other's time slices, so many timed starts are late and lost (30–50 % seen, with a tenth of the rate); --sync auto measures with barrier here",
                s.describe()
            )),
            _ => None,
        };
        SyncChoice {
            asked: self,
            mode,
            reason,
            warning,
        }
    }
}

/// The synchronisation a run measures with: what was asked, what was
/// chosen and why (empty when it was asked for by name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyncChoice {
    pub asked: SyncRequest,
    pub mode: SyncMode,
    pub reason: String,
    /// For the report's warnings.
    pub warning: Option<String>,
}

impl SyncChoice {
    /// Records what was asked, chosen and why in `meta`.
    pub fn record(&self, meta: &mut Meta) {
        meta.sync = self.mode.name().into();
        meta.sync_asked = self.asked.name().into();
        meta.sync_reason = self.reason.clone();
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> SharedCpus {
        SharedCpus {
            host: "vm".into(),
            ranks: 3,
            cpus: 2,
        }
    }

    #[test]
    fn default_rounds_grow_with_the_budget_between_their_bounds() {
        let rounds = |ms| default_rounds(Duration::from_millis(ms));
        assert_eq!(
            [10, 100, 300, 1000, 3000, 10_000].map(rounds),
            [20, 20, 60, 200, 300, 300]
        );
    }

    #[test]
    fn long_calls_get_fewer_rounds_by_default_and_the_rounds_asked_for_otherwise() {
        let settings = |rounds_by_budget| Settings {
            budget: Duration::from_secs(1),
            rounds: 100,
            rounds_by_budget,
            seed: 1,
            warmup: 3,
            sync: SyncRequest::Auto,
            cache: CacheState::Warm,
            resync_s: 1.0,
            drift_s: 0.0,
            universal: UniversalMode::Apart,
            check_share: 0.0,
        };
        let by_budget = settings(true);
        // Unknown, short, 2 ms (50 a second: 5 a slice of 100), 1 s.
        assert_eq!(
            [0.0, 1e-6, 2e-3, 1.0].map(|c| by_budget.rounds_for(c)),
            [100, 100, 50, 10]
        );
        assert_eq!(settings(false).rounds_for(2e-3), 100);
        assert_eq!([1, 10, 11, 100].map(Settings::extra_rounds), [1, 2, 3, 20]);
    }

    #[test]
    fn the_timeout_grows_with_the_ranks_a_cpu_unless_given() {
        let secs = |given: Option<u64>, shared: Option<SharedCpus>| {
            timeout(given.map(Duration::from_secs), shared.as_ref()).as_secs()
        };
        assert_eq!(secs(None, None), 10);
        // 3 ranks on 2 CPUs: 2 a CPU at most; 6 on 2: 3 a CPU.
        assert_eq!(secs(None, Some(shared())), 40);
        let crowded = SharedCpus {
            ranks: 6,
            ..shared()
        };
        assert_eq!(secs(None, Some(crowded.clone())), 90);
        assert_eq!(secs(Some(3), Some(crowded)), 3, "as given");
    }

    #[test]
    fn auto_chooses_barrier_on_shared_cpus_and_roundtime_otherwise() {
        let crowded = SyncRequest::Auto.resolve(Some(&shared()));
        assert_eq!(crowded.mode, SyncMode::Barrier);
        assert_eq!(crowded.reason, "3 ranks share 2 CPUs on host vm");
        assert_eq!(crowded.warning, None);
        let spread = SyncRequest::Auto.resolve(None);
        assert_eq!(spread.mode, SyncMode::Roundtime);
        assert_eq!(spread.reason, "no two ranks share a CPU");
        assert_eq!(spread.warning, None);
    }

    #[test]
    fn a_mode_asked_for_is_kept_and_roundtime_on_shared_cpus_warned_of() {
        let asked = SyncRequest::Roundtime.resolve(Some(&shared()));
        assert_eq!(
            (asked.mode, asked.reason.as_str()),
            (SyncMode::Roundtime, "")
        );
        let warning = asked.warning.expect("a warning");
        assert!(
            warning.starts_with("--sync roundtime although 3 ranks share 2 CPUs on host vm:"),
            "{warning}"
        );
        assert_eq!(SyncRequest::Roundtime.resolve(None).warning, None);
        for shared in [Some(shared()), None] {
            let barrier = SyncRequest::Barrier.resolve(shared.as_ref());
            assert_eq!(barrier.mode, SyncMode::Barrier);
            assert_eq!((barrier.reason.as_str(), barrier.warning), ("", None));
        }
    }

    #[test]
    fn the_choice_is_recorded_and_told() {
        let mut meta = Meta::default();
        SyncRequest::Auto.resolve(Some(&shared())).record(&mut meta);
        assert_eq!(
            (meta.sync.as_str(), meta.sync_asked.as_str()),
            ("barrier", "auto")
        );
        assert_eq!(
            meta.sync_text(),
            "auto: barrier, 3 ranks share 2 CPUs on host vm"
        );
        SyncRequest::Roundtime.resolve(None).record(&mut meta);
        assert_eq!(meta.sync_text(), "roundtime");
        // Asked-for roundtime that gave way to barrier, and a run from
        // before `auto`.
        meta.sync = "barrier".into();
        meta.sync_reason = "a barrier takes 12.0 ms here".into();
        assert_eq!(
            meta.sync_text(),
            "barrier, not roundtime: a barrier takes 12.0 ms here"
        );
        let old = Meta {
            sync: "roundtime".into(),
            ..Meta::default()
        };
        assert_eq!(old.sync_text(), "roundtime");
    }
}
