//! Lane allreduce: irregular reduce-scatter on every node, allreduce of
//! every block on its lane, allgather on every node.

use super::{node_blocks, scratch};
use crate::topology::Topology;
use mockups::blocks::Blocks;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Allreduce` of `count` elements.
pub struct Allreduce<T> {
    count: usize,
    blocks: Blocks,
    /// This process's block reduced over its node.
    node_reduced: Vec<T>,
    /// This process's block reduced over all processes.
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Allreduce<T> {
    /// Prepares the allreduce; not collective.
    pub fn new(topology: &Topology, count: usize) -> Allreduce<T> {
        let (blocks, mine) = node_blocks(topology, count);
        Allreduce {
            count,
            blocks,
            node_reduced: scratch(mine),
            reduced: scratch(mine),
        }
    }

    /// Reduces every process's `send` with `op` into every process's `recv`.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), self.count, "recv length");
        let node = &topology.node;
        self.blocks
            .reduce_scatter(node, send, &mut self.node_reduced, op);
        topology
            .lane
            .all_reduce_into(&self.node_reduced[..], &mut self.reduced[..], op);
        self.blocks.allgatherv(node, &self.reduced, recv);
    }
}
