//! Lane reduce-scatter-block: a local reorder, reduce-scatter on every node
//! (each process gets its lane's blocks reduced over the node), and
//! reduce-scatter on every lane.

use super::{scratch, to_lane_order};
use crate::topology::Topology;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Reduce_scatter_block` of `count` elements per process.
pub struct ReduceScatterBlock<T> {
    count: usize,
    /// `send`'s blocks by node rank, then node.
    by_node_rank: Vec<T>,
    /// The blocks of this process's lane reduced over its node, by node.
    lane_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterBlock<T> {
    /// Prepares the reduce-scatter; not collective.
    pub fn new(topology: &Topology, count: usize) -> ReduceScatterBlock<T> {
        let lane_len = topology.nodes * count;
        ReduceScatterBlock {
            count,
            by_node_rank: scratch(topology.ppn * lane_len),
            lane_blocks: scratch(lane_len),
        }
    }

    /// Reduces every process's `send` with `op` and leaves block i of the
    /// result in process i's `recv`.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        assert_eq!(send.len(), self.by_node_rank.len(), "send length");
        assert_eq!(recv.len(), self.count, "recv length");
        to_lane_order(topology, send, &mut self.by_node_rank, self.count);
        // Node first: the lanes then carry a ppn-th of the data, and the
        // combination stays in rank order.
        topology.node.reduce_scatter_block_into(
            &self.by_node_rank[..],
            &mut self.lane_blocks[..],
            op,
        );
        topology
            .lane
            .reduce_scatter_block_into(&self.lane_blocks[..], recv, op);
    }
}
