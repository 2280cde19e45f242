//! Hierarchical inclusive scan: scan on every node, exclusive scan of the
//! node totals among the last processes of the nodes, bcast of that prefix
//! on every node but the first, and prefix ⊕ node scan on each process.

use super::{check_len, mpi_rank, nothing_to_move, scratch};
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
        let leader = topology.node_rank + 1 == topology.ppn;
        Scan {
            count,
            prefix: scratch(leader || topology.node_index > 0, count),
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
        let last = topology.ppn - 1;
        topology.node.scan_into(send, recv, op);
        if topology.node_rank == last {
            // The last process's node scan is its node's total.
            topology
                .lane
                .exclusive_scan_into(recv, &mut self.prefix[..], op);
        }
        // The first node has no prefix (exscan leaves it undefined there).
        if topology.node_index > 0 {
            topology
                .node
                .process_at_rank(mpi_rank(last))
                .broadcast_into(&mut self.prefix[..]);
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}
