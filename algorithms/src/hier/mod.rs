//! Hierarchical (leader-based) decompositions of MPI collectives, as in
//! Träff & Hunold, "Decomposing MPI Collectives for Exploiting Multi-lane
//! Communication" (CLUSTER 2020): a step on each node, a step among one
//! leader per node on a lane communicator, and a step on each node again.
//!
//! The leaders are the processes with one node rank:
//! - rooted collectives (bcast, gather, scatter, reduce): the root's node
//!   rank (those on the root's lane, [`on_root_lane`](crate::topology::RootPlace::on_root_lane)), so the
//!   root itself is a leader and needs no extra hop;
//! - allgather, allreduce, reduce_scatter_block: node rank 0;
//! - scan, exscan: the last node rank, which holds the node's total.
//!
//! All need a regular topology (rank = node · ppn + node rank), which
//! [`Topology::new`](crate::topology::Topology::new) guarantees, so node
//! blocks are contiguous in rank order and no `-v` collective is needed.
//! Reductions combine contributions in rank order (node by node, then
//! across nodes in node order). Each struct is prepared once with `new`
//! (which allocates the leaders' scratch) and run many times with `run`
//! (which allocates nothing).

mod allgather;
mod allreduce;
mod bcast;
mod exscan;
mod gather;
mod reduce;
mod reduce_scatter_block;
mod scan;
mod scatter;

pub use allgather::Allgather;
pub use allreduce::Allreduce;
pub use bcast::Bcast;
pub use exscan::Exscan;
pub use gather::Gather;
pub use reduce::Reduce;
pub use reduce_scatter_block::ReduceScatterBlock;
pub use scan::Scan;
pub use scatter::Scatter;

use crate::topology::Topology;
use mpi::datatype::Equivalence;
use mpi::traits::*;
use mpi::Rank;

/// A rank as MPI's `int`.
fn mpi_rank(rank: usize) -> Rank {
    Rank::try_from(rank).expect("rank fits an MPI int")
}

/// Scratch of `len` elements, or none when `needed` is false; never an
/// empty Vec's dangling address (see `mockups::scratch`).
fn scratch<T: Copy + Default>(needed: bool, len: usize) -> Vec<T> {
    mockups::scratch::scratch(if needed { len } else { 0 })
}

/// Scratch for the total of all earlier nodes in scan and exscan: on the
/// last process of every node, which computes it, and on every process of
/// the other nodes but the first, which receive it.
fn earlier_nodes_scratch<T: Copy + Default>(topology: &Topology, count: usize) -> Vec<T> {
    let last = topology.node_rank + 1 == topology.ppn;
    scratch(last || topology.node_index > 0, count)
}

/// Broadcasts `prefix`, the total of all earlier nodes, from the node's last
/// process over the node; returns whether there is one (not on the first
/// node, where exscan leaves it undefined).
fn broadcast_earlier_nodes<T: Equivalence>(topology: &Topology, prefix: &mut [T]) -> bool {
    let earlier = topology.node_index > 0;
    if earlier {
        topology
            .node
            .process_at_rank(mpi_rank(topology.ppn - 1))
            .broadcast_into(prefix);
    }
    earlier
}

/// Panics unless a buffer has the length the collective was prepared for.
fn check_len(what: &str, actual: usize, expected: usize) {
    assert_eq!(actual, expected, "hier: {what} buffer length");
}

/// Whether a call has no data, so every step can be skipped. This also keeps
/// empty buffers away from MPI: the dangling pointer of an empty `[u8]` is
/// 0x1, which Open MPI takes for `MPI_IN_PLACE` (MPI_Bcast then fails).
fn nothing_to_move(count: usize) -> bool {
    count == 0
}
