//! `MPI_Get` in a [`Pattern`], and what it is compared with: every process
//! gets its sources' `send` buffers (exposed in windows) into its slots of
//! `recv`.
//!
//! - [`fence`]: the library's active target, a fence before the first
//!   phase and after each;
//! - [`passive`] with [`Passive::Lock`]: passive target, a barrier (every source's `send` is ready,
//!   as the opening fence tells), then per phase `MPI_Win_lock`, `MPI_Get`
//!   and `MPI_Win_unlock` per source and a barrier (a ping-pong's pong is
//!   fetched once the ping was);
//! - [`passive`] with [`Passive::Flush`]: passive target in one epoch for the window's life
//!   ([`Window::create_locked_all`]): a barrier, then per phase `MPI_Get`
//!   and `MPI_Win_flush` per source and a barrier;
//! - [`AsSend`]: barrier, then per source a request (the displacement)
//!   sent and the data sent back, in the pattern's order, and a barrier
//!   after each phase.

use crate::pattern::{Pattern, Step};
use crate::window::{Passive, Window};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Fence, the phase's gets, fence, …; `gets` are [`Pattern::peers`] (the
/// receives), `window` is over `send` of every process.
pub fn fence<T: Equivalence>(
    window: &Window,
    gets: &[Vec<(usize, usize)>],
    recv: &mut [T],
    m: usize,
) {
    window.fence();
    for phase in gets {
        for &(source, slot) in phase {
            // SAFETY: the slot is not touched until the fence below.
            unsafe { window.get(&mut recv[slot * m..(slot + 1) * m], source, 0) };
        }
        window.fence();
    }
}

/// A barrier, then per phase: per source open, get and complete ([`Passive`]:
/// lock and unlock, or a flush in the lock-all epoch), and a barrier.
pub fn passive<C: Communicator, T: Equivalence>(
    comm: &C,
    window: &Window,
    gets: &[Vec<(usize, usize)>],
    recv: &mut [T],
    m: usize,
    how: Passive,
) {
    comm.barrier();
    for phase in gets {
        for &(source, slot) in phase {
            window.open(source, how);
            // SAFETY: the slot is not touched until it is complete below.
            unsafe { window.get(&mut recv[slot * m..(slot + 1) * m], source, 0) };
            window.complete(source, how);
        }
        comm.barrier();
    }
}

/// A get as a request and a reply.
pub struct AsSend<T> {
    phases: Vec<Vec<Step>>,
    /// Sent back for a displacement outside `send` (a library that corrupts
    /// it then delivers wrong data, which verification finds).
    zeros: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsSend<T> {
    pub fn new<C: Communicator>(comm: &C, pattern: Pattern, m: usize) -> AsSend<T> {
        AsSend {
            phases: pattern.phases_in(comm),
            zeros: vec![T::default(); m],
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = send.len();
        comm.barrier();
        for phase in &self.phases {
            for &step in phase {
                let tag = step.slot() as i32;
                match step {
                    // This process's data is wanted by `to`: serve its request.
                    Step::Send { to, .. } => {
                        let to = comm.process_at_rank(to as i32);
                        let mut at = [0u64];
                        to.receive_into_with_tag(&mut at, tag);
                        let at = usize::try_from(at[0]).unwrap_or(usize::MAX);
                        let data = match at.checked_add(m).and_then(|end| send.get(at..end)) {
                            Some(data) => data,
                            None => &self.zeros[..],
                        };
                        to.send_with_tag(data, tag);
                    }
                    Step::Recv { from, slot } => {
                        let from = comm.process_at_rank(from as i32);
                        from.send_with_tag(&[0u64], tag);
                        from.receive_into_with_tag(&mut recv[slot * m..(slot + 1) * m], tag);
                    }
                }
            }
            comm.barrier();
        }
    }
}
