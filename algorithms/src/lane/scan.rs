//! Lane scan: scan on every node; the node totals, split over the node,
//! exclusive-scanned on every lane; the prefix of the previous nodes
//! allgathered on every node and combined with the node-local scan.

use super::{scratch, PreviousNodes};
use crate::topology::Topology;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Scan` of `count` elements.
pub struct Scan<T> {
    count: usize,
    previous: PreviousNodes<T>,
    /// The total of all previous nodes (not on the first node).
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scan<T> {
    /// Prepares the scan; not collective.
    pub fn new(topology: &Topology, count: usize) -> Scan<T> {
        let prefix_len = if topology.node_index > 0 { count } else { 0 };
        Scan {
            count,
            previous: PreviousNodes::new(topology, count),
            prefix: scratch(prefix_len),
        }
    }

    /// Leaves in `recv` of process r the reduction with `op` of `send` of
    /// processes 0..=r, in rank order.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), self.count, "recv length");
        topology.node.scan_into(send, recv, op);
        // The last process of the node holds the node's total.
        if self.previous.total(topology, recv, &mut self.prefix, op) {
            // Previous nodes first: recv = prefix ⊕ node-local scan.
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}
