//! Mock-ups of `MPI_Scatter`: the root's `send` holds p blocks of `count`
//! elements; process i receives block i into `recv`. Other processes'
//! `send` is not used.

use crate::blocks::Blocks;
use crate::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Bcast` of all p blocks into scratch, then a copy of this process's
/// block (Träff, Gropp, Thakur's rule (11): Scatter(n) ⪯ Bcast(pn)).
pub struct AsBcast<T> {
    root: usize,
    count: usize,
    /// The broadcast buffer; the root copies `send` into it, since
    /// `MPI_Bcast` takes one buffer that is written on the other processes.
    whole: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsBcast<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsBcast<T> {
        AsBcast {
            root,
            count,
            whole: scratch(comm.size() as usize * count),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let rank = comm.rank() as usize;
        if rank == self.root {
            let total = self.whole.len();
            self.whole.copy_from_slice(&send[..total]);
        }
        comm.process_at_rank(self.root as i32)
            .broadcast_into(&mut self.whole[..]);
        let own = rank * self.count;
        recv[..self.count].copy_from_slice(&self.whole[own..own + self.count]);
    }
}

/// `MPI_Scatterv` with p equal blocks.
pub struct AsScatterv {
    root: usize,
    count: usize,
    blocks: Blocks,
}

impl AsScatterv {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsScatterv {
        AsScatterv {
            root,
            count,
            blocks: Blocks::uniform(comm.size() as usize, count),
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        self.blocks
            .scatterv(comm, self.root, send, &mut recv[..self.count]);
    }
}
