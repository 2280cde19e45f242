//! Mock-ups of `MPI_Alltoall`: `send` holds p blocks of `count` elements,
//! block i for process i; `recv` receives block j from process j.

use crate::blocks::Blocks;
use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::traits::*;

/// `MPI_Alltoallv` with p equal blocks.
pub struct AsAlltoallv {
    blocks: Blocks,
}

impl AsAlltoallv {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AsAlltoallv {
        AsAlltoallv {
            blocks: Blocks::uniform(comm.size() as usize, count),
        }
    }

    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let (counts, displs) = (self.blocks.counts(), self.blocks.displs());
        let total = self.blocks.total();
        let send = Partition::new(&send[..total], counts, displs);
        let mut recv = PartitionMut::new(&mut recv[..total], counts, displs);
        comm.all_to_all_varcount_into(&send, &mut recv);
    }
}
