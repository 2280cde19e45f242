//! Mock-ups of `MPI_Allgather`: `send` holds this process's block of
//! `count` elements, `recv` receives all p blocks in rank order.

use crate::blocks::Blocks;
use crate::bytes::ByteOr;
use crate::rooted;
use crate::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Allgatherv` with p equal blocks.
pub struct AsAllgatherv {
    count: usize,
    blocks: Blocks,
}

impl AsAllgatherv {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAllgatherv {
        AsAllgatherv {
            count,
            blocks: Blocks::uniform(comm.size() as usize, count),
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        self.blocks.allgatherv(comm, &send[..self.count], recv);
    }
}

/// `MPI_Allreduce` with `MPI_BOR` on the bytes of a zeroed p-block buffer
/// in which each process has set its own block.
pub struct AsAllreduce<T> {
    count: usize,
    total: usize,
    blocks: ByteOr<T>,
}

impl<T: Equivalence> AsAllreduce<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAllreduce<T> {
        let size = comm.size() as usize;
        AsAllreduce {
            count,
            total: size * count,
            blocks: ByteOr::new(size, comm.rank() as usize, count),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        self.blocks
            .all_reduce(comm, &send[..self.count], &mut recv[..self.total]);
    }
}

/// `MPI_Alltoall` of p copies of this process's block.
pub struct AsAlltoall<T> {
    count: usize,
    copies: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAlltoall<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAlltoall<T> {
        AsAlltoall {
            count,
            copies: scratch(comm.size() as usize * count),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let block = &send[..self.count];
        if self.count > 0 {
            for copy in self.copies.chunks_exact_mut(self.count) {
                copy.copy_from_slice(block);
            }
        }
        comm.all_to_all_into(&self.copies[..], &mut recv[..self.copies.len()]);
    }
}

/// `MPI_Gather` to rank 0, then `MPI_Bcast` of all blocks from rank 0.
pub struct GatherBcast {
    count: usize,
    total: usize,
}

impl GatherBcast {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> GatherBcast {
        GatherBcast {
            count,
            total: comm.size() as usize * count,
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let recv = &mut recv[..self.total];
        rooted::gather(comm, 0, &send[..self.count], recv);
        comm.process_at_rank(0).broadcast_into(recv);
    }
}

/// `MPI_Igather` to rank 0, then `MPI_Ibcast` of all blocks, each waited
/// for at once: [`GatherBcast`] in nonblocking calls.
pub struct IgatherIbcast {
    count: usize,
    total: usize,
}

impl IgatherIbcast {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> IgatherIbcast {
        IgatherIbcast {
            count,
            total: comm.size() as usize * count,
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let recv = &mut recv[..self.total];
        rooted::igather_wait(comm, 0, &send[..self.count], recv);
        rooted::ibcast_wait(comm, 0, recv);
    }
}
