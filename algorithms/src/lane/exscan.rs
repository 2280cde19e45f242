//! Lane exscan: exclusive scan on every node; the node totals, split over
//! the node, exclusive-scanned on every lane; the prefix of the previous
//! nodes allgathered on every node and combined with the node-local
//! exclusive scan.

use super::{scratch, PreviousNodes};
use crate::topology::Topology;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Exscan` of `count` elements.
pub struct Exscan<T> {
    count: usize,
    /// The node's total (last process of the node only).
    node_total: Vec<T>,
    previous: PreviousNodes<T>,
    /// The total of all previous nodes (not on the first node, and not on
    /// the first process of a node, which receives it in `recv`).
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Exscan<T> {
    /// Prepares the exclusive scan; not collective.
    pub fn new(topology: &Topology, count: usize) -> Exscan<T> {
        let is_last = topology.node_rank == topology.ppn - 1;
        let needs_prefix = topology.node_index > 0 && topology.node_rank > 0;
        Exscan {
            count,
            node_total: scratch(if is_last { count } else { 0 }),
            previous: PreviousNodes::new(topology, count),
            prefix: scratch(if needs_prefix { count } else { 0 }),
        }
    }

    /// Leaves in `recv` of process r > 0 the reduction with `op` of `send`
    /// of processes 0..r, in rank order; `recv` of process 0 is undefined.
    pub fn run<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        send: &[T],
        recv: &mut [T],
        op: O,
    ) {
        assert_eq!(send.len(), self.count, "send length");
        assert_eq!(recv.len(), self.count, "recv length");
        topology.node.exclusive_scan_into(send, recv, op);
        let last = topology.ppn - 1;
        if topology.node_rank == last {
            // node total = node-local exclusive scan ⊕ own input
            self.node_total.copy_from_slice(send);
            if last > 0 {
                reduce_local_into(&recv[..], &mut self.node_total[..], op);
            }
        }
        if topology.node_rank == 0 {
            // Its node-local exclusive scan is undefined: the prefix alone
            // is its result.
            self.previous.total(topology, &self.node_total, recv, op);
        } else if self
            .previous
            .total(topology, &self.node_total, &mut self.prefix, op)
        {
            // Previous nodes first: recv = prefix ⊕ node-local exclusive scan.
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}
