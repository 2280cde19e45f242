//! Circulant `MPI_Reduce_scatter`: irregular blocks, `q` rounds.

use super::{reduce_scatter_incoming, reduce_scatter_rotated, rotate_into, rotated_offsets, Ring};
use crate::split::displacements;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant reduce-scatter: process i gets `counts[i]` elements of the
/// reduced vector. In round k (from q − 1 down) a process sends the blocks
/// `[s_k, s_{k+1})` of its rotated vector `s_k` ahead and combines the
/// blocks from `s_k` behind into `[0, s_{k+1} − s_k)`. Needs a commutative
/// operator.
pub struct ReduceScatter<T> {
    ring: Ring,
    count: usize,
    /// This process's block.
    mine: usize,
    /// Where this process's block starts in the vector.
    start: usize,
    /// Blocks rotated to this process.
    offsets: Vec<usize>,
    /// The vector rotated, partly reduced.
    work: Vec<T>,
    incoming: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatter<T> {
    /// Prepares the reduce-scatter of `counts` (one per process); not
    /// collective.
    ///
    /// # Panics
    /// If `counts` has not one entry per process.
    pub fn new<C: Communicator>(comm: &C, counts: &[usize]) -> ReduceScatter<T> {
        let ring = Ring::new(comm);
        assert_eq!(counts.len(), ring.size, "one count per process");
        let offsets = rotated_offsets(counts, ring.rank);
        let count = offsets[ring.size];
        ReduceScatter {
            mine: counts[ring.rank],
            start: displacements(counts)[ring.rank],
            incoming: vec![T::default(); reduce_scatter_incoming(&ring, &offsets)],
            work: vec![T::default(); count],
            count,
            offsets,
            ring,
        }
    }

    /// Reduces every process's `send` (the sum of the counts) with `op` and
    /// leaves this process's block in `recv`.
    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        assert_eq!(send.len(), self.count, "send length");
        assert!(recv.len() >= self.mine, "recv length");
        rotate_into(send, self.start, &mut self.work);
        reduce_scatter_rotated(
            comm,
            &self.ring,
            &self.offsets,
            &mut self.work,
            &mut self.incoming,
            op,
        );
        recv[..self.mine].copy_from_slice(&self.work[..self.mine]);
    }
}
