//! Circulant `MPI_Reduce` as reduce-scatter and gather: `2q` rounds.

use super::schedule::gather_steps;
use super::{tags, ReduceScatterRotated, Ring, Rooted};
use crate::split::block_counts;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant reduce: the vector split into one block per process as
/// evenly as possible (block v for the process v ranks after the root),
/// reduce-scattered and gathered to the root over the skips. The root works
/// in `recv`, the others in scratch space. Needs a commutative operator.
pub struct Reduce<T> {
    ring: Ring,
    count: usize,
    rooted: Rooted,
    reduce_scatter: ReduceScatterRotated<T>,
    /// The rotated vector on non-roots (empty on the root).
    work: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Reduce<T> {
    /// Prepares the reduction of `count` elements to `root`; not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Reduce<T> {
        let ring = Ring::new(comm);
        let rooted = Rooted::new(&ring, root, gather_steps);
        let counts = block_counts(count, ring.size);
        let v = rooted.relative;
        Reduce {
            reduce_scatter: ReduceScatterRotated::new(&ring, &counts, v),
            work: vec![T::default(); if v == 0 { 0 } else { count }],
            rooted,
            ring,
            count,
        }
    }

    /// Reduces every process's `send` with `op` into the root's `recv`;
    /// `recv` is not touched elsewhere.
    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        assert_eq!(send.len(), self.count, "send length");
        let work: &mut [T] = if self.rooted.relative == 0 {
            assert_eq!(recv.len(), self.count, "recv length");
            recv
        } else {
            &mut self.work
        };
        self.reduce_scatter.run(comm, &self.ring, send, work, op);
        let layout = &self.reduce_scatter.layout;
        self.rooted
            .run_on(comm, &self.ring, layout, work, tags::GATHER);
    }
}
