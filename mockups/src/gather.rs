//! Mock-ups of `MPI_Gather`: `send` holds this process's block of `count`
//! elements; the root's `recv` receives all p blocks in rank order.
//! Other processes' `recv` is not used.

use crate::blocks::Blocks;
use crate::bytes::ByteOr;
use crate::scratch::{root_or_spare, scratch};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Allgather`; the processes other than the root receive into scratch.
pub struct AsAllgather<T> {
    root: usize,
    count: usize,
    total: usize,
    /// Where a process other than the root receives (empty on the root).
    spare: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllgather<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsAllgather<T> {
        let total = comm.size() as usize * count;
        let is_root = comm.rank() as usize == root;
        AsAllgather {
            root,
            count,
            total,
            spare: scratch(if is_root { 0 } else { total }),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let is_root = comm.rank() as usize == self.root;
        let out = root_or_spare(is_root, recv, self.total, &mut self.spare);
        comm.all_gather_into(&send[..self.count], out);
    }
}

/// `MPI_Gatherv` with p equal blocks.
pub struct AsGatherv {
    root: usize,
    count: usize,
    blocks: Blocks,
}

impl AsGatherv {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsGatherv {
        AsGatherv {
            root,
            count,
            blocks: Blocks::uniform(comm.size() as usize, count),
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        self.blocks
            .gatherv(comm, self.root, &send[..self.count], recv);
    }
}

/// `MPI_Reduce` to the root with `MPI_BOR` on the bytes of a zeroed p-block
/// buffer in which each process has set its own block.
pub struct AsReduce<T> {
    root: usize,
    count: usize,
    total: usize,
    blocks: ByteOr<T>,
}

impl<T: Equivalence> AsReduce<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsReduce<T> {
        let size = comm.size() as usize;
        AsReduce {
            root,
            count,
            total: size * count,
            blocks: ByteOr::new(size, comm.rank() as usize, count),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        // Only the root receives.
        let out_len = if comm.rank() as usize == self.root {
            self.total
        } else {
            0
        };
        self.blocks
            .reduce(comm, self.root, &send[..self.count], &mut recv[..out_len]);
    }
}
