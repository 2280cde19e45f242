//! Lane scatter: a local reorder on the root, scatter of every lane's
//! blocks over the root's node, and scatter on every lane from the root's
//! node.

use super::{root_scratch, to_lane_order};
use crate::topology::{RootPlace, Topology};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Scatter` of `count` elements per process from `root`.
pub struct Scatter<T> {
    count: usize,
    root: RootPlace,
    /// All blocks, by node rank, then node (root only).
    by_node_rank: Vec<T>,
    /// The blocks of this process's lane, by node (root's node only).
    lane_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scatter<T> {
    /// Prepares the scatter; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Scatter<T> {
        let root = topology.root_place(root);
        let (lane_blocks, by_node_rank) = root_scratch(topology, &root, count);
        Scatter {
            count,
            root,
            by_node_rank,
            lane_blocks,
        }
    }

    /// Scatters the root's `send` (read on the root only), block i to
    /// process i's `recv`.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        assert_eq!(recv.len(), self.count, "recv length");
        let lane_root = self.root.lane_root(topology);
        if !self.root.on_root_node {
            lane_root.scatter_into(recv);
            return;
        }
        let node_root = self.root.node_root(topology);
        if self.root.is_root {
            assert_eq!(send.len(), self.by_node_rank.len(), "send length");
            to_lane_order(topology, send, &mut self.by_node_rank, self.count);
            node_root.scatter_into_root(&self.by_node_rank[..], &mut self.lane_blocks[..]);
        } else {
            node_root.scatter_into(&mut self.lane_blocks[..]);
        }
        lane_root.scatter_into_root(&self.lane_blocks[..], recv);
    }
}
