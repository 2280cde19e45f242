//! Block counts and displacements, as MPI's vector (`v`) collectives take
//! them, and those collectives on them.

use crate::raw;
use mpi::collective::Operation;
use mpi::datatype::{Equivalence, Partition, PartitionMut};
use mpi::traits::*;
use mpi::Count;
use std::ops::Range;

/// Counts of `parts` blocks that split `count` elements as evenly as
/// possible: the first `count % parts` blocks get one element more.
pub fn block_counts(count: usize, parts: usize) -> Vec<usize> {
    (0..parts)
        .map(|i| count / parts + usize::from(i < count % parts))
        .collect()
}

/// Start offsets of blocks with the given counts (exclusive prefix sums).
pub fn displacements(counts: &[usize]) -> Vec<usize> {
    counts
        .iter()
        .scan(0, |offset, &c| {
            let start = *offset;
            *offset += c;
            Some(start)
        })
        .collect()
}

/// `n` as an MPI count.
///
/// # Panics
/// If `n` does not fit MPI's `int`.
fn mpi_count(n: usize) -> Count {
    Count::try_from(n).expect("count fits an MPI int")
}

/// Consecutive blocks of one buffer, one per process of a communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocks {
    counts: Vec<Count>,
    displs: Vec<Count>,
}

impl Blocks {
    /// `parts` blocks of `count` elements each.
    pub fn uniform(parts: usize, count: usize) -> Blocks {
        Blocks::from_counts(&vec![count; parts])
    }

    /// `count` elements split as [`block_counts`] does.
    pub fn split(count: usize, parts: usize) -> Blocks {
        Blocks::from_counts(&block_counts(count, parts))
    }

    /// One block of `count` elements at `owner`, every other block empty.
    pub fn single(parts: usize, owner: usize, count: usize) -> Blocks {
        let counts: Vec<usize> = (0..parts)
            .map(|i| if i == owner { count } else { 0 })
            .collect();
        Blocks::from_counts(&counts)
    }

    fn from_counts(counts: &[usize]) -> Blocks {
        Blocks {
            counts: counts.iter().map(|&c| mpi_count(c)).collect(),
            displs: displacements(counts).into_iter().map(mpi_count).collect(),
        }
    }

    pub fn counts(&self) -> &[Count] {
        &self.counts
    }

    pub fn displs(&self) -> &[Count] {
        &self.displs
    }

    /// The elements of block `i`.
    pub fn range(&self, i: usize) -> Range<usize> {
        let start = self.displs[i] as usize;
        start..start + self.counts[i] as usize
    }

    /// Elements in all blocks.
    pub fn total(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }

    /// `MPI_Scatterv` of the blocks of `send` (read on `root` only) to every
    /// process's `recv`, which holds its block.
    pub fn scatterv<C, T>(&self, comm: &C, root: usize, send: &[T], recv: &mut [T])
    where
        C: Communicator,
        T: Equivalence,
    {
        let root_process = comm.process_at_rank(root as i32);
        if comm.rank() as usize == root {
            let send = Partition::new(&send[..self.total()], self.counts(), self.displs());
            root_process.scatter_varcount_into_root(&send, recv);
        } else {
            root_process.scatter_varcount_into(recv);
        }
    }

    /// `MPI_Gatherv` of every process's block `send` into the blocks of
    /// `recv` (written on `root` only).
    pub fn gatherv<C, T>(&self, comm: &C, root: usize, send: &[T], recv: &mut [T])
    where
        C: Communicator,
        T: Equivalence,
    {
        let root_process = comm.process_at_rank(root as i32);
        if comm.rank() as usize == root {
            let total = self.total();
            let mut recv = PartitionMut::new(&mut recv[..total], self.counts(), self.displs());
            root_process.gather_varcount_into_root(send, &mut recv);
        } else {
            root_process.gather_varcount_into(send);
        }
    }

    /// `MPI_Allgatherv` of every process's block `send` into the blocks of
    /// `recv`.
    pub fn allgatherv<C, T>(&self, comm: &C, send: &[T], recv: &mut [T])
    where
        C: Communicator,
        T: Equivalence,
    {
        let total = self.total();
        let mut recv = PartitionMut::new(&mut recv[..total], self.counts(), self.displs());
        comm.all_gather_varcount_into(send, &mut recv);
    }

    /// `MPI_Reduce_scatter`: reduces `send` (all blocks) over `comm` and
    /// leaves block i on process i, in `recv`.
    pub fn reduce_scatter<C, T, O>(&self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        T: Equivalence,
        O: Operation,
    {
        raw::reduce_scatter(comm, &send[..self.total()], recv, self.counts(), op);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts and parts that cover the corners: nothing, fewer elements
    /// than parts, divisible and not, primes, one part.
    fn cases() -> impl Iterator<Item = (usize, usize)> {
        (1..=17).flat_map(|parts| (0..=3 * parts + 2).map(move |count| (count, parts)))
    }

    #[test]
    fn block_counts_split_evenly_with_the_remainder_first() {
        assert_eq!(block_counts(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(block_counts(2, 4), vec![1, 1, 0, 0]);
        assert_eq!(block_counts(0, 3), vec![0, 0, 0]);
        assert_eq!(block_counts(7, 1), vec![7]);
        for (count, parts) in cases() {
            let counts = block_counts(count, parts);
            assert_eq!(counts.len(), parts);
            assert_eq!(counts.iter().sum::<usize>(), count, "{count} in {parts}");
            let (low, high) = (count / parts, count.div_ceil(parts));
            // Exactly count % parts blocks are large, and they come first.
            let large = counts.iter().take_while(|&&c| c == high).count();
            assert!(counts.iter().all(|&c| c == low || c == high));
            assert!(counts[large..].iter().all(|&c| c == low));
            if low != high {
                assert_eq!(large, count % parts, "{count} in {parts}");
            }
        }
    }

    #[test]
    fn displacements_are_exclusive_prefix_sums() {
        assert_eq!(displacements(&[3, 3, 2, 2]), vec![0, 3, 6, 8]);
        assert_eq!(displacements(&[0, 5, 0, 1]), vec![0, 0, 5, 5]);
        assert_eq!(displacements(&[]), Vec::<usize>::new());
        for (count, parts) in cases() {
            let counts = block_counts(count, parts);
            let displs = displacements(&counts);
            for i in 0..parts {
                assert_eq!(displs[i], counts[..i].iter().sum::<usize>());
            }
        }
    }

    /// The blocks tile `0..total` in order, block i with `counts[i]`.
    fn assert_tiles(blocks: &Blocks, counts: &[usize]) {
        assert_eq!(blocks.counts().len(), counts.len());
        assert_eq!(blocks.displs().len(), counts.len());
        let mut next = 0;
        for (i, &c) in counts.iter().enumerate() {
            assert_eq!(blocks.counts()[i] as usize, c);
            assert_eq!(blocks.range(i), next..next + c, "block {i} of {counts:?}");
            next += c;
        }
        assert_eq!(blocks.total(), next);
    }

    #[test]
    fn blocks_tile_the_buffer() {
        for (count, parts) in cases() {
            assert_tiles(&Blocks::uniform(parts, count), &vec![count; parts]);
            assert_tiles(&Blocks::split(count, parts), &block_counts(count, parts));
            for owner in [0, parts / 2, parts - 1] {
                let mut counts = vec![0; parts];
                counts[owner] = count;
                let single = Blocks::single(parts, owner, count);
                assert_tiles(&single, &counts);
                assert_eq!(single.range(owner), 0..count);
            }
        }
    }

    #[test]
    #[should_panic(expected = "count fits an MPI int")]
    fn counts_beyond_an_mpi_int_are_refused() {
        Blocks::uniform(2, 1 << 31);
    }
}
