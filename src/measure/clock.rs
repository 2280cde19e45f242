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
    let mut best_rtt = f64::INFINITY;
    let mut best_offset = 0.0;
    for _ in 0..exchanges {
        let sent = now();
        peer.send_with_tag(&sent, TAG);
        let (remote, _) = peer.receive_with_tag::<f64>(TAG);
        let received = now();
        let rtt = received - sent;
        if rtt < best_rtt {
            best_rtt = rtt;
            best_offset = remote - (sent + received) / 2.0;
        }
    }
    best_offset
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
    let _wait = super::watchdog::waiting();
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
    let drift = (second.offset - first.offset) / (second.base - first.base);
    control.barrier();
    GlobalClock {
        offset: second.offset,
        drift,
        base: second.base,
    }
}

/// Rank 0's measurement of every rank's remaining offset (their global time
/// minus rank 0's), by direct ping-pong; collective, result on rank 0.
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
