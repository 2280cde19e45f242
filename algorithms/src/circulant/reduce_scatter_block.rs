//! Circulant `MPI_Reduce_scatter_block`.

use super::ReduceScatter;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant reduce-scatter of `count` elements per process: the irregular
/// [`ReduceScatter`] with equal counts. Needs a commutative operator.
pub struct ReduceScatterBlock<T>(ReduceScatter<T>);

impl<T: Equivalence + Copy + Default> ReduceScatterBlock<T> {
    /// Prepares the reduce-scatter of `count` elements per process; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterBlock<T> {
        ReduceScatterBlock(ReduceScatter::new(comm, &vec![count; comm.size() as usize]))
    }

    /// Reduces every process's `send` (`count` per process) with `op` and
    /// leaves this process's `count` elements in `recv`.
    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        self.0.run(comm, send, recv, op);
    }
}
