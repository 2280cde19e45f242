//! The first step of the reduce-scatter mock-ups of allreduce and reduce:
//! the vector reduced and scattered in p parts, one per process.

use crate::blocks::Blocks;
use crate::scratch::scratch;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Reduce_scatter_block` of a vector of `count` elements in p parts of
/// ⌈count/p⌉, the vector padded at its end when p does not divide `count`.
pub(crate) struct PaddedParts<T> {
    count: usize,
    /// The input with its padding; empty when there is none.
    padded: Vec<T>,
    part: Vec<T>,
    /// The gathered padded vector on a process that gathers the parts;
    /// empty elsewhere and without padding, when the parts are gathered
    /// straight into `recv`.
    gathered: Vec<T>,
}

impl<T: Equivalence + Copy + Default> PaddedParts<T> {
    /// The parts of `count` elements over `size` processes; `gathers` says
    /// whether this process gathers them afterwards.
    pub(crate) fn new(size: usize, count: usize, gathers: bool) -> PaddedParts<T> {
        let part = count.div_ceil(size);
        let padded_len = if part * size == count { 0 } else { part * size };
        PaddedParts {
            count,
            padded: scratch(padded_len),
            part: scratch(part),
            gathered: scratch(if gathers { padded_len } else { 0 }),
        }
    }

    /// Whether the parts cover more than the vector.
    pub(crate) fn is_padded(&self) -> bool {
        !self.padded.is_empty()
    }

    /// Reduces `send` and returns this process's part.
    pub(crate) fn reduce_scatter<C, O>(&mut self, comm: &C, send: &[T], op: O) -> &[T]
    where
        C: Communicator,
        O: Operation,
    {
        let send = &send[..self.count];
        let input = if self.is_padded() {
            self.padded[..self.count].copy_from_slice(send);
            &self.padded[..]
        } else {
            send
        };
        comm.reduce_scatter_block_into(input, &mut self.part[..], op);
        &self.part
    }

    /// Reduces `send`, then `gather(part, into)` gathers the parts into
    /// `recv`: straight when there is no padding, else into scratch whose
    /// first `count` elements then go to `recv`.
    pub(crate) fn reduce_scatter_gather<C, O>(
        &mut self,
        comm: &C,
        send: &[T],
        recv: &mut [T],
        op: O,
        gather: impl FnOnce(&[T], &mut [T]),
    ) where
        C: Communicator,
        O: Operation,
    {
        self.reduce_scatter(comm, send, op);
        let recv = &mut recv[..self.count];
        if self.is_padded() {
            gather(&self.part, &mut self.gathered[..]);
            recv.copy_from_slice(&self.gathered[..self.count]);
        } else {
            gather(&self.part, recv);
        }
    }
}

/// `MPI_Reduce_scatter` of a vector of `count` elements in p parts split as
/// evenly as possible.
pub(crate) struct SplitParts<T> {
    blocks: Blocks,
    part: Vec<T>,
}

impl<T: Equivalence + Copy + Default> SplitParts<T> {
    pub(crate) fn new(size: usize, rank: usize, count: usize) -> SplitParts<T> {
        let blocks = Blocks::split(count, size);
        let part = scratch(blocks.range(rank).len());
        SplitParts { blocks, part }
    }

    /// Reduces `send` and returns this process's part with the blocks.
    pub(crate) fn reduce_scatter<C, O>(&mut self, comm: &C, send: &[T], op: O) -> (&[T], &Blocks)
    where
        C: Communicator,
        O: Operation,
    {
        self.blocks.reduce_scatter(comm, send, &mut self.part, op);
        (&self.part, &self.blocks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blocks::block_counts;

    #[test]
    fn padded_parts_cover_the_vector_with_less_than_one_element_a_part() {
        for size in 1..=13usize {
            for count in 0..=4 * size + 3 {
                for gathers in [false, true] {
                    let parts = PaddedParts::<i32>::new(size, count, gathers);
                    let len = parts.part.len() * size;
                    assert_eq!(len % size, 0, "{count} on {size}");
                    assert!(count <= len && len < count + size, "{count} on {size}");
                    assert_eq!(parts.is_padded(), count % size != 0, "{count} on {size}");
                    let padding = if parts.is_padded() { len } else { 0 };
                    assert_eq!(parts.padded.len(), padding);
                    assert_eq!(parts.gathered.len(), if gathers { padding } else { 0 });
                }
            }
        }
    }

    #[test]
    fn split_parts_are_the_blocks_of_the_vector() {
        for size in 1..=13usize {
            for count in 0..=3 * size + 1 {
                let counts = block_counts(count, size);
                for (rank, &mine) in counts.iter().enumerate() {
                    let parts = SplitParts::<f64>::new(size, rank, count);
                    assert_eq!(parts.part.len(), mine, "{count} on {size}");
                    assert_eq!(parts.blocks, Blocks::split(count, size));
                    assert_eq!(parts.blocks.total(), count);
                }
            }
        }
    }
}
