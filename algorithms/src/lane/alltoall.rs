//! Lane alltoall: alltoall on every lane (each node's blocks travel
//! together), a local reorder, alltoall on every node, and a local reorder
//! into rank order.

use super::{scratch, to_lane_order, to_rank_order};
use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Alltoall` of `count` elements per pair of processes.
pub struct Alltoall<T> {
    count: usize,
    /// Blocks by source node, then destination node rank; later by source
    /// node rank, then source node.
    received: Vec<T>,
    /// Blocks by destination node rank, then source node.
    by_node_rank: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Alltoall<T> {
    /// Prepares the alltoall; not collective.
    pub fn new(topology: &Topology, count: usize) -> Alltoall<T> {
        let len = topology.nodes * topology.ppn * count;
        Alltoall {
            count,
            received: scratch(len),
            by_node_rank: scratch(len),
        }
    }

    /// Sends block i of every process's `send` to block j of process i's
    /// `recv`, where j is the sender.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        let count = self.count;
        assert_eq!(send.len(), self.received.len(), "send length");
        assert_eq!(recv.len(), self.received.len(), "recv length");
        // Blocks for the processes of one node are contiguous in `send`.
        topology.lane.all_to_all_into(send, &mut self.received[..]);
        // (source node, destination node rank) to lane order.
        to_lane_order(topology, &self.received, &mut self.by_node_rank, count);
        topology
            .node
            .all_to_all_into(&self.by_node_rank[..], &mut self.received[..]);
        // (source node rank, source node) back to rank order.
        to_rank_order(topology, &self.received, recv, count);
    }
}
