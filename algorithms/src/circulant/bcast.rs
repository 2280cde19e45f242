//! Circulant `MPI_Bcast` as scatter and allgather: `2q` rounds.

use super::schedule::scatter_steps;
use super::{allgather_rotated, tags, Layout, Ring, Rooted};
use crate::split::block_counts;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::marker::PhantomData;

/// Circulant broadcast: the vector split into one block per process as
/// evenly as possible (block v for the process v ranks after the root),
/// scattered over the skips and allgathered. Every process works in its
/// buffer rotated to its own block, so no scratch space is needed.
pub struct Bcast<T> {
    ring: Ring,
    count: usize,
    rooted: Rooted,
    layout: Layout,
    element: PhantomData<T>,
}

impl<T: Equivalence + Copy> Bcast<T> {
    /// Prepares the broadcast of `count` elements from `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Bcast<T> {
        let ring = Ring::new(comm);
        let rooted = Rooted::new(&ring, root, scatter_steps);
        let counts = block_counts(count, ring.size);
        Bcast {
            layout: Layout::new(&counts, rooted.relative),
            rooted,
            ring,
            count,
            element: PhantomData,
        }
    }

    /// Broadcasts the root's `buf` into every process's `buf`.
    pub fn run<C: Communicator>(&mut self, comm: &C, buf: &mut [T]) {
        assert_eq!(buf.len(), self.count, "buffer length");
        // The root's buffer is laid out rotated to it already: its own
        // block is the vector's first.
        self.rooted
            .run_on(comm, &self.ring, &self.layout, buf, tags::SCATTER);
        allgather_rotated(comm, &self.ring, &self.layout, buf);
        self.layout.restore(buf);
    }
}
