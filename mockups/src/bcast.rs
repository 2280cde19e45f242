//! Mock-ups of `MPI_Bcast`: the root's `recv` holds the vector of `count`
//! elements before the call, every process's `recv` after it.

use crate::blocks::Blocks;
use crate::rooted;
use crate::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Allgatherv` to which only the root contributes (MPINPC's GL1).
pub struct AsAllgatherv<T> {
    root: usize,
    blocks: Blocks,
    /// The root's data: MPI forbids the send buffer to alias `recv`, so
    /// the root sends a copy (empty on the other processes).
    copy: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllgatherv<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsAllgatherv<T> {
        let is_root = comm.rank() as usize == root;
        AsAllgatherv {
            root,
            blocks: Blocks::single(comm.size() as usize, root, count),
            copy: scratch(if is_root { count } else { 0 }),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, recv: &mut [T]) {
        let recv = &mut recv[..self.blocks.total()];
        if comm.rank() as usize == self.root {
            self.copy.copy_from_slice(recv);
        }
        self.blocks.allgatherv(comm, &self.copy, recv);
    }
}

/// `MPI_Scatter` of the vector in p parts from the root, then
/// `MPI_Allgather` of the parts; when p does not divide `count`,
/// `MPI_Scatterv` and `MPI_Allgatherv` of parts split as evenly as possible.
pub struct ScatterAllgather<T> {
    root: usize,
    count: usize,
    blocks: Blocks,
    regular: bool,
    part: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ScatterAllgather<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> ScatterAllgather<T> {
        let size = comm.size() as usize;
        let blocks = Blocks::split(count, size);
        let part = scratch(blocks.range(comm.rank() as usize).len());
        ScatterAllgather {
            root,
            count,
            blocks,
            regular: count / size * size == count,
            part,
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, recv: &mut [T]) {
        let recv = &mut recv[..self.count];
        if self.regular {
            rooted::scatter(comm, self.root, recv, &mut self.part);
            comm.all_gather_into(&self.part[..], recv);
        } else {
            self.blocks.scatterv(comm, self.root, recv, &mut self.part);
            self.blocks.allgatherv(comm, &self.part, recv);
        }
    }
}
