//! Linear `MPI_Scatter` from point-to-point calls: the mirror of rule (19)'s
//! linear gather, `MPI_Scatter(n) ⪯ MPI_Send(n/p) + … + MPI_Send(n/p)`.

use super::tags;
use mockups::raw::{request_slots, send_blocks};
use mpi::datatype::Equivalence;
use mpi::ffi::MPI_Request;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Linear scatter: the root posts a send of every other process's block
/// straight from its place in `send` (`MPI_Isend`, then one `MPI_Waitall`)
/// and copies its own; every other process receives its block with one
/// `MPI_Recv`.
pub struct Scatter {
    count: usize,
    root: usize,
    /// The root's request slots (empty elsewhere).
    requests: Vec<MPI_Request>,
}

impl Scatter {
    /// Prepares the scatter of `count` elements per process from `root`;
    /// not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Scatter {
        let is_root = comm.rank() as usize == root;
        Scatter {
            count,
            root,
            requests: request_slots(if is_root { comm.size() as usize } else { 0 }),
        }
    }

    /// Block i of the root's `send` (p blocks of `count`) into process i's
    /// `recv`; `send` is read on the root only.
    pub fn run<C: Communicator, T: Equivalence + Copy>(
        &mut self,
        comm: &C,
        send: &[T],
        recv: &mut [T],
    ) {
        let m = self.count;
        let recv = &mut recv[..m];
        if comm.rank() as usize != self.root {
            if m > 0 {
                comm.process_at_rank(self.root as i32)
                    .receive_into_with_tag(recv, tags::SCATTER);
            }
            return;
        }
        let p = comm.size() as usize;
        let send = &send[..p * m];
        send_blocks(comm, send, m, tags::SCATTER, &mut self.requests);
        recv.copy_from_slice(&send[self.root * m..(self.root + 1) * m]);
    }
}
