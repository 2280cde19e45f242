//! Lane gather: gather on every lane to the root's node, gather of the
//! lanes' blocks to the root on its node, and a local reorder into rank
//! order on the root.

use super::{root_scratch, to_rank_order};
use crate::topology::{RootPlace, Topology};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Gather` of `count` elements per process to `root`.
pub struct Gather<T> {
    count: usize,
    root: RootPlace,
    /// The blocks of this process's lane, by node (root's node only).
    lane_blocks: Vec<T>,
    /// All blocks, by node rank, then node (root only).
    by_node_rank: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Gather<T> {
    /// Prepares the gather; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Gather<T> {
        let root = topology.root_place(root);
        let (lane_blocks, by_node_rank) = root_scratch(topology, &root, count);
        Gather {
            count,
            root,
            lane_blocks,
            by_node_rank,
        }
    }

    /// Gathers every process's `send` into the root's `recv`, in rank order;
    /// `recv` is not touched elsewhere.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        assert_eq!(send.len(), self.count, "send length");
        let lane_root = self.root.lane_root(topology);
        if !self.root.on_root_node {
            lane_root.gather_into(send);
            return;
        }
        lane_root.gather_into_root(send, &mut self.lane_blocks[..]);
        let node_root = self.root.node_root(topology);
        if !self.root.is_root {
            node_root.gather_into(&self.lane_blocks[..]);
            return;
        }
        assert_eq!(recv.len(), self.by_node_rank.len(), "recv length");
        node_root.gather_into_root(&self.lane_blocks[..], &mut self.by_node_rank[..]);
        to_rank_order(topology, &self.by_node_rank, recv, self.count);
    }
}
