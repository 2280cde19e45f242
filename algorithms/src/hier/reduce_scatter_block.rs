//! Hierarchical reduce-scatter-block: reduce of the whole vector on every
//! node to node rank 0, reduce-scatter of node parts among the leaders, then
//! scatter of each node's part on the node.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::Topology;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Reduce_scatter_block` with `count` elements per process.
#[derive(Debug)]
pub struct ReduceScatterBlock<T> {
    count: usize,
    /// The leader's node result: the whole vector reduced over its node.
    node_result: Vec<T>,
    /// The leader's part of the global result: its node's `ppn` blocks.
    node_part: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterBlock<T> {
    pub fn new(topology: &Topology, count: usize) -> ReduceScatterBlock<T> {
        let leader = topology.node_rank == 0;
        let node_part_len = topology.ppn * count;
        ReduceScatterBlock {
            count,
            node_result: scratch(leader, topology.nodes * node_part_len),
            node_part: scratch(leader, node_part_len),
        }
    }

    /// Reduces every process's `send` (one block per rank) with `op` and
    /// leaves block i of the result in rank i's `recv`.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        check_len(
            "reduce_scatter_block send",
            send.len(),
            topology.nodes * topology.ppn * self.count,
        );
        if nothing_to_move(self.count) {
            return;
        }
        check_len("reduce_scatter_block recv", recv.len(), self.count);
        let node_leader = topology.node.process_at_rank(0);
        if topology.node_rank == 0 {
            node_leader.reduce_into_root(send, &mut self.node_result[..], op);
            topology.lane.reduce_scatter_block_into(
                &self.node_result[..],
                &mut self.node_part[..],
                op,
            );
            node_leader.scatter_into_root(&self.node_part[..], recv);
        } else {
            node_leader.reduce_into(send, op);
            node_leader.scatter_into(recv);
        }
    }
}
