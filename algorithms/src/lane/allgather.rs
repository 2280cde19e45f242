//! Lane allgather: allgather on every lane, allgather of the lane's blocks
//! on every node, and a local reorder into rank order.

use super::{scratch, to_rank_order};
use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Allgather` of `count` elements per process.
pub struct Allgather<T> {
    count: usize,
    /// The blocks of this process's lane, by node.
    lane_blocks: Vec<T>,
    /// All blocks, by node rank, then node.
    by_node_rank: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Allgather<T> {
    /// Prepares the allgather; not collective.
    pub fn new(topology: &Topology, count: usize) -> Allgather<T> {
        let lane_len = topology.nodes * count;
        Allgather {
            count,
            lane_blocks: scratch(lane_len),
            by_node_rank: scratch(topology.ppn * lane_len),
        }
    }

    /// Gathers every process's `send` into every process's `recv`, in rank
    /// order.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), self.by_node_rank.len(), "recv length");
        topology
            .lane
            .all_gather_into(send, &mut self.lane_blocks[..]);
        topology
            .node
            .all_gather_into(&self.lane_blocks[..], &mut self.by_node_rank[..]);
        to_rank_order(topology, &self.by_node_rank, recv, self.count);
    }
}
