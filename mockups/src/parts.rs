//! The first step of the reduce-scatter mock-ups of allreduce and reduce:
//! the vector reduced and scattered in p parts, one per process.

use crate::blocks::Blocks;
use crate::raw;
use crate::scratch::scratch;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Reduce_scatter_block` of a vector of `count` elements in p parts of
/// ⌈count/p⌉, the vector padded at its end when p does not divide `count`.
pub(crate) struct PaddedParts<T> {
    count: usize,
    parts: usize,
    /// The input with its padding; empty when there is none.
    padded: Vec<T>,
    part: Vec<T>,
}

impl<T: Equivalence + Copy + Default> PaddedParts<T> {
    pub(crate) fn new(size: usize, count: usize) -> PaddedParts<T> {
        let part = count.div_ceil(size);
        let padded_len = if part * size == count { 0 } else { part * size };
        PaddedParts {
            count,
            parts: size,
            padded: scratch(padded_len),
            part: scratch(part),
        }
    }

    /// Whether the parts cover more than the vector.
    pub(crate) fn is_padded(&self) -> bool {
        !self.padded.is_empty()
    }

    /// Elements in all parts together.
    pub(crate) fn padded_len(&self) -> usize {
        self.part.len() * self.parts
    }

    /// Reduces `send` and returns this process's part.
    pub(crate) fn reduce_scatter<C, O>(&mut self, comm: &C, send: &[T], op: O) -> &[T]
    where
        C: Communicator,
        O: Operation,
    {
        let send = &send[..self.count];
        let input = if self.is_padded() {
            self.padded[..self.count].copy_from_slice(send);
            &self.padded[..]
        } else {
            send
        };
        comm.reduce_scatter_block_into(input, &mut self.part[..], op);
        &self.part
    }
}

/// `MPI_Reduce_scatter` of a vector of `count` elements in p parts split as
/// evenly as possible.
pub(crate) struct SplitParts<T> {
    count: usize,
    blocks: Blocks,
    part: Vec<T>,
}

impl<T: Equivalence + Copy + Default> SplitParts<T> {
    pub(crate) fn new(size: usize, rank: usize, count: usize) -> SplitParts<T> {
        let blocks = Blocks::split(count, size);
        let part = scratch(blocks.range(rank).len());
        SplitParts {
            count,
            blocks,
            part,
        }
    }

    /// Reduces `send` and returns this process's part with the blocks.
    pub(crate) fn reduce_scatter<C, O>(&mut self, comm: &C, send: &[T], op: O) -> (&[T], &Blocks)
    where
        C: Communicator,
        O: Operation,
    {
        raw::reduce_scatter(
            comm,
            &send[..self.count],
            &mut self.part,
            self.blocks.counts(),
            op,
        );
        (&self.part, &self.blocks)
    }
}
