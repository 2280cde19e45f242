//! Hierarchical allreduce: reduce on every node to node rank 0, allreduce
//! of the node results among the leaders, bcast of the result on every node.

use super::{check_len, nothing_to_move, scratch};
use crate::topology::Topology;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Allreduce` of vectors of `count` elements.
#[derive(Debug)]
pub struct Allreduce<T> {
    count: usize,
    /// The leader's node result.
    node_result: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Allreduce<T> {
    pub fn new(topology: &Topology, count: usize) -> Allreduce<T> {
        Allreduce {
            count,
            node_result: scratch(topology.node_rank == 0, count),
        }
    }

    /// Reduces every process's `send` with `op` into every `recv`.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        check_len("allreduce send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        check_len("allreduce recv", recv.len(), self.count);
        let node_leader = topology.node.process_at_rank(0);
        if topology.node_rank == 0 {
            node_leader.reduce_into_root(send, &mut self.node_result[..], op);
            topology
                .lane
                .all_reduce_into(&self.node_result[..], recv, op);
        } else {
            node_leader.reduce_into(send, op);
        }
        node_leader.broadcast_into(recv);
    }
}
