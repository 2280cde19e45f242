//! Lane scatter: a local reorder on the root, scatter of every lane's
//! blocks over the root's node, and scatter on every lane from the root's
//! node.

use super::{scratch, to_lane_order};
use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Scatter` of `count` elements per process from `root`.
pub struct Scatter<T> {
    count: usize,
    root_node: usize,
    root_node_rank: usize,
    /// All blocks, by node rank, then node (root only).
    by_node_rank: Vec<T>,
    /// The blocks of this process's lane, by node (root's node only).
    lane_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scatter<T> {
    /// Prepares the scatter; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Scatter<T> {
        let root_node = topology.node_of(root);
        let root_node_rank = topology.node_rank_of(root);
        let on_root_node = topology.node_index == root_node;
        let is_root = on_root_node && topology.node_rank == root_node_rank;
        let lane_len = topology.nodes * count;
        Scatter {
            count,
            root_node,
            root_node_rank,
            by_node_rank: scratch(if is_root { topology.ppn * lane_len } else { 0 }),
            lane_blocks: scratch(if on_root_node { lane_len } else { 0 }),
        }
    }

    /// Scatters the root's `send` (read on the root only), block i to
    /// process i's `recv`.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        assert_eq!(recv.len(), self.count, "recv length");
        let lane_root = topology.lane.process_at_rank(self.root_node as i32);
        if topology.node_index != self.root_node {
            lane_root.scatter_into(recv);
            return;
        }
        let node_root = topology.node.process_at_rank(self.root_node_rank as i32);
        if topology.node_rank == self.root_node_rank {
            assert_eq!(send.len(), self.by_node_rank.len(), "send length");
            to_lane_order(topology, send, &mut self.by_node_rank, self.count);
            node_root.scatter_into_root(&self.by_node_rank[..], &mut self.lane_blocks[..]);
        } else {
            node_root.scatter_into(&mut self.lane_blocks[..]);
        }
        lane_root.scatter_into_root(&self.lane_blocks[..], recv);
    }
}
