//! Lane broadcast: scatter on the root's node, broadcast of every block on
//! its lane, allgather on every node.

use super::{node_blocks, scratch};
use crate::topology::{RootPlace, Topology};
use mockups::blocks::Blocks;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Bcast` of `count` elements from `root`.
pub struct Bcast<T> {
    count: usize,
    blocks: Blocks,
    root: RootPlace,
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
            root: topology.root_place(root),
            block: scratch(mine),
        }
    }

    /// Broadcasts the root's `buffer` into every process's `buffer`.
    pub fn run(&mut self, topology: &Topology, buffer: &mut [T]) {
        assert_eq!(buffer.len(), self.count, "buffer length");
        if self.root.on_root_node {
            self.blocks
                .scatterv(&topology.node, self.root.node_rank, buffer, &mut self.block);
        }
        self.root
            .lane_root(topology)
            .broadcast_into(&mut self.block[..]);
        self.blocks.allgatherv(&topology.node, &self.block, buffer);
    }
}
