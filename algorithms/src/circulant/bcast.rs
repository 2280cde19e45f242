//! Circulant `MPI_Bcast` as scatter and allgather: `2q` rounds.

use super::schedule::{scatter_steps, Step, Transfer};
use super::{allgather_rotated, elements, recv_part, rotated_offsets, send_part, tags, Ring};
use crate::split::{block_counts, displacements};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::marker::PhantomData;

/// Circulant broadcast: the vector split into one block per process as
/// evenly as possible (block v for the process v ranks after the root),
/// scattered over the skips and allgathered. Every process works in its
/// buffer rotated to its own block, so no scratch space is needed.
pub struct Bcast<T> {
    ring: Ring,
    root: usize,
    count: usize,
    /// This process's rank relative to the root.
    relative: usize,
    /// Where this process's block starts in the vector.
    start: usize,
    offsets: Vec<usize>,
    steps: Vec<Step>,
    element: PhantomData<T>,
}

impl<T: Equivalence + Copy> Bcast<T> {
    /// Prepares the broadcast of `count` elements from `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Bcast<T> {
        let ring = Ring::new(comm);
        assert!(root < ring.size, "root out of range");
        let relative = ring.relative(root);
        let counts = block_counts(count, ring.size);
        Bcast {
            start: displacements(&counts)[relative],
            offsets: rotated_offsets(&counts, relative),
            steps: scatter_steps(&ring.skips, relative),
            ring,
            root,
            count,
            relative,
            element: PhantomData,
        }
    }

    /// Broadcasts the root's `buf` into every process's `buf`.
    pub fn run<C: Communicator>(&mut self, comm: &C, buf: &mut [T]) {
        assert_eq!(buf.len(), self.count, "buffer length");
        let v = self.relative;
        for step in &self.steps {
            // Blocks of relative ranks from v on are this layout's from 0 on.
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let part = elements(&self.offsets, blocks.start - v..blocks.end - v);
                    let source = self.ring.absolute(*from, self.root);
                    recv_part(comm, &mut buf[part], source, tags::SCATTER);
                }
                Transfer::Send { to, blocks } => {
                    let part = elements(&self.offsets, blocks.start - v..blocks.end - v);
                    let dest = self.ring.absolute(*to, self.root);
                    send_part(comm, &buf[part], dest, tags::SCATTER);
                }
            }
        }
        allgather_rotated(comm, &self.ring, &self.offsets, buf);
        buf.rotate_right(self.start);
    }
}
