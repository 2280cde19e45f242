//! The state of measuring that lasts across cases: the schedule of slices,
//! the synchronisation and its clocks, the cache-flush buffer, signals.

use super::clock::{self, GlobalClock};
use super::observe::MAX_SLACK;
use super::Context;
use crate::settings::{CacheState, Settings, SyncChoice, SyncMode};

/// The state of measuring that lasts across cases: the run's schedule, the
/// synchronisation and its clocks, the cache-flush buffer.
///
/// The schedule: slices end at their planned offsets from the start, so a
/// slice that overran is made up by the next ones of its case; time spent
/// outside the slices (preparing, verifying, warming up, writing files) is
/// booked separately ([`Harness::rebase`]), so that no candidate's slice
/// pays for it.
pub struct Harness {
    pub(super) start: f64,
    pub(super) planned: f64,
    pub(super) sync: SyncMode,
    pub(super) clock: GlobalClock,
    pub(super) synced_at: f64,
    pub(super) resync_s: f64,
    pub(super) drift_s: f64,
    /// How far ahead of its announcement a roundtime chunk starts: a few
    /// broadcast times.
    pub(super) lead: f64,
    /// Written between observations for a cold cache.
    pub(super) flush: Vec<u8>,
    /// How long one flush takes; roundtime slots make room for it.
    pub(super) flush_s: f64,
    /// Set by SIGINT/SIGTERM on this process.
    pub(super) signalled: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Rank 0 was signalled and every rank has stopped measuring.
    pub stopped: bool,
    /// A timed call gave a wrong result and every rank has stopped measuring.
    pub wrong: bool,
    /// Seconds spent outside the slices (preparing, verifying, warming up,
    /// writing files) that moved the plan.
    pub outside_s: f64,
    /// What synchronising clocks took on this rank, and how often it ran.
    pub clock_sync_s: f64,
    pub clock_syncs: usize,
    /// What preparing candidates (buffers, sub-communicators) and verifying
    /// them took on this rank, over all cases.
    pub prepare_s: f64,
    pub verify_s: f64,
    /// On this rank: time in the slices (chunks, their agreements and the
    /// reduction of their observations), of it inside the timed calls, and
    /// how many calls; the rest is the harness's cost.
    pub measuring_s: f64,
    pub calling_s: f64,
    pub calls: usize,
    /// How long this rank waited for rank 0 at the start of the last case
    /// (rank 0 decides and writes files between cases).
    pub case_wait_s: f64,
    /// The machine state's calibration at the start of every round
    /// ([`super::calibration`]), in the order measured.
    pub calibrations: Vec<super::calibration::Calibration>,
}

impl Harness {
    /// Starts the run's clock and synchronises clocks for `roundtime`
    /// (`sync`: the settings' request resolved); collective.
    pub fn start(ctx: &Context, settings: &Settings, sync: SyncMode) -> Harness {
        let mut harness = Harness {
            start: mpi::time(),
            planned: 0.0,
            sync,
            clock: GlobalClock::IDENTITY,
            synced_at: 0.0,
            resync_s: settings.resync_s,
            drift_s: settings.drift_s,
            lead: 0.0,
            flush: match settings.cache {
                CacheState::Warm => Vec::new(),
                CacheState::Cold => vec![0u8; crate::host::last_level_cache_bytes() * 2],
            },
            flush_s: 0.0,
            signalled: std::sync::Arc::default(),
            stopped: false,
            wrong: false,
            outside_s: 0.0,
            clock_sync_s: 0.0,
            clock_syncs: 0,
            prepare_s: 0.0,
            verify_s: 0.0,
            measuring_s: 0.0,
            calling_s: 0.0,
            calls: 0,
            case_wait_s: 0.0,
            calibrations: Vec::new(),
        };
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // A second signal terminates at once, as if there were no handler.
            let flag = harness.signalled.clone();
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 1, flag.clone());
            let _ = signal_hook::flag::register(signal, flag);
        }
        if !harness.flush.is_empty() {
            let start = mpi::time();
            harness.flush_cache();
            harness.flush_s = mpi::time() - start;
        }
        if harness.sync == SyncMode::Roundtime {
            harness.synchronise(ctx);
        }
        harness
    }

    pub(super) fn synchronise(&mut self, ctx: &Context) {
        let start = mpi::time();
        self.clock = clock::synchronise(&ctx.control, 20, self.drift_s);
        self.synced_at = mpi::time();
        // A start must reach every rank before it passes.
        self.lead = (4.0 * broadcast_time(ctx)).max(20e-6);
        self.clock_sync_s += mpi::time() - start;
        self.clock_syncs += 1;
    }

    /// Gives up `roundtime` for `barrier` when a barrier takes longer than
    /// any slack clock-synchronised starts can wait for (ranks that are
    /// oversubscribed and busy-poll wake up milliseconds late, so every
    /// start would be late); says why. `noise_floor_s` is the same on
    /// every rank ([`super::barrier_floor`]), so every rank decides alike.
    /// Returns `chosen` turned barrier, with the reason and the warning.
    pub fn fall_back_if_too_slow(
        &mut self,
        chosen: &SyncChoice,
        noise_floor_s: f64,
    ) -> Option<SyncChoice> {
        (self.sync == SyncMode::Roundtime && noise_floor_s > MAX_SLACK).then(|| {
            self.sync = SyncMode::Barrier;
            let reason = format!("a barrier takes {:.1} ms here", noise_floor_s * 1e3);
            let warning = format!(
                "measuring with barrier, not roundtime: {reason} (oversubscribed or \
                 busy-polling ranks?), longer than clock-synchronised starts can wait for"
            );
            SyncChoice {
                mode: SyncMode::Barrier,
                reason,
                warning: Some(warning),
                ..chosen.clone()
            }
        })
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        mpi::time() - self.start
    }

    /// Starts the next slices from now when preparing, verifying and
    /// warming up (or writing files) took the run past its plan: that time
    /// is booked outside the slices, which keep their whole share of the
    /// budget. Returns how far the plan moved.
    pub fn rebase(&mut self) -> f64 {
        let behind = (self.elapsed() - self.planned).max(0.0);
        self.planned += behind;
        self.outside_s += behind;
        behind
    }

    /// Planned length of the run up to the end of the next slice, as an
    /// absolute time, after which the slice is booked.
    pub(super) fn book(&mut self, seconds: f64) -> f64 {
        self.planned += seconds;
        self.start + self.planned
    }

    /// Resynchronises the clocks when they are older than the bound;
    /// collective. Returns how long this rank waited for rank 0's word.
    pub(super) fn refresh(&mut self, ctx: &Context) -> f64 {
        let stale = u8::from(
            self.sync == SyncMode::Roundtime && mpi::time() - self.synced_at > self.resync_s,
        );
        let mut stale = [stale];
        let asked = mpi::time();
        ctx.control.broadcast(&mut stale);
        let waited = mpi::time() - asked;
        if stale[0] == 1 {
            self.synchronise(ctx);
        }
        waited
    }

    /// Whether SIGINT or SIGTERM reached this process.
    pub(super) fn signalled(&self) -> bool {
        self.signalled.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub(super) fn flush_cache(&mut self) {
        for (i, b) in self.flush.iter_mut().enumerate() {
            *b = b.wrapping_add(i as u8);
        }
        std::hint::black_box(&self.flush);
    }
}

/// The median time of a small broadcast of the control plane from rank 0,
/// maximum over ranks: what a start decision takes to arrive.
pub(super) fn broadcast_time(ctx: &Context) -> f64 {
    let control = &ctx.control;
    let mut max = [0.0; 21];
    for t in max.iter_mut() {
        let mut x = [0.0f64; 3];
        control.barrier();
        let start = mpi::time();
        control.broadcast(&mut x[..]);
        *t = mpi::time() - start;
    }
    control.max(&mut max);
    crate::stats::describe::median(&max)
}
