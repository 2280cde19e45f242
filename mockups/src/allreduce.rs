//! Mock-ups of `MPI_Allreduce`: `send` and `recv` hold the vector of
//! `count` elements.

use crate::parts::{PaddedParts, SplitParts};
use crate::rooted;
use crate::user_op::{Arithmetic, UserOp};
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Reduce` to rank 0, then `MPI_Bcast` from rank 0.
pub struct ReduceBcast {
    count: usize,
}

impl ReduceBcast {
    pub fn new<C: Communicator>(_comm: &C, count: usize) -> ReduceBcast {
        ReduceBcast { count }
    }

    pub fn run<C, T, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        T: Equivalence,
        O: Operation,
    {
        let recv = &mut recv[..self.count];
        rooted::reduce(comm, 0, &send[..self.count], recv, op);
        comm.process_at_rank(0).broadcast_into(recv);
    }
}

/// `MPI_Ireduce` to rank 0, then `MPI_Ibcast` from rank 0, each waited
/// for at once: [`ReduceBcast`] in nonblocking calls.
pub struct IreduceIbcast {
    count: usize,
}

impl IreduceIbcast {
    pub fn new<C: Communicator>(_comm: &C, count: usize) -> IreduceIbcast {
        IreduceIbcast { count }
    }

    pub fn run<C, T, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        T: Equivalence,
        O: Operation,
    {
        let recv = &mut recv[..self.count];
        rooted::ireduce_wait(comm, 0, &send[..self.count], recv, op);
        rooted::ibcast_wait(comm, 0, recv);
    }
}

/// `MPI_Reduce_scatter_block` in p parts of ⌈count/p⌉ (the vector padded
/// in scratch when p does not divide `count`), then `MPI_Allgather`.
pub struct ReduceScatterBlockAllgather<T> {
    parts: PaddedParts<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterBlockAllgather<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterBlockAllgather<T> {
        ReduceScatterBlockAllgather {
            parts: PaddedParts::new(comm.size() as usize, count, true),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        self.parts
            .reduce_scatter_gather(comm, send, recv, op, |part, all| {
                comm.all_gather_into(part, all)
            });
    }
}

/// `MPI_Reduce_scatter` in p parts split as evenly as possible, then
/// `MPI_Allgatherv`: no padding.
pub struct ReduceScatterAllgatherv<T> {
    parts: SplitParts<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterAllgatherv<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterAllgatherv<T> {
        ReduceScatterAllgatherv {
            parts: SplitParts::new(comm.size() as usize, comm.rank() as usize, count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let (part, blocks) = self.parts.reduce_scatter(comm, send, op);
        blocks.allgatherv(comm, part, recv);
    }
}

/// `MPI_Allreduce` with a user-defined operator computing the case's
/// built-in one (Träff, Gropp & Thakur's rule (17)).
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
        comm.all_reduce_into(&send[..m], &mut recv[..m], &self.op);
    }
}
