//! Lane gather: gather on every lane to the root's node, gather of the
//! lanes' blocks to the root on its node, and a local reorder into rank
//! order on the root.

use super::{scratch, to_rank_order};
use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Gather` of `count` elements per process to `root`.
pub struct Gather<T> {
    count: usize,
    root_node: usize,
    root_node_rank: usize,
    /// The blocks of this process's lane, by node (root's node only).
    lane_blocks: Vec<T>,
    /// All blocks, by node rank, then node (root only).
    by_node_rank: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Gather<T> {
    /// Prepares the gather; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Gather<T> {
        let root_node = topology.node_of(root);
        let root_node_rank = topology.node_rank_of(root);
        let on_root_node = topology.node_index == root_node;
        let is_root = on_root_node && topology.node_rank == root_node_rank;
        let lane_len = topology.nodes * count;
        Gather {
            count,
            root_node,
            root_node_rank,
            lane_blocks: scratch(if on_root_node { lane_len } else { 0 }),
            by_node_rank: scratch(if is_root { topology.ppn * lane_len } else { 0 }),
        }
    }

    /// Gathers every process's `send` into the root's `recv`, in rank order;
    /// `recv` is not touched elsewhere.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        assert_eq!(send.len(), self.count, "send length");
        let lane_root = topology.lane.process_at_rank(self.root_node as i32);
        if topology.node_index != self.root_node {
            lane_root.gather_into(send);
            return;
        }
        lane_root.gather_into_root(send, &mut self.lane_blocks[..]);
        let node_root = topology.node.process_at_rank(self.root_node_rank as i32);
        if topology.node_rank != self.root_node_rank {
            node_root.gather_into(&self.lane_blocks[..]);
            return;
        }
        assert_eq!(recv.len(), self.by_node_rank.len(), "recv length");
        node_root.gather_into_root(&self.lane_blocks[..], &mut self.by_node_rank[..]);
        to_rank_order(topology, &self.by_node_rank, recv, self.count);
    }
}
