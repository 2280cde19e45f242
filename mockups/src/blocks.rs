//! Block counts and displacements, as MPI's vector (`v`) collectives take
//! them.

use mpi::Count;
use std::ops::Range;

/// Counts of `parts` blocks that split `count` elements as evenly as
/// possible: the first `count % parts` blocks get one element more.
pub fn block_counts(count: usize, parts: usize) -> Vec<usize> {
    (0..parts)
        .map(|i| count / parts + usize::from(i < count % parts))
        .collect()
}

/// `n` as an MPI count.
///
/// # Panics
/// If `n` does not fit MPI's `int`.
pub(crate) fn mpi_count(n: usize) -> Count {
    Count::try_from(n).expect("count fits an MPI int")
}

/// Consecutive blocks of one buffer, one per process.
pub(crate) struct Blocks {
    counts: Vec<Count>,
    displs: Vec<Count>,
}

impl Blocks {
    /// `parts` blocks of `count` elements each.
    pub(crate) fn uniform(parts: usize, count: usize) -> Blocks {
        Blocks::from_counts(&vec![count; parts])
    }

    /// `count` elements split as [`block_counts`] does.
    pub(crate) fn split(count: usize, parts: usize) -> Blocks {
        Blocks::from_counts(&block_counts(count, parts))
    }

    /// One block of `count` elements at `owner`, every other block empty.
    pub(crate) fn single(parts: usize, owner: usize, count: usize) -> Blocks {
        let counts: Vec<usize> = (0..parts)
            .map(|i| if i == owner { count } else { 0 })
            .collect();
        Blocks::from_counts(&counts)
    }

    fn from_counts(counts: &[usize]) -> Blocks {
        let displs = counts
            .iter()
            .scan(0, |offset, &c| {
                let start = *offset;
                *offset += c;
                Some(mpi_count(start))
            })
            .collect();
        Blocks {
            counts: counts.iter().map(|&c| mpi_count(c)).collect(),
            displs,
        }
    }

    pub(crate) fn counts(&self) -> &[Count] {
        &self.counts
    }

    pub(crate) fn displs(&self) -> &[Count] {
        &self.displs
    }

    /// The elements of block `i`.
    pub(crate) fn range(&self, i: usize) -> Range<usize> {
        let start = self.displs[i] as usize;
        start..start + self.counts[i] as usize
    }

    /// Elements in all blocks.
    pub(crate) fn total(&self) -> usize {
        self.counts.iter().map(|&c| c as usize).sum()
    }
}
