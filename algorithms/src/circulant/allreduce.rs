//! Circulant `MPI_Allreduce`: reduce-scatter and allgather, `2q` rounds.

use super::{allgather_rotated, ReduceScatterRotated, Ring};
use crate::split::block_counts;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant allreduce: the vector split into one block per process as
/// evenly as possible, reduce-scattered and allgathered in `recv`, which
/// holds it rotated to this process until a final in-place rotation. Needs
/// a commutative operator.
pub struct Allreduce<T> {
    ring: Ring,
    count: usize,
    reduce_scatter: ReduceScatterRotated<T>,
}

impl<T: Equivalence + Copy + Default> Allreduce<T> {
    /// Prepares the allreduce of `count` elements; not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize) -> Allreduce<T> {
        let ring = Ring::new(comm);
        let counts = block_counts(count, ring.size);
        Allreduce {
            reduce_scatter: ReduceScatterRotated::new(&ring, &counts, ring.rank),
            ring,
            count,
        }
    }

    /// Reduces every process's `send` with `op` into every process's `recv`.
    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), self.count, "recv length");
        self.reduce_scatter.run(comm, &self.ring, send, recv, op);
        let layout = &self.reduce_scatter.layout;
        allgather_rotated(comm, &self.ring, layout, recv);
        layout.restore(recv);
    }
}
