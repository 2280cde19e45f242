//! Mock-ups of `MPI_Allreduce`: `send` and `recv` hold the vector of
//! `count` elements.

use crate::parts::{PaddedParts, SplitParts};
use crate::scratch::scratch;
use mpi::collective::Operation;
use mpi::datatype::{Equivalence, PartitionMut};
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
        let root = comm.process_at_rank(0);
        let send = &send[..self.count];
        let recv = &mut recv[..self.count];
        if comm.rank() == 0 {
            root.reduce_into_root(send, recv, op);
        } else {
            root.reduce_into(send, op);
        }
        root.broadcast_into(recv);
    }
}

/// `MPI_Reduce_scatter_block` in p parts of ⌈count/p⌉ (the vector padded
/// in scratch when p does not divide `count`), then `MPI_Allgather`.
pub struct ReduceScatterBlockAllgather<T> {
    count: usize,
    parts: PaddedParts<T>,
    /// The gathered padded vector; empty without padding, when the parts
    /// are gathered straight into `recv`.
    gathered: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterBlockAllgather<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterBlockAllgather<T> {
        let parts = PaddedParts::new(comm.size() as usize, count);
        let gathered_len = if parts.is_padded() {
            parts.padded_len()
        } else {
            0
        };
        ReduceScatterBlockAllgather {
            count,
            parts,
            gathered: scratch(gathered_len),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let padded = self.parts.is_padded();
        let part = self.parts.reduce_scatter(comm, send, op);
        let recv = &mut recv[..self.count];
        if padded {
            comm.all_gather_into(part, &mut self.gathered[..]);
            recv.copy_from_slice(&self.gathered[..self.count]);
        } else {
            comm.all_gather_into(part, recv);
        }
    }
}

/// `MPI_Reduce_scatter` in p parts split as evenly as possible, then
/// `MPI_Allgatherv`: no padding.
pub struct ReduceScatterAllgatherv<T> {
    count: usize,
    parts: SplitParts<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterAllgatherv<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> ReduceScatterAllgatherv<T> {
        ReduceScatterAllgatherv {
            count,
            parts: SplitParts::new(comm.size() as usize, comm.rank() as usize, count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let (part, blocks) = self.parts.reduce_scatter(comm, send, op);
        let mut out = PartitionMut::new(&mut recv[..self.count], blocks.counts(), blocks.displs());
        comm.all_gather_varcount_into(part, &mut out);
    }
}
