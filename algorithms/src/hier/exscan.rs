//! Hierarchical exclusive scan: exclusive scan on every node, exclusive scan
//! of the node totals among the last processes of the nodes, bcast of that
//! prefix on every node but the first, and prefix ⊕ node exscan on each
//! process (the prefix alone on node rank 0, whose node exscan is undefined).

use super::{broadcast_earlier_nodes, check_len, earlier_nodes_scratch, nothing_to_move, scratch};
use crate::topology::Topology;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Exscan` of vectors of `count` elements.
#[derive(Debug)]
pub struct Exscan<T> {
    count: usize,
    /// The last process's node total: its node exscan ⊕ its own input.
    node_total: Vec<T>,
    /// The reduction of all earlier nodes' inputs.
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Exscan<T> {
    pub fn new(topology: &Topology, count: usize) -> Exscan<T> {
        let last = topology.node_rank + 1 == topology.ppn;
        Exscan {
            count,
            node_total: scratch(last, count),
            prefix: earlier_nodes_scratch(topology, count),
        }
    }

    /// Leaves the reduction with `op` of the `send` of ranks 0..rank in
    /// `recv`; rank 0's `recv` is undefined afterwards, as in MPI.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        check_len("exscan send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        check_len("exscan recv", recv.len(), self.count);
        let last = topology.ppn - 1;
        // On a node of one the node exscan defines nothing.
        let node_exscan = topology.ppn > 1;
        if node_exscan {
            topology.node.exclusive_scan_into(send, recv, op);
        }
        if topology.node_rank == last {
            self.node_total.copy_from_slice(send);
            if node_exscan {
                reduce_local_into(recv, &mut self.node_total[..], op);
            }
            topology
                .lane
                .exclusive_scan_into(&self.node_total[..], &mut self.prefix[..], op);
        }
        if broadcast_earlier_nodes(topology, &mut self.prefix) {
            if topology.node_rank == 0 {
                recv.copy_from_slice(&self.prefix);
            } else {
                reduce_local_into(&self.prefix[..], recv, op);
            }
        }
    }
}
