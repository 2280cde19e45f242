//! Hierarchical gather: gather on every node to the process with the root's
//! node rank, then gather of the node blocks among those leaders to the root.
//! Blocks land in rank order because rank = node · ppn + node rank.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::{RootPlace, Topology};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Gather` of `count` elements per process to `root`.
#[derive(Debug)]
pub struct Gather<T> {
    count: usize,
    root: RootPlace,
    /// The leader's node block: its node's `ppn` blocks in node-rank order.
    node_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Gather<T> {
    pub fn new(topology: &Topology, count: usize, root: usize) -> Gather<T> {
        let root = topology.root_place(root);
        Gather {
            count,
            root,
            node_blocks: scratch(root.on_root_lane, topology.ppn * count),
        }
    }

    /// Gathers every process's `send` block into the root's `recv`; `recv`
    /// is not used on the other processes.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        check_len("gather send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        let node_leader = self.root.node_root(topology);
        if !self.root.on_root_lane {
            node_leader.gather_into(send);
            return;
        }
        node_leader.gather_into_root(send, &mut self.node_blocks[..]);
        let lane_root = self.root.lane_root(topology);
        if self.root.is_root {
            check_len(
                "gather recv",
                recv.len(),
                topology.nodes * topology.ppn * self.count,
            );
            lane_root.gather_into_root(&self.node_blocks[..], recv);
        } else {
            lane_root.gather_into(&self.node_blocks[..]);
        }
    }
}
