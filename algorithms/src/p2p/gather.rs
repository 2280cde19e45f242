//! Linear `MPI_Gather` from point-to-point calls: Träff, Gropp & Thakur's
//! rule (19), `MPI_Gather(n) ⪯ MPI_Recv(n/p) + … + MPI_Recv(n/p)`.

use super::tags;
use mockups::raw::{receive_blocks, request_slots};
use mpi::datatype::Equivalence;
use mpi::ffi::MPI_Request;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Linear gather: the root posts a receive of every other process's block
/// straight into its place in `recv` (`MPI_Irecv`, then one `MPI_Waitall`,
/// so that blocks land in whatever order they arrive) and copies its own;
/// every other process sends its block with one `MPI_Send`.
pub struct Gather {
    count: usize,
    root: usize,
    /// The root's request slots (empty elsewhere).
    requests: Vec<MPI_Request>,
}

impl Gather {
    /// Prepares the gather of `count` elements per process to `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Gather {
        let is_root = comm.rank() as usize == root;
        Gather {
            count,
            root,
            requests: request_slots(if is_root { comm.size() as usize } else { 0 }),
        }
    }

    /// Gathers every process's `send` (`count`) into the root's `recv` in
    /// rank order; `recv` is not touched elsewhere.
    pub fn run<C: Communicator, T: Equivalence + Copy>(
        &mut self,
        comm: &C,
        send: &[T],
        recv: &mut [T],
    ) {
        let m = self.count;
        let send = &send[..m];
        if comm.rank() as usize != self.root {
            if m > 0 {
                comm.process_at_rank(self.root as i32)
                    .send_with_tag(send, tags::GATHER);
            }
            return;
        }
        let p = comm.size() as usize;
        let recv = &mut recv[..p * m];
        receive_blocks(comm, recv, m, tags::GATHER, &mut self.requests);
        recv[self.root * m..(self.root + 1) * m].copy_from_slice(send);
    }
}
