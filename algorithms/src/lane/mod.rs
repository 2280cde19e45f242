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

use crate::split::{block_counts, displacements, mpi_counts};
use mpi::collective::Operation;
use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Count;

/// A vector split into one block per node-local process, as evenly as
/// possible, with the counts and displacements MPI's `v` calls take.
struct Blocks {
    counts: Vec<usize>,
    mpi_counts: Vec<Count>,
    mpi_displs: Vec<Count>,
}

impl Blocks {
    fn new(count: usize, parts: usize) -> Blocks {
        let counts = block_counts(count, parts);
        let displs = displacements(&counts);
        Blocks {
            mpi_counts: mpi_counts(&counts),
            mpi_displs: mpi_counts(&displs),
            counts,
        }
    }
}

use mockups::scratch::scratch;

/// `MPI_Scatterv` of `blocks` of `send` (read on `root` only) into `recv`,
/// which holds this process's block.
fn scatterv<T: Equivalence>(
    comm: &SimpleCommunicator,
    root: usize,
    send: &[T],
    blocks: &Blocks,
    recv: &mut [T],
) {
    let root_process = comm.process_at_rank(root as i32);
    if comm.rank() as usize == root {
        let send = Partition::new(send, &blocks.mpi_counts[..], &blocks.mpi_displs[..]);
        root_process.scatter_varcount_into_root(&send, recv);
    } else {
        root_process.scatter_varcount_into(recv);
    }
}

/// `MPI_Gatherv` of every process's block `send` into `blocks` of `recv`
/// (written on `root` only).
fn gatherv<T: Equivalence>(
    comm: &SimpleCommunicator,
    root: usize,
    send: &[T],
    blocks: &Blocks,
    recv: &mut [T],
) {
    let root_process = comm.process_at_rank(root as i32);
    if comm.rank() as usize == root {
        let mut recv = PartitionMut::new(recv, &blocks.mpi_counts[..], &blocks.mpi_displs[..]);
        root_process.gather_varcount_into_root(send, &mut recv);
    } else {
        root_process.gather_varcount_into(send);
    }
}

/// `MPI_Allgatherv` of every process's block `send` into `blocks` of `recv`.
fn allgatherv<T: Equivalence>(
    comm: &SimpleCommunicator,
    send: &[T],
    blocks: &Blocks,
    recv: &mut [T],
) {
    let mut recv = PartitionMut::new(recv, &blocks.mpi_counts[..], &blocks.mpi_displs[..]);
    comm.all_gather_varcount_into(send, &mut recv);
}

/// `MPI_Reduce_scatter` (irregular counts, which rsmpi lacks): reduces
/// `send` over `comm` and leaves block i of `blocks` on process i, in `recv`.
fn reduce_scatter<T: Equivalence, O: Operation>(
    comm: &SimpleCommunicator,
    send: &[T],
    blocks: &Blocks,
    recv: &mut [T],
    op: O,
) {
    mockups::raw::reduce_scatter(comm, send, recv, &blocks.mpi_counts, op);
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

    #[test]
    fn transposes_blocks() {
        // 2 rows × 3 columns of blocks of 2.
        let src = [0, 0, 1, 1, 2, 2, 10, 10, 11, 11, 12, 12];
        let mut dst = [0; 12];
        transpose_blocks(&src, &mut dst, 2, 3, 2);
        assert_eq!(dst, [0, 0, 10, 10, 1, 1, 11, 11, 2, 2, 12, 12]);
    }
}
