//! Circulant `MPI_Allgather`: `q` rounds, no scratch space.

use super::{allgather_rotated, Layout, Ring};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::marker::PhantomData;

/// Circulant allgather: `recv` is used rotated to this process (its own
/// block first); in round k a process sends its first `s_{k+1} − s_k`
/// blocks `s_k` behind and receives blocks `[s_k, s_{k+1})` from `s_k`
/// ahead; a final in-place rotation puts the blocks in rank order.
pub struct Allgather<T> {
    ring: Ring,
    count: usize,
    layout: Layout,
    element: PhantomData<T>,
}

impl<T: Equivalence + Copy> Allgather<T> {
    /// Prepares the allgather of `count` elements per process; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize) -> Allgather<T> {
        let ring = Ring::new(comm);
        Allgather {
            layout: Layout::new(&vec![count; ring.size], ring.rank),
            ring,
            count,
            element: PhantomData,
        }
    }

    /// Gathers every process's `send` (`count`) into `recv` in rank order.
    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let total = self.count * self.ring.size;
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), total, "recv length");
        recv[..self.count].copy_from_slice(send);
        allgather_rotated(comm, &self.ring, &self.layout, recv);
        self.layout.restore(recv);
    }
}
