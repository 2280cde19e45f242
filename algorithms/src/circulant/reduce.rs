//! Circulant `MPI_Reduce` as reduce-scatter and gather: `2q` rounds.

use super::schedule::{gather_steps, Step, Transfer};
use super::{
    elements, recv_part, reduce_scatter_incoming, reduce_scatter_rotated, rotate_into,
    rotated_offsets, send_part, tags, Ring,
};
use crate::split::{block_counts, displacements};
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant reduce: the vector split into one block per process as
/// evenly as possible (block v for the process v ranks after the root),
/// reduce-scattered and gathered to the root over the skips. The root works
/// in `recv`, the others in scratch space. Needs a commutative operator.
pub struct Reduce<T> {
    ring: Ring,
    root: usize,
    count: usize,
    relative: usize,
    /// Where this process's block starts in the vector.
    start: usize,
    offsets: Vec<usize>,
    steps: Vec<Step>,
    /// The rotated vector on non-roots (empty on the root).
    work: Vec<T>,
    incoming: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Reduce<T> {
    /// Prepares the reduction of `count` elements to `root`; not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Reduce<T> {
        let ring = Ring::new(comm);
        assert!(root < ring.size, "root out of range");
        let relative = ring.relative(root);
        let counts = block_counts(count, ring.size);
        let offsets = rotated_offsets(&counts, relative);
        Reduce {
            start: displacements(&counts)[relative],
            incoming: vec![T::default(); reduce_scatter_incoming(&ring, &offsets)],
            work: vec![T::default(); if relative == 0 { 0 } else { count }],
            steps: gather_steps(&ring.skips, relative),
            offsets,
            ring,
            root,
            count,
            relative,
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
        let v = self.relative;
        let work: &mut [T] = if v == 0 {
            assert_eq!(recv.len(), self.count, "recv length");
            recv
        } else {
            &mut self.work
        };
        rotate_into(send, self.start, work);
        reduce_scatter_rotated(
            comm,
            &self.ring,
            &self.offsets,
            work,
            &mut self.incoming,
            op,
        );
        for step in &self.steps {
            // Blocks of relative ranks from v on are this layout's from 0 on.
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let part = elements(&self.offsets, blocks.start - v..blocks.end - v);
                    let source = self.ring.absolute(*from, self.root);
                    recv_part(comm, &mut work[part], source, tags::GATHER);
                }
                Transfer::Send { to, blocks } => {
                    let part = elements(&self.offsets, blocks.start - v..blocks.end - v);
                    let dest = self.ring.absolute(*to, self.root);
                    send_part(comm, &work[part], dest, tags::GATHER);
                }
            }
        }
    }
}
