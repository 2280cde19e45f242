//! Lane reduce: irregular reduce-scatter on every node, reduce of every
//! block on its lane to the root's node, gather to the root on its node.

use super::{node_blocks, scratch};
use crate::topology::{RootPlace, Topology};
use mockups::blocks::Blocks;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Reduce` of `count` elements to `root`.
pub struct Reduce<T> {
    count: usize,
    blocks: Blocks,
    root: RootPlace,
    /// This process's block reduced over its node.
    node_reduced: Vec<T>,
    /// This process's block reduced over all processes (root's node only).
    reduced: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Reduce<T> {
    /// Prepares the reduce; not collective.
    pub fn new(topology: &Topology, count: usize, root: usize) -> Reduce<T> {
        let (blocks, mine) = node_blocks(topology, count);
        let root = topology.root_place(root);
        Reduce {
            count,
            blocks,
            root,
            node_reduced: scratch(mine),
            reduced: scratch(if root.on_root_node { mine } else { 0 }),
        }
    }

    /// Reduces every process's `send` with `op` into the root's `recv`;
    /// `recv` is not touched elsewhere.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        assert_eq!(send.len(), self.count, "send length");
        let node = &topology.node;
        self.blocks
            .reduce_scatter(node, send, &mut self.node_reduced, op);
        let lane_root = self.root.lane_root(topology);
        if self.root.on_root_node {
            lane_root.reduce_into_root(&self.node_reduced[..], &mut self.reduced[..], op);
            self.blocks
                .gatherv(node, self.root.node_rank, &self.reduced, recv);
        } else {
            lane_root.reduce_into(&self.node_reduced[..], op);
        }
    }
}
