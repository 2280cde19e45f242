//! Lane exscan: exclusive scan on every node; the node totals, split over
//! the node, exclusive-scanned on every lane; the prefix of the previous
//! nodes allgathered on every node and combined with the node-local
//! exclusive scan.

use super::{allgatherv, scatterv, scratch, Blocks};
use crate::topology::Topology;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Lane `MPI_Exscan` of `count` elements.
pub struct Exscan<T> {
    count: usize,
    blocks: Blocks,
    /// The node's total (last process of the node only).
    node_total: Vec<T>,
    /// This process's block of its node's total.
    node_total_block: Vec<T>,
    /// This process's block of the total of all previous nodes.
    before_node: Vec<T>,
    /// The total of all previous nodes (not on the first node, and not on
    /// the first process of a node, which receives it in `recv`).
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Exscan<T> {
    /// Prepares the exclusive scan; not collective.
    pub fn new(topology: &Topology, count: usize) -> Exscan<T> {
        let blocks = Blocks::new(count, topology.ppn);
        let mine = blocks.counts[topology.node_rank];
        let is_last = topology.node_rank == topology.ppn - 1;
        let needs_prefix = topology.node_index > 0 && topology.node_rank > 0;
        Exscan {
            count,
            blocks,
            node_total: scratch(if is_last { count } else { 0 }),
            node_total_block: scratch(mine),
            before_node: scratch(mine),
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
        scatterv(
            &topology.node,
            last,
            &self.node_total,
            &self.blocks,
            &mut self.node_total_block,
        );
        topology.lane.exclusive_scan_into(
            &self.node_total_block[..],
            &mut self.before_node[..],
            op,
        );
        if topology.node_index == 0 {
            return;
        }
        if topology.node_rank == 0 {
            allgatherv(&topology.node, &self.before_node, &self.blocks, recv);
        } else {
            allgatherv(
                &topology.node,
                &self.before_node,
                &self.blocks,
                &mut self.prefix,
            );
            // Previous nodes first: recv = prefix ⊕ node-local exclusive scan.
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}
