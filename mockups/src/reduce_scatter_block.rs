//! Mock-ups of `MPI_Reduce_scatter_block`: `send` holds p blocks of
//! `count` elements; `recv` receives block i of the reduction on process i.

use crate::blocks::Blocks;
use crate::rooted;
use crate::scratch::scratch;
use crate::user_op::{Arithmetic, UserOp};
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Reduce` of all p blocks to rank 0, then `MPI_Scatter` from rank 0.
pub struct ReduceScatter<T> {
    count: usize,
    /// The reduced vector on rank 0; empty elsewhere.
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatter<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatter<T> {
        let total = comm.size() as usize * count;
        ReduceScatter {
            count,
            reduced: scratch(if comm.rank() == 0 { total } else { 0 }),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let send = &send[..comm.size() as usize * self.count];
        rooted::reduce(comm, 0, send, &mut self.reduced, op);
        rooted::scatter(comm, 0, &self.reduced, &mut recv[..self.count]);
    }
}

/// `MPI_Reduce_scatter` with p equal counts.
pub struct AsReduceScatter {
    count: usize,
    blocks: Blocks,
}

impl AsReduceScatter {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsReduceScatter {
        AsReduceScatter {
            count,
            blocks: Blocks::uniform(comm.size() as usize, count),
        }
    }

    pub fn run<C, T, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        T: Equivalence,
        O: Operation,
    {
        self.blocks
            .reduce_scatter(comm, send, &mut recv[..self.count], op);
    }
}

/// `MPI_Allreduce` of all p blocks into scratch, then a copy of this
/// process's block.
pub struct AsAllreduce<T> {
    count: usize,
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllreduce<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAllreduce<T> {
        AsAllreduce {
            count,
            reduced: scratch(comm.size() as usize * count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        comm.all_reduce_into(&send[..self.reduced.len()], &mut self.reduced[..], op);
        let own = comm.rank() as usize * self.count;
        recv[..self.count].copy_from_slice(&self.reduced[own..own + self.count]);
    }
}

/// `MPI_Reduce_scatter_block` with a user-defined operator computing the
/// case's built-in one (Träff, Gropp & Thakur's rule (17)).
pub struct WithUserOp<T> {
    count: usize,
    op: UserOp<T>,
}

impl<T: Arithmetic> WithUserOp<T> {
    /// `op` is made once, at preparation, and freed with the mock-up.
    pub fn new<C: Communicator>(_comm: &C, count: usize, op: UserOp<T>) -> WithUserOp<T> {
        WithUserOp { count, op }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.count;
        let total = comm.size() as usize * m;
        comm.reduce_scatter_block_into(&send[..total], &mut recv[..m], &self.op);
    }
}
