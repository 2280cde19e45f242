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

/// `MPI_Allgather` of the root's p blocks, then a copy of this process's
/// block of them (Träff, Gropp & Thakur's rule (8): Scatter ⪯ Allgather).
///
/// The rule is an instance of the paper's metarule that a specialised
/// collective is not slower than a more general one. For an allgather to
/// do a scatter's work, the root's data must reach every process: each
/// needs its own block of the root's p, and what an allgather spreads is
/// each process's contribution, whole, to everyone. So the root
/// contributes its whole `send`, p blocks, and since every contribution to
/// `MPI_Allgather` has the same length, so does every other process (p
/// blocks of scratch, never read); each receives p × p blocks and keeps
/// block `rank` of the root's contribution. No allgather of one block per
/// process can deliver p different blocks from one process, so this is
/// the rule with the root's pn elements in the allgather, as the paper's
/// rule (11) has Scatter(n) ⪯ Bcast(pn). It holds p² + p blocks of
/// scratch, which pgcheck's memory plan counts.
pub struct AsAllgather<T> {
    root: usize,
    count: usize,
    /// What a process other than the root contributes (empty on the root,
    /// which contributes `send`).
    filler: Vec<T>,
    /// Every process's contribution: p × p blocks.
    gathered: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AsAllgather<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> AsAllgather<T> {
        let size = comm.size() as usize;
        let is_root = comm.rank() as usize == root;
        AsAllgather {
            root,
            count,
            filler: scratch(if is_root { 0 } else { size * count }),
            gathered: scratch(size * size * count),
        }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let (rank, size) = (comm.rank() as usize, comm.size() as usize);
        let whole = size * self.count;
        let mine: &[T] = if rank == self.root {
            &send[..whole]
        } else {
            &self.filler
        };
        comm.all_gather_into(mine, &mut self.gathered[..]);
        let own = self.root * whole + rank * self.count;
        recv[..self.count].copy_from_slice(&self.gathered[own..own + self.count]);
    }
}
