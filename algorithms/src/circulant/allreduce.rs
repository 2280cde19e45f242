//! Circulant `MPI_Allreduce`: reduce-scatter and allgather, `2q` rounds.

use super::{
    allgather_rotated, reduce_scatter_incoming, reduce_scatter_rotated, rotate_into,
    rotated_offsets, Ring,
};
use crate::split::{block_counts, displacements};
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
    /// Where this process's block starts in the vector.
    start: usize,
    offsets: Vec<usize>,
    incoming: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Allreduce<T> {
    /// Prepares the allreduce of `count` elements; not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize) -> Allreduce<T> {
        let ring = Ring::new(comm);
        let counts = block_counts(count, ring.size);
        let offsets = rotated_offsets(&counts, ring.rank);
        Allreduce {
            start: displacements(&counts)[ring.rank],
            incoming: vec![T::default(); reduce_scatter_incoming(&ring, &offsets)],
            offsets,
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
        rotate_into(send, self.start, recv);
        reduce_scatter_rotated(
            comm,
            &self.ring,
            &self.offsets,
            recv,
            &mut self.incoming,
            op,
        );
        allgather_rotated(comm, &self.ring, &self.offsets, recv);
        recv.rotate_right(self.start);
    }
}
