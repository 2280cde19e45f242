//! The watchdog: no call of the library under test and no wait for the
//! other ranks lasts forever, and a rank that dies inside the library says
//! where.
//!
//! The measuring thread says what it is doing ([`Phase`], the case, the
//! candidate, the call) with a few relaxed stores between calls, never
//! inside a timed call. A thread of its own wakes every few milliseconds;
//! once a call or a wait has outlived its bound, it prints what this rank
//! was doing (the command that started it says how, through [`OnEnd`]:
//! on standard error and in `results.json`), and after a short grace (so
//! that the other ranks' lines are printed too) the job ends through
//! MPI_Abort with the status of a [`Failure::Hang`]. A rank that exits,
//! aborts or crashes while MPI runs ends the job as a
//! [`Failure::LostRank`] the same way. MPI is not called from the
//! watchdog's thread but to abort, which is what a process that can no
//! longer trust its main thread has left.
//!
//! The watchdog knows nothing of the stages above it: it sits under the
//! control plane, whose waits it bounds, and the hook is where a command
//! reports, records and chooses the status.

use mpi::traits::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// What a rank is doing, as the watchdog reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Phase {
    /// Nothing watched: reading input, analysing, writing files.
    Idle = 0,
    /// Preparing a case's candidates (which may be collective).
    Preparing = 1,
    /// Verifying a candidate's result.
    Verifying = 2,
    /// A candidate's warm-up or timed calls.
    Calling = 3,
    /// Waiting for the other ranks in pgcheck's own control plane.
    Waiting = 4,
}

impl Phase {
    fn of(code: u8) -> Phase {
        match code {
            1 => Phase::Preparing,
            2 => Phase::Verifying,
            3 => Phase::Calling,
            4 => Phase::Waiting,
            _ => Phase::Idle,
        }
    }
}

/// Why the watchdog ends the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// A call or a wait outlived its bound.
    Hang,
    /// A rank exited or died while MPI ran.
    LostRank,
}

impl Failure {
    /// As `results.json` and the messages name it.
    pub fn label(self) -> &'static str {
        match self {
            Failure::Hang => "hang",
            Failure::LostRank => "lost rank",
        }
    }
}

/// What the command that starts the watchdog does when it ends the job.
pub struct OnEnd {
    /// The exit status every rank aborts with.
    pub status: fn(Failure) -> i32,
    /// Says why (rank, failure, what it was doing) and records it; called
    /// once, on the rank that ends the job, before the abort.
    pub report: Box<Report>,
}

/// How a command says why the job ends: rank, failure, what it was doing.
pub type Report = dyn Fn(usize, Failure, &str) + Send + Sync;

/// Where the watchdog reports; set once when it starts.
struct Armed {
    rank: usize,
    on_end: OnEnd,
}

static ARMED: OnceLock<Armed> = OnceLock::new();
/// The CPU-time clock of the measuring (main) thread.
static MAIN_CPU_CLOCK: OnceLock<libc::clockid_t> = OnceLock::new();
static EPOCH: OnceLock<Instant> = OnceLock::new();
/// Seconds since [`EPOCH`] after which the current phase is a hang; 0: none.
static DEADLINE: AtomicU64 = AtomicU64::new(0);
/// The run's bound for one call or one wait, in seconds (f64 bits), and
/// the case's, which also allows for its longest call.
static RUN_BOUND: AtomicU64 = AtomicU64::new(0);
static BOUND: AtomicU64 = AtomicU64::new(0);
static PHASE: AtomicU8 = AtomicU8::new(Phase::Idle as u8);
/// The candidate's call under way, counted from 1 over its case.
static CALL: AtomicU64 = AtomicU64::new(0);
/// `case` and `candidate` of the phase.
static WHERE: Mutex<(String, String)> = Mutex::new((String::new(), String::new()));
/// Set by whoever ends the job first, so that nothing reports twice.
static ENDING: AtomicBool = AtomicBool::new(false);

fn seconds() -> f64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_secs_f64()
}

fn bound() -> f64 {
    f64::from_bits(BOUND.load(Relaxed))
}

/// Starts watching this rank: a call or a wait longer than `bound_s` (a
/// call: beyond its expected time) is a hang; `on_end` reports a failure.
/// Once per process.
pub fn start(rank: usize, bound_s: f64, on_end: OnEnd) {
    RUN_BOUND.store(bound_s.to_bits(), Relaxed);
    BOUND.store(bound_s.to_bits(), Relaxed);
    if ARMED.set(Armed { rank, on_end }).is_err() {
        return;
    }
    seconds();
    let mut clock: libc::clockid_t = 0;
    // SAFETY: the calling thread's own handle, and a clock id to fill in.
    if unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) } == 0 {
        let _ = MAIN_CPU_CLOCK.set(clock);
    }
    // SAFETY: the handlers are plain functions that end the process.
    unsafe {
        libc::atexit(on_exit);
        for signal in [
            libc::SIGABRT,
            libc::SIGSEGV,
            libc::SIGBUS,
            libc::SIGFPE,
            libc::SIGILL,
        ] {
            libc::signal(signal, on_fatal_signal as *const () as libc::sighandler_t);
        }
    }
    std::thread::Builder::new()
        .name("pgcheck-watchdog".into())
        .spawn(watch)
        .expect("the watchdog thread starts");
}

/// Raises the run's bound to `bound_s` (never lowers it), once what the
/// ranks run on is known.
pub fn widen(bound_s: f64) {
    let run = f64::from_bits(RUN_BOUND.load(Relaxed)).max(bound_s);
    RUN_BOUND.store(run.to_bits(), Relaxed);
    let case = f64::from_bits(BOUND.load(Relaxed)).max(run);
    BOUND.store(case.to_bits(), Relaxed);
}

/// A case whose longest call took `call_s`: a call is a hang once it
/// outlives the run's bound and ten times that.
pub fn expect_calls_of(call_s: f64) {
    let run = f64::from_bits(RUN_BOUND.load(Relaxed));
    BOUND.store(run.max(10.0 * call_s).to_bits(), Relaxed);
}

/// The case and candidate that the next phases concern.
pub fn at(case: &str, candidate: &str) {
    if let Ok(mut w) = WHERE.lock() {
        w.0.clear();
        w.0.push_str(case);
        w.1.clear();
        w.1.push_str(candidate);
    }
}

/// Enters `phase`, expected to take `expected_s`: a hang once that and the
/// bound have passed.
pub fn enter(phase: Phase, expected_s: f64) {
    let deadline = match phase {
        Phase::Idle => 0.0,
        _ => seconds() + expected_s + bound(),
    };
    DEADLINE.store(deadline.to_bits(), Relaxed);
    PHASE.store(phase as u8, Relaxed);
}

/// The candidate's call `n` (from 1) begins.
#[inline]
pub fn call(n: u64) {
    CALL.store(n, Relaxed);
}

/// A wait for the other ranks, until the guard is dropped: twice the
/// bound, so that a rank stuck in a call speaks first.
pub fn waiting() -> Waiting {
    let saved = (PHASE.load(Relaxed), DEADLINE.load(Relaxed));
    if ARMED.get().is_some() {
        DEADLINE.store((seconds() + 2.0 * bound()).to_bits(), Relaxed);
        PHASE.store(Phase::Waiting as u8, Relaxed);
    }
    Waiting { saved }
}

/// Restores the phase a wait interrupted.
pub struct Waiting {
    saved: (u8, u64),
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if ARMED.get().is_some() {
            let (phase, deadline) = self.saved;
            // The interrupted phase's clock restarts: the wait was not its time.
            let deadline = match f64::from_bits(deadline) {
                d if d > 0.0 => d.max(seconds() + bound()),
                d => d,
            };
            DEADLINE.store(deadline.to_bits(), Relaxed);
            PHASE.store(phase, Relaxed);
        }
    }
}

/// Marks the job as ending by pgcheck's own decision (a panic's abort), so
/// that the exit it causes is not reported as a lost rank.
pub fn ending() {
    ENDING.store(true, Relaxed);
}

/// What this rank was doing, in words.
fn doing(phase: Phase) -> String {
    let (case, candidate) = WHERE
        .try_lock()
        .map(|w| w.clone())
        .unwrap_or_else(|_| ("a case".into(), "a candidate".into()));
    let call = CALL.load(Relaxed);
    match phase {
        Phase::Idle => "outside any case".into(),
        Phase::Preparing => format!("preparing the candidates of {case}"),
        Phase::Verifying => format!("verifying `{candidate}` in {case}"),
        Phase::Calling => format!("call {call} of `{candidate}` in {case}"),
        Phase::Waiting => {
            format!("waiting for the other ranks after call {call} of `{candidate}` in {case}")
        }
    }
}

/// The watchdog's thread: wakes every 10 ms, and ends the job on a hang.
fn watch() {
    // The main thread's CPU time over about the last second: a rank stuck
    // in a call (blocked, asleep) uses none, while the ranks of the same
    // collective that wait for it busy-poll.
    let mut cpu: std::collections::VecDeque<(f64, f64)> = std::collections::VecDeque::new();
    loop {
        std::thread::sleep(Duration::from_millis(10));
        let now = seconds();
        if let Some(used) = main_cpu_s() {
            cpu.push_back((now, used));
            while cpu.len() > 2 && now - cpu[1].0 >= CPU_WINDOW_S {
                cpu.pop_front();
            }
        }
        let deadline = f64::from_bits(DEADLINE.load(Relaxed));
        if deadline <= 0.0 || now < deadline || ENDING.load(Relaxed) {
            continue;
        }
        let phase = Phase::of(PHASE.load(Relaxed));
        let what = match phase {
            Phase::Waiting => format!(
                "has waited {:.1} s for the other ranks (bound {:.1} s): {}",
                2.0 * bound(),
                2.0 * bound(),
                doing(phase)
            ),
            _ => format!(
                "has not returned within {:.1} s of its expected end: {}{}",
                bound(),
                doing(phase),
                cpu_use(&cpu),
            ),
        };
        end(Failure::Hang, &what);
    }
}

/// How far back the CPU share of a hung call looks.
const CPU_WINDOW_S: f64 = 1.0;

/// Below this share of a CPU a hung call is stuck on this rank.
const STUCK_SHARE: f64 = 0.1;

/// The measuring thread's CPU time, if its clock can be read.
fn main_cpu_s() -> Option<f64> {
    let clock = *MAIN_CPU_CLOCK.get()?;
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid clock id and a timespec to fill in.
    let read = unsafe { libc::clock_gettime(clock, &mut t) } == 0;
    read.then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

/// What the measuring thread's CPU use over `samples` (wall and CPU
/// seconds, oldest first) says of a hung call: stuck on this rank, or
/// busy-polling for another.
fn cpu_use(samples: &std::collections::VecDeque<(f64, f64)>) -> String {
    let (Some(first), Some(last)) = (samples.front(), samples.back()) else {
        return String::new();
    };
    let wall = last.0 - first.0;
    if wall < 0.5 * CPU_WINDOW_S {
        return String::new();
    }
    let share = ((last.1 - first.1) / wall).max(0.0);
    let percent = 100.0 * share;
    match share < STUCK_SHARE {
        true => format!(
            "; it used {percent:.0} % of a CPU in the last {wall:.1} s: stuck in the call on this rank (blocked or asleep), the rank that never returned"
        ),
        false => format!(
            "; it used {percent:.0} % of a CPU in the last {wall:.1} s, as a rank that busy-polls for another does"
        ),
    }
}

/// Ends the job: the command's hook says why and records it, then every
/// rank aborts with the failure's status after a grace that lets the other
/// ranks say what they were doing.
fn end(failure: Failure, what: &str) {
    if ENDING.swap(true, Relaxed) {
        return;
    }
    let Some(armed) = ARMED.get() else {
        return;
    };
    (armed.on_end.report)(armed.rank, failure, what);
    if failure == Failure::Hang {
        std::thread::sleep(Duration::from_secs(1));
    }
    mpi::topology::SimpleCommunicator::world().abort((armed.on_end.status)(failure));
}

/// At exit: a rank that leaves while MPI runs, and pgcheck did not decide
/// to end, was lost inside the library or its runtime.
extern "C" fn on_exit() {
    if ENDING.load(Relaxed) || !mpi_running() {
        return;
    }
    let phase = Phase::of(PHASE.load(Relaxed));
    end(
        Failure::LostRank,
        &format!("exited during {}", doing(phase)),
    );
}

/// On a fatal signal inside the library: the same as an exit, then the
/// process ends with a lost rank's status if the abort did not end it. What
/// `end` does is not async-signal-safe (it formats, writes a file, calls
/// MPI_Abort); the process is lost either way, and a word on where it died
/// is worth the risk of that word not coming.
extern "C" fn on_fatal_signal(signal: libc::c_int) {
    if !ENDING.load(Relaxed) && mpi_running() {
        let phase = Phase::of(PHASE.load(Relaxed));
        end(
            Failure::LostRank,
            &format!("died of signal {signal} during {}", doing(phase)),
        );
    }
    let status = ARMED
        .get()
        .map_or(1, |armed| (armed.on_end.status)(Failure::LostRank));
    // SAFETY: ends this process at once.
    unsafe { libc::_exit(status) }
}

/// Whether MPI is initialised and not yet finalised.
fn mpi_running() -> bool {
    mpi::environment::is_initialized() && !mpi::environment::is_finalized()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_use_tells_a_stuck_rank_from_one_that_polls() {
        let samples = |cpu_per_s: f64| -> std::collections::VecDeque<(f64, f64)> {
            (0..=100)
                .map(|i| (f64::from(i) * 0.01, f64::from(i) * 0.01 * cpu_per_s))
                .collect()
        };
        assert!(
            cpu_use(&samples(0.02)).ends_with(
                "it used 2 % of a CPU in the last 1.0 s: stuck in the call on this rank (blocked or asleep), the rank that never returned"
            ),
            "{}",
            cpu_use(&samples(0.02))
        );
        assert!(cpu_use(&samples(0.97))
            .contains("97 % of a CPU in the last 1.0 s, as a rank that busy-polls"));
        // Too short a window says nothing.
        let short: std::collections::VecDeque<(f64, f64)> = [(0.0, 0.0), (0.2, 0.0)].into();
        assert_eq!(cpu_use(&short), "");
        assert_eq!(cpu_use(&Default::default()), "");
    }
}
