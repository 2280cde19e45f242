//! Hierarchical allgather: gather on every node to node rank 0, allgather
//! of the node blocks among the leaders, bcast of the result on every node.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Allgather` of `count` elements per process.
#[derive(Debug)]
pub struct Allgather<T> {
    count: usize,
    /// The leader's node block: its node's `ppn` blocks in node-rank order.
    node_blocks: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Allgather<T> {
    pub fn new(topology: &Topology, count: usize) -> Allgather<T> {
        Allgather {
            count,
            node_blocks: scratch(topology.node_rank == 0, topology.ppn * count),
        }
    }

    /// Gathers every process's `send` block into `recv` in rank order.
    pub fn run(&mut self, topology: &Topology, send: &[T], recv: &mut [T]) {
        check_len("allgather send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        check_len(
            "allgather recv",
            recv.len(),
            topology.nodes * topology.ppn * self.count,
        );
        let node_leader = topology.node.process_at_rank(0);
        if topology.node_rank == 0 {
            node_leader.gather_into_root(send, &mut self.node_blocks[..]);
            topology.lane.all_gather_into(&self.node_blocks[..], recv);
        } else {
            node_leader.gather_into(send);
        }
        node_leader.broadcast_into(recv);
    }
}
