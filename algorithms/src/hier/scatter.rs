//! Hierarchical scatter: scatter of node blocks from the root to the
//! processes with the root's node rank, then scatter on every node from them.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::{RootPlace, Topology};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Scatter` of `count` elements per process from `root`.
#[derive(Debug)]
pub struct Scatter<T> {
    count: usize,
    root: RootPlace,
    /// The leader's node block: its node's `ppn` blocks in node-rank order.
    node_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scatter<T> {
    pub fn new(topology: &Topology, count: usize, root: usize) -> Scatter<T> {
        let root = topology.root_place(root);
        Scatter {
            count,
            root,
            node_blocks: scratch(root.on_root_lane, topology.ppn * count),
        }
    }

    /// Scatters the root's `send` (one block per rank) into every `recv`;
    /// `send` is not used on the other processes.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        check_len("scatter recv", recv.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        let node_leader = self.root.node_root(topology);
        if !self.root.on_root_lane {
            node_leader.scatter_into(recv);
            return;
        }
        let lane_root = self.root.lane_root(topology);
        if self.root.is_root {
            check_len(
                "scatter send",
                send.len(),
                topology.nodes * topology.ppn * self.count,
            );
            lane_root.scatter_into_root(send, &mut self.node_blocks[..]);
        } else {
            lane_root.scatter_into(&mut self.node_blocks[..]);
        }
        node_leader.scatter_into_root(&self.node_blocks[..], recv);
    }
}
