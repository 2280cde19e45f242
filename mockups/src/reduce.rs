//! Mock-ups of `MPI_Reduce`: `send` holds the vector of `count` elements;
//! the root's `recv` receives the reduction. Other processes' `recv` is not
//! used.

use crate::blocks::Blocks;
use crate::parts::{PaddedParts, SplitParts};
use crate::rooted;
use crate::scratch::{root_or_spare, scratch};
use crate::user_op::{Arithmetic, UserOp};
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Allreduce`; the processes other than the root receive into scratch.
pub struct AsAllreduce<T> {
    root: usize,
    count: usize,
    /// Where a process other than the root receives (empty on the root).
    spare: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllreduce<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsAllreduce<T> {
        let is_root = comm.rank() as usize == root;
        AsAllreduce {
            root,
            count,
            spare: scratch(if is_root { 0 } else { count }),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let is_root = comm.rank() as usize == self.root;
        let out = root_or_spare(is_root, recv, self.count, &mut self.spare);
        comm.all_reduce_into(&send[..self.count], out, op);
    }
}

/// `MPI_Reduce_scatter_block` in p parts of ⌈count/p⌉ (the vector padded
/// in scratch when p does not divide `count`), then `MPI_Gather` to the
/// root.
pub struct ReduceScatterBlockGather<T> {
    root: usize,
    parts: PaddedParts<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterBlockGather<T> {
    pub fn new<C: Communicator>(
        comm: &C,
        count: usize,
        root: usize,
    ) -> ReduceScatterBlockGather<T> {
        let is_root = comm.rank() as usize == root;
        ReduceScatterBlockGather {
            root,
            parts: PaddedParts::new(comm.size() as usize, count, is_root),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let root = comm.process_at_rank(self.root as i32);
        if comm.rank() as usize == self.root {
            self.parts
                .reduce_scatter_gather(comm, send, recv, op, |part, all| {
                    root.gather_into_root(part, all)
                });
        } else {
            root.gather_into(self.parts.reduce_scatter(comm, send, op));
        }
    }
}

/// `MPI_Reduce_scatter` in p parts split as evenly as possible, then
/// `MPI_Gatherv` to the root: no padding.
pub struct ReduceScatterGatherv<T> {
    root: usize,
    parts: SplitParts<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterGatherv<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> ReduceScatterGatherv<T> {
        ReduceScatterGatherv {
            root,
            parts: SplitParts::new(comm.size() as usize, comm.rank() as usize, count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let (part, blocks) = self.parts.reduce_scatter(comm, send, op);
        blocks.gatherv(comm, self.root, part, recv);
    }
}

/// `MPI_Reduce_scatter` that gives the root the whole vector and the
/// other processes nothing.
pub struct AsReduceScatter<T> {
    root: usize,
    count: usize,
    blocks: Blocks,
    /// The empty receive buffer of the processes other than the root.
    nothing: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsReduceScatter<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsReduceScatter<T> {
        AsReduceScatter {
            root,
            count,
            blocks: Blocks::single(comm.size() as usize, root, count),
            nothing: scratch(0),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let is_root = comm.rank() as usize == self.root;
        let out = root_or_spare(is_root, recv, self.count, &mut self.nothing);
        self.blocks.reduce_scatter(comm, send, out, op);
    }
}

/// `MPI_Reduce` with a user-defined operator computing the case's built-in
/// one (Träff, Gropp & Thakur's rule (17): `MPI_Reduce(MPI_SUM) ⪯
/// MPI_Reduce(user sum)`).
pub struct WithUserOp<T> {
    root: usize,
    count: usize,
    op: UserOp<T>,
}

impl<T: Arithmetic> WithUserOp<T> {
    /// `op` is made once, at preparation, and freed with the mock-up.
    pub fn new<C: Communicator>(
        _comm: &C,
        count: usize,
        root: usize,
        op: UserOp<T>,
    ) -> WithUserOp<T> {
        WithUserOp { root, count, op }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.count;
        let out_len = if comm.rank() as usize == self.root {
            m
        } else {
            0
        };
        rooted::reduce(comm, self.root, &send[..m], &mut recv[..out_len], &self.op);
    }
}
