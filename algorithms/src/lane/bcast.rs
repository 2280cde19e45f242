//! Lane broadcast: scatter on the root's node, broadcast of every block on
//! its lane, allgather on every node.

use super::{node_blocks, scratch};
use crate::topology::Topology;
use mockups::blocks::Blocks;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Bcast` of `count` elements from `root`.
pub struct Bcast<T> {
    count: usize,
    blocks: Blocks,
    root_node: usize,
    root_node_rank: usize,
    /// This process's block, which travels along its lane.
    block: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Bcast<T> {
    /// Prepares the broadcast; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Bcast<T> {
        let (blocks, mine) = node_blocks(topology, count);
        Bcast {
            count,
            blocks,
            root_node: topology.node_of(root),
            root_node_rank: topology.node_rank_of(root),
            block: scratch(mine),
        }
    }

    /// Broadcasts the root's `buffer` into every process's `buffer`.
    pub fn run(&mut self, topology: &Topology, buffer: &mut [T]) {
        assert_eq!(buffer.len(), self.count, "buffer length");
        if topology.node_index == self.root_node {
            self.blocks
                .scatterv(&topology.node, self.root_node_rank, buffer, &mut self.block);
        }
        topology
            .lane
            .process_at_rank(self.root_node as i32)
            .broadcast_into(&mut self.block[..]);
        self.blocks.allgatherv(&topology.node, &self.block, buffer);
    }
}
