//! Circulant `MPI_Reduce_scatter`: irregular blocks, `q` rounds.

use super::{ReduceScatterRotated, Ring};
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
    reduce_scatter: ReduceScatterRotated<T>,
    /// The vector rotated, partly reduced.
    work: Vec<T>,
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
        let count = counts.iter().sum();
        ReduceScatter {
            mine: counts[ring.rank],
            reduce_scatter: ReduceScatterRotated::new(&ring, counts, ring.rank),
            work: vec![T::default(); count],
            count,
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
        self.reduce_scatter
            .run(comm, &self.ring, send, &mut self.work, op);
        recv[..self.mine].copy_from_slice(&self.work[..self.mine]);
    }
}
