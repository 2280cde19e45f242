//! `MPI_Put` in a [`Pattern`], and what the guidelines compare it with
//! (Träff, Gropp & Thakur 2010, (23)): every process puts its `send`
//! buffer into the slots of its targets' windows over `recv`.
//!
//! - [`fence`]: the library's active target, a fence before the first
//!   phase and after each (a ping-pong's pong is put once the ping landed);
//! - [`passive`] with [`Passive::Lock`]: passive target, a barrier (no target is still using its
//!   `recv`, as the opening fence tells), then per phase `MPI_Win_lock` +
//!   `MPI_Put` + `MPI_Win_unlock` per target and a barrier, so that the
//!   targets know their data has landed, as a fence tells them;
//! - [`passive`] with [`Passive::Flush`]: passive target in one epoch for the window's life
//!   ([`Window::create_locked_all`]): a barrier, then per phase `MPI_Put`
//!   and `MPI_Win_flush` per target and a barrier;
//! - [`AsSend`]: barrier, then `MPI_Send` of the displacement and of the
//!   data per target (received in the pattern's order), and a barrier
//!   after each phase.

use crate::pattern::{Pattern, Step};
use crate::window::{Passive, Window};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Fence, the phase's puts, fence, … (see the module's doc); `puts` are
/// [`Pattern::peers`], `window` is over `recv` of every process.
pub fn fence<T: Equivalence>(window: &Window, puts: &[Vec<(usize, usize)>], send: &[T]) {
    window.fence();
    for phase in puts {
        for &(target, slot) in phase {
            window.put(send, target, slot * send.len());
        }
        window.fence();
    }
}

/// A barrier, then per phase: per target open, put and complete ([`Passive`]:
/// lock and unlock, or a flush in the lock-all epoch), and a barrier.
pub fn passive<C: Communicator, T: Equivalence>(
    comm: &C,
    window: &Window,
    puts: &[Vec<(usize, usize)>],
    send: &[T],
    how: Passive,
) {
    comm.barrier();
    for phase in puts {
        for &(target, slot) in phase {
            window.open(target, how);
            window.put(send, target, slot * send.len());
            window.complete(target, how);
        }
        comm.barrier();
    }
}

/// A put as two sends: the displacement, then the data.
pub struct AsSend<T> {
    phases: Vec<Vec<Step>>,
    /// Where data with a displacement outside `recv` goes (a library that
    /// corrupts the displacement leaves `recv` without its data, which
    /// verification then finds, instead of a crash).
    discard: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsSend<T> {
    pub fn new<C: Communicator>(comm: &C, pattern: Pattern, m: usize) -> AsSend<T> {
        AsSend {
            phases: pattern.phases_in(comm),
            discard: vec![T::default(); m],
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = send.len();
        comm.barrier();
        for phase in &self.phases {
            for &step in phase {
                let tag = step.slot() as i32;
                match step {
                    Step::Send { to, slot } => {
                        let to = comm.process_at_rank(to as i32);
                        to.send_with_tag(&[(slot * m) as u64], tag);
                        to.send_with_tag(send, tag);
                    }
                    Step::Recv { from, .. } => {
                        let from = comm.process_at_rank(from as i32);
                        let mut at = [0u64];
                        from.receive_into_with_tag(&mut at, tag);
                        let at = usize::try_from(at[0]).unwrap_or(usize::MAX);
                        let into = match at.checked_add(m).and_then(|end| recv.get_mut(at..end)) {
                            Some(into) => into,
                            None => &mut self.discard[..],
                        };
                        from.receive_into_with_tag(into, tag);
                    }
                }
            }
            comm.barrier();
        }
    }
}
