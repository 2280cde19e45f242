//! Splitting a vector into blocks as evenly as possible.

pub use mockups::blocks::block_counts;

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

/// `usize` counts as MPI counts.
///
/// # Panics
/// If a count does not fit MPI's `int`.
pub fn mpi_counts(counts: &[usize]) -> Vec<i32> {
    counts
        .iter()
        .map(|&c| i32::try_from(c).expect("count fits an MPI int"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_evenly_with_remainder_first() {
        assert_eq!(block_counts(10, 4), vec![3, 3, 2, 2]);
        assert_eq!(block_counts(2, 4), vec![1, 1, 0, 0]);
        assert_eq!(block_counts(0, 3), vec![0, 0, 0]);
        assert_eq!(displacements(&[3, 3, 2, 2]), vec![0, 3, 6, 8]);
    }
}
