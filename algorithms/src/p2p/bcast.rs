//! `MPI_Bcast` on a binomial tree of `MPI_Send` and `MPI_Recv`.

use super::{tags, Tree};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Binomial broadcast: each process receives the vector from its parent,
/// then sends it to its children, the farthest first (as MPICH's
/// binomial broadcast does); ⌈log₂ p⌉
/// rounds, p − 1 messages.
pub struct Bcast {
    count: usize,
    tree: Tree,
}

impl Bcast {
    /// Prepares the broadcast of `count` elements from `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Bcast {
        let (size, rank) = (comm.size() as usize, comm.rank() as usize);
        Bcast {
            count,
            tree: Tree::of(size, root, rank),
        }
    }

    /// The root's `buf` into every other process's `buf`.
    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, buf: &mut [T]) {
        let buf = &mut buf[..self.count];
        if self.count == 0 {
            return;
        }
        if let Some(parent) = self.tree.parent {
            comm.process_at_rank(parent as i32)
                .receive_into_with_tag(&mut buf[..], tags::BCAST);
        }
        for child in &self.tree.children {
            comm.process_at_rank(child.rank as i32)
                .send_with_tag(&buf[..], tags::BCAST);
        }
    }
}
