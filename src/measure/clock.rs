//! Global time: clocks synchronised to rank 0 with a hierarchical algorithm
//! (O(log p) rounds of ping-pong exchanges, the offset taken from the
//! exchange with the smallest round-trip), optionally with a linear drift
//! model fitted from two such synchronisations.

use crate::control::Control;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

const TAG: i32 = 4242;

/// A process's view of rank 0's clock: `global = local + offset + drift · (local − base)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GlobalClock {
    pub offset: f64,
    pub drift: f64,
    /// Local time of the synchronisation (the drift's origin).
    pub base: f64,
}

impl GlobalClock {
    /// Rank 0's own clock.
    pub const IDENTITY: GlobalClock = GlobalClock {
        offset: 0.0,
        drift: 0.0,
        base: 0.0,
    };

    /// Global time of a local time.
    pub fn global(&self, local: f64) -> f64 {
        local + self.offset + self.drift * (local - self.base)
    }

    /// Global time now.
    pub fn now(&self) -> f64 {
        self.global(mpi::time())
    }

    /// Local time of a global time.
    pub fn local(&self, global: f64) -> f64 {
        // Inverse of `global`; drift is tiny, so one division is exact enough.
        (global - self.offset + self.drift * self.base) / (1.0 + self.drift)
    }
}

/// The offset of the reference's clock to ours (`now`), measured with
/// `exchanges` ping-pongs; the reference answers with its global time.
/// Returns reference − ours from the exchange with the smallest round-trip.
fn ping_pong(
    comm: &SimpleCommunicator,
    reference: i32,
    exchanges: usize,
    now: impl Fn() -> f64,
) -> f64 {
    let peer = comm.process_at_rank(reference);
    best_offset(exchanges, now, |sent| {
        peer.send_with_tag(&sent, TAG);
        peer.receive_with_tag::<f64>(TAG).0
    })
}

/// Reference − ours from `exchanges` exchanges, each `exchange(sent)`
/// returning the reference's time for ours `sent`: that of the exchange
/// with the smallest round-trip, read at its midpoint.
fn best_offset(
    exchanges: usize,
    now: impl Fn() -> f64,
    mut exchange: impl FnMut(f64) -> f64,
) -> f64 {
    let mut best_rtt = f64::INFINITY;
    let mut best_offset = 0.0;
    for _ in 0..exchanges {
        let sent = now();
        let remote = exchange(sent);
        let received = now();
        let rtt = received - sent;
        if rtt < best_rtt {
            best_rtt = rtt;
            best_offset = remote - (sent + received) / 2.0;
        }
    }
    best_offset
}

/// The clock of two synchronisations: the second's offset, and the drift
/// that carried the first's offset to it.
fn with_drift(first: GlobalClock, second: GlobalClock) -> GlobalClock {
    GlobalClock {
        offset: second.offset,
        drift: (second.offset - first.offset) / (second.base - first.base),
        base: second.base,
    }
}

/// Answers `exchanges` ping-pongs of `client` with this process's global time.
fn answer(comm: &SimpleCommunicator, client: i32, clock: &GlobalClock, exchanges: usize) {
    let peer = comm.process_at_rank(client);
    for _ in 0..exchanges {
        let (_, _) = peer.receive_with_tag::<f64>(TAG);
        peer.send_with_tag(&clock.now(), TAG);
    }
}

/// Offsets of every process to rank 0: in round k, the processes
/// 2^k ≤ r < 2^(k+1) synchronise with r − 2^k, which is already
/// synchronised, so the offsets compose along a binomial tree.
fn offsets(comm: &SimpleCommunicator, exchanges: usize) -> GlobalClock {
    let rank = comm.rank() as usize;
    let size = comm.size() as usize;
    let base = mpi::time();
    let mut clock = if rank == 0 {
        GlobalClock {
            base,
            ..GlobalClock::IDENTITY
        }
    } else {
        GlobalClock::IDENTITY
    };
    let mut step = 1;
    while step < size {
        if rank >= step && rank < 2 * step {
            clock = GlobalClock {
                offset: ping_pong(comm, (rank - step) as i32, exchanges, mpi::time),
                drift: 0.0,
                base,
            };
        } else if rank < step && rank + step < size {
            answer(comm, (rank + step) as i32, &clock, exchanges);
        }
        step *= 2;
    }
    clock
}

/// Synchronises the clocks of `comm` to rank 0; collective. With a drift
/// interval, synchronises twice that far apart and fits the linear drift.
pub fn synchronise(control: &Control, exchanges: usize, drift_interval: f64) -> GlobalClock {
    let _wait = crate::watchdog::waiting();
    let comm = control.comm();
    let first = offsets(comm, exchanges);
    if drift_interval <= 0.0 {
        control.barrier();
        return first;
    }
    let until = mpi::time() + drift_interval;
    while mpi::time() < until {
        std::hint::spin_loop();
    }
    let second = offsets(comm, exchanges);
    control.barrier();
    with_drift(first, second)
}

/// Rank 0's measurement of every rank's remaining offset (their global time
/// minus rank 0's), by direct ping-pong; collective, result on rank 0.
/// How well synchronisation works here: every rank's offset from rank 0
/// right after synchronising and after a wait (`pgcheck clocks`).
pub struct Quality {
    /// How long synchronising took, in seconds.
    pub sync_s: f64,
    pub wait_s: f64,
    /// Each rank's residual offset right after synchronising, in seconds.
    pub now: Vec<f64>,
    /// Each rank's residual offset after the wait.
    pub later: Vec<f64>,
}

/// Synchronises, then measures every rank's offset now and after `wait_s`;
/// collective over the control plane.
pub fn quality(control: &Control, exchanges: usize, drift_interval: f64, wait_s: f64) -> Quality {
    control.barrier();
    let start = mpi::time();
    let global = synchronise(control, exchanges, drift_interval);
    let sync_s = mpi::time() - start;
    let now = residual_offsets(control, &global, exchanges);
    let until = mpi::time() + wait_s;
    while mpi::time() < until {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let later = residual_offsets(control, &global, exchanges);
    Quality {
        sync_s,
        wait_s,
        now,
        later,
    }
}

pub fn residual_offsets(control: &Control, clock: &GlobalClock, exchanges: usize) -> Vec<f64> {
    let comm = control.comm();
    let rank = comm.rank();
    let mut residuals = vec![0.0; comm.size() as usize];
    for r in 1..comm.size() {
        if rank == 0 {
            residuals[r as usize] = ping_pong(comm, r, exchanges, || clock.now());
        } else if rank == r {
            answer(comm, 0, clock, exchanges);
        }
    }
    control.barrier();
    residuals
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A reference clock `offset + (1 + drift) · t` at true time t, and
    /// ours reading t itself; each exchange takes its pair of one-way
    /// delays (out, back) in turn.
    struct Simulated {
        offset: f64,
        drift: f64,
        delays: Vec<(f64, f64)>,
        time: Cell<f64>,
    }

    impl Simulated {
        fn reference_at(&self, t: f64) -> f64 {
            self.offset + (1.0 + self.drift) * t
        }

        /// The estimate of [`best_offset`] from these exchanges, starting
        /// at true time `start`.
        fn estimate(&self, start: f64) -> f64 {
            self.time.set(start);
            let mut delays = self.delays.iter().cycle();
            best_offset(
                self.delays.len(),
                || self.time.get(),
                |_| {
                    let (out, back) = delays.next().unwrap();
                    self.time.set(self.time.get() + out);
                    let answer = self.reference_at(self.time.get());
                    self.time.set(self.time.get() + back);
                    answer
                },
            )
        }
    }

    fn simulated(offset: f64, drift: f64) -> Simulated {
        // The third exchange is the fastest and symmetric; the others are
        // slower and lopsided, which would put the estimate off by up to
        // half their asymmetry.
        Simulated {
            offset,
            drift,
            delays: vec![(40e-6, 5e-6), (3e-6, 30e-6), (2e-6, 2e-6), (9e-6, 1e-6)],
            time: Cell::new(0.0),
        }
    }

    #[test]
    fn the_offset_comes_from_the_fastest_exchange() {
        let clock = simulated(-0.25, 0.0);
        let estimate = clock.estimate(100.0);
        assert!((estimate - -0.25).abs() < 1e-12, "{estimate}");
        // Lopsided exchanges alone: the error is half the asymmetry of
        // the fastest of them, (9 − 1) / 2 µs.
        let lopsided = Simulated {
            delays: vec![(40e-6, 5e-6), (9e-6, 1e-6)],
            ..simulated(-0.25, 0.0)
        };
        let estimate = lopsided.estimate(100.0);
        assert!((estimate - (-0.25 + 4e-6)).abs() < 1e-12, "{estimate}");
    }

    #[test]
    fn an_offset_and_a_drift_are_recovered_from_two_synchronisations() {
        // The reference is 1.5 s ahead and gains 20 µs a second.
        let (offset, drift) = (1.5, 20e-6);
        let clock = simulated(offset, drift);
        let synchronised = |start: f64| GlobalClock {
            offset: clock.estimate(start),
            drift: 0.0,
            // The midpoint of the fastest exchange, where the offset holds.
            base: start + 40e-6 + 5e-6 + 3e-6 + 30e-6 + 2e-6,
        };
        let fitted = with_drift(synchronised(10.0), synchronised(12.0));
        assert!((fitted.drift - drift).abs() < 1e-12, "{fitted:?}");
        // Global time is the reference's, long after the synchronisation;
        // a clock without the drift would be 20 µs a second off.
        for t in [12.0, 20.0, 100.0] {
            let error = fitted.global(t) - clock.reference_at(t);
            assert!(error.abs() < 1e-9, "at {t} s: {error} s");
            assert!((fitted.local(fitted.global(t)) - t).abs() < 1e-9);
        }
    }
}
