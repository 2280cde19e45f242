//! Hierarchical reduce: reduce on every node to the process with the root's
//! node rank, then reduce of the node results among those leaders to the root.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::{RootPlace, Topology};
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Reduce` of vectors of `count` elements to `root`.
#[derive(Debug)]
pub struct Reduce<T> {
    count: usize,
    root: RootPlace,
    /// The leader's node result.
    node_result: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Reduce<T> {
    pub fn new(topology: &Topology, count: usize, root: usize) -> Reduce<T> {
        let root = topology.root_place(root);
        Reduce {
            count,
            root,
            node_result: scratch(root.on_root_lane, count),
        }
    }

    /// Reduces every process's `send` with `op` into the root's `recv`;
    /// `recv` is not used on the other processes.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        check_len("reduce send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        let node_leader = self.root.node_root(topology);
        if !self.root.on_root_lane {
            node_leader.reduce_into(send, op);
            return;
        }
        node_leader.reduce_into_root(send, &mut self.node_result[..], op);
        let lane_root = self.root.lane_root(topology);
        if self.root.is_root {
            check_len("reduce recv", recv.len(), self.count);
            lane_root.reduce_into_root(&self.node_result[..], recv, op);
        } else {
            lane_root.reduce_into(&self.node_result[..], op);
        }
    }
}
