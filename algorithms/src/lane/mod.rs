//! Lane decompositions of the MPI collectives (Träff & Hunold, "Decomposing
//! MPI Collectives for Exploiting Multi-lane Communication", CLUSTER 2020).
//!
//! With `nodes` nodes of `ppn` processes (rank = node · ppn + node rank),
//! every collective is split into node-local steps and one step that runs
//! concurrently on all `ppn` lane communicators, each lane carrying a
//! `1/ppn` share of the data, so that all network lanes of a node work at
//! once. Blocks that do not divide evenly use the irregular (`v`) variants
//! with the first `count % ppn` node ranks taking one element more.
//!
//! Every reduction combines contributions in rank order (node-local steps
//! in node-rank order, lane steps in node order), so the algorithms are
//! correct for non-commutative operators too.

mod allgather;
mod allreduce;
mod alltoall;
mod bcast;
mod exscan;
mod gather;
mod reduce;
mod reduce_scatter_block;
mod scan;
mod scatter;

pub use allgather::Allgather;
pub use allreduce::Allreduce;
pub use alltoall::Alltoall;
pub use bcast::Bcast;
pub use exscan::Exscan;
pub use gather::Gather;
pub use reduce::Reduce;
pub use reduce_scatter_block::ReduceScatterBlock;
pub use scan::Scan;
pub use scatter::Scatter;

use crate::topology::{RootPlace, Topology};
use mockups::blocks::Blocks;
use mockups::scratch::scratch;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// A vector of `count` elements split into one block per node rank, as
/// evenly as possible, and the length of this process's block.
fn node_blocks(topology: &Topology, count: usize) -> (Blocks, usize) {
    let blocks = Blocks::split(count, topology.ppn);
    let mine = blocks.range(topology.node_rank).len();
    (blocks, mine)
}

/// The scratch of lane gather and scatter: the blocks of this process's
/// lane, by node (on the root's node), and all blocks in lane order (on the
/// root).
fn root_scratch<T: Copy + Default>(
    topology: &Topology,
    root: &RootPlace,
    count: usize,
) -> (Vec<T>, Vec<T>) {
    let lane_len = topology.nodes * count;
    let all = topology.ppn * lane_len;
    (
        scratch(if root.on_root_node { lane_len } else { 0 }),
        scratch(if root.is_root { all } else { 0 }),
    )
}

/// The lane step of scan and exscan: the node's total, split over the
/// node, exclusive-scanned block by block on the lanes, then allgathered on
/// the node, is the total of all previous nodes.
struct PreviousNodes<T> {
    blocks: Blocks,
    /// This process's block of its node's total.
    node_total: Vec<T>,
    /// This process's block of the total of all previous nodes.
    before_node: Vec<T>,
}

impl<T: Equivalence + Copy + Default> PreviousNodes<T> {
    fn new(topology: &Topology, count: usize) -> PreviousNodes<T> {
        let (blocks, mine) = node_blocks(topology, count);
        PreviousNodes {
            blocks,
            node_total: scratch(mine),
            before_node: scratch(mine),
        }
    }

    /// From the node's total, `node_total` on its last process (read there
    /// only), leaves the total of all previous nodes in `prefix`; returns
    /// whether there are previous nodes (on the first node `prefix` is not
    /// touched).
    fn total<O: Operation + Copy>(
        &mut self,
        topology: &Topology,
        node_total: &[T],
        prefix: &mut [T],
        op: O,
    ) -> bool {
        let node = &topology.node;
        let last = topology.ppn - 1;
        self.blocks
            .scatterv(node, last, node_total, &mut self.node_total);
        topology
            .lane
            .exclusive_scan_into(&self.node_total[..], &mut self.before_node[..], op);
        let previous = topology.node_index > 0;
        if previous {
            self.blocks.allgatherv(node, &self.before_node, prefix);
        }
        previous
    }
}

/// Reorders blocks of `block` elements, one per process, from rank order
/// (by node, then node rank) into lane order (by node rank, then node), in
/// which the blocks of each lane are contiguous.
fn to_lane_order<T: Copy>(topology: &Topology, by_rank: &[T], by_lane: &mut [T], block: usize) {
    transpose_blocks(by_rank, by_lane, topology.nodes, topology.ppn, block);
}

/// Reorders blocks from lane order back into rank order ([`to_lane_order`]).
fn to_rank_order<T: Copy>(topology: &Topology, by_lane: &[T], by_rank: &mut [T], block: usize) {
    transpose_blocks(by_lane, by_rank, topology.ppn, topology.nodes, block);
}

/// Copies `rows` × `cols` blocks of `block` elements, stored row by row in
/// `src`, column by column into `dst` (block (r, c) moves to c · rows + r).
fn transpose_blocks<T: Copy>(src: &[T], dst: &mut [T], rows: usize, cols: usize, block: usize) {
    if block == 0 {
        return;
    }
    for (r, row) in src[..rows * cols * block]
        .chunks_exact(cols * block)
        .enumerate()
    {
        for (c, b) in row.chunks_exact(block).enumerate() {
            let to = (c * rows + r) * block;
            dst[to..to + block].copy_from_slice(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::topology::{node_of, node_rank_of};

    #[test]
    fn transposes_blocks() {
        // 2 rows × 3 columns of blocks of 2.
        let src = [0, 0, 1, 1, 2, 2, 10, 10, 11, 11, 12, 12];
        let mut dst = [0; 12];
        transpose_blocks(&src, &mut dst, 2, 3, 2);
        assert_eq!(dst, [0, 0, 10, 10, 1, 1, 11, 11, 2, 2, 12, 12]);
    }

    /// `p` blocks of `block` elements in rank order, each element naming its
    /// block and place: `1000 · rank + i`.
    fn by_rank(p: usize, block: usize) -> Vec<usize> {
        (0..p)
            .flat_map(|rank| (0..block).map(move |i| 1000 * rank + i))
            .collect()
    }

    /// Rank order to lane order and back, as `to_lane_order` and
    /// `to_rank_order` call it, for every shape: block r lands where the
    /// lanes want it, at node rank · nodes + node, and nothing is lost.
    #[test]
    fn lane_order_puts_each_lane_together_and_undoes() {
        for nodes in 1..=6 {
            for ppn in 1..=6 {
                for block in [0, 1, 3] {
                    let p = nodes * ppn;
                    let src = by_rank(p, block);
                    let mut lanes = vec![usize::MAX; p * block];
                    transpose_blocks(&src, &mut lanes, nodes, ppn, block);
                    for rank in 0..p {
                        let at = node_rank_of(rank, ppn) * nodes + node_of(rank, ppn);
                        let expected: Vec<usize> = (0..block).map(|i| 1000 * rank + i).collect();
                        assert_eq!(&lanes[at * block..(at + 1) * block], &expected[..]);
                    }
                    let mut back = vec![usize::MAX; p * block];
                    transpose_blocks(&lanes, &mut back, ppn, nodes, block);
                    assert_eq!(back, src, "{nodes} nodes × {ppn}, blocks of {block}");
                }
            }
        }
    }

    #[test]
    fn transposes_only_the_blocks_it_is_given() {
        // Longer buffers keep their tails.
        let src = [1, 2, 3, 4, 99];
        let mut dst = [0, 0, 0, 0, 7];
        transpose_blocks(&src, &mut dst, 2, 2, 1);
        assert_eq!(dst, [1, 3, 2, 4, 7]);
    }
}
