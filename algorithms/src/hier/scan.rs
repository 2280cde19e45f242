//! Hierarchical inclusive scan: scan on every node, exclusive scan of the
//! node totals among the last processes of the nodes, bcast of that prefix
//! on every node but the first, and prefix ⊕ node scan on each process.

use super::{broadcast_earlier_nodes, check_len, earlier_nodes_scratch, nothing_to_move};
use crate::topology::Topology;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Scan` of vectors of `count` elements.
#[derive(Debug)]
pub struct Scan<T> {
    count: usize,
    /// The reduction of all earlier nodes' inputs.
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scan<T> {
    pub fn new(topology: &Topology, count: usize) -> Scan<T> {
        Scan {
            count,
            prefix: earlier_nodes_scratch(topology, count),
        }
    }

    /// Leaves the reduction with `op` of the `send` of ranks 0..=rank in `recv`.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        check_len("scan send", send.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        check_len("scan recv", recv.len(), self.count);
        topology.node.scan_into(send, recv, op);
        if topology.node_rank == topology.ppn - 1 {
            // The last process's node scan is its node's total.
            topology
                .lane
                .exclusive_scan_into(recv, &mut self.prefix[..], op);
        }
        if broadcast_earlier_nodes(topology, &mut self.prefix) {
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}
