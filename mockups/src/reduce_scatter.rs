//! Mock-ups of `MPI_Reduce_scatter`: `send` holds the vector of `count`
//! elements; process i receives block i of the reduction, the vector split
//! as [`block_counts`](crate::block_counts) does.

use crate::blocks::Blocks;
use crate::rooted;
use crate::scratch::scratch;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Allreduce` of the vector into scratch, then a copy of this
/// process's block.
pub struct AsAllreduce<T> {
    blocks: Blocks,
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllreduce<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAllreduce<T> {
        AsAllreduce {
            blocks: Blocks::split(count, comm.size() as usize),
            reduced: scratch(count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        comm.all_reduce_into(&send[..self.reduced.len()], &mut self.reduced[..], op);
        let own = self.blocks.range(comm.rank() as usize);
        recv[..own.len()].copy_from_slice(&self.reduced[own]);
    }
}

/// `MPI_Reduce` of the vector to rank 0, then `MPI_Scatterv` of the blocks
/// from rank 0.
pub struct ReduceScatterv<T> {
    count: usize,
    blocks: Blocks,
    /// The reduced vector on rank 0; empty elsewhere.
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterv<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterv<T> {
        ReduceScatterv {
            count,
            blocks: Blocks::split(count, comm.size() as usize),
            reduced: scratch(if comm.rank() == 0 { count } else { 0 }),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let recv = &mut recv[..self.blocks.range(comm.rank() as usize).len()];
        rooted::reduce(comm, 0, &send[..self.count], &mut self.reduced, op);
        self.blocks.scatterv(comm, 0, &self.reduced, recv);
    }
}
