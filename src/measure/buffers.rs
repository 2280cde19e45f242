//! A case's send and receive buffers, moved to a fresh offset within their
//! allocation at the start of every round. Where a buffer lands (its
//! alignment, the cache sets and the offset within a page it maps to) is
//! one of the things that differ between launches and stay fixed within
//! one (ReproMPI: the launch is a factor); moving the buffers every round
//! varies it inside the launch, where the rounds' spread shows it. Here it
//! did not lower the share of the spread between launches (the machine's
//! state, not placement, made launches differ: docs/statistics.md), and
//! it costs one copy of the buffers a round, outside the slices.

use rand::Rng;
use std::ops::{Deref, DerefMut};

use crate::settings::MAX_BUFFER_SHIFT_BYTES as MAX_SHIFT_BYTES;

/// Offsets are whole cache lines: what a library's own alignment
/// choices (and the hardware's) distinguish.
const STEP_BYTES: usize = 64;

/// A buffer of `len` elements somewhere in an allocation
/// [`MAX_SHIFT_BYTES`] longer; derefs to its elements where they are now.
pub struct Moving<T> {
    arena: Vec<T>,
    at: usize,
    len: usize,
}

impl<T: Copy + Default> Moving<T> {
    /// `data` at offset 0. Never the dangling pointer of an empty Vec, even
    /// for no data: Open MPI's MPI_IN_PLACE is (void*)1, the address an
    /// empty Vec<u8> has.
    pub fn new(mut data: Vec<T>) -> Moving<T> {
        let len = data.len();
        data.resize(len + Self::elements(MAX_SHIFT_BYTES), T::default());
        Moving {
            arena: data,
            at: 0,
            len,
        }
    }

    /// Moves the elements to a random whole number of cache lines from the
    /// allocation's start, up to [`MAX_SHIFT_BYTES`].
    pub fn move_randomly(&mut self, rng: &mut impl Rng) {
        let to = rng.gen_range(0..=MAX_SHIFT_BYTES / STEP_BYTES) * Self::elements(STEP_BYTES);
        self.arena.copy_within(self.at..self.at + self.len, to);
        self.at = to;
    }

    /// Elements in `bytes`, at least one.
    fn elements(bytes: usize) -> usize {
        (bytes / std::mem::size_of::<T>().max(1)).max(1)
    }
}

impl<T> Deref for Moving<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.arena[self.at..self.at + self.len]
    }
}

impl<T> DerefMut for Moving<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.arena[self.at..self.at + self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn the_elements_move_whole_and_stay_in_their_allocation() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let data: Vec<u32> = (0..1000).collect();
        let mut buffer = Moving::new(data.clone());
        let mut offsets = std::collections::BTreeSet::new();
        for _ in 0..200 {
            buffer.move_randomly(&mut rng);
            assert_eq!(&buffer[..], &data[..]);
            let offset = buffer.as_ptr() as usize - buffer.arena.as_ptr() as usize;
            assert_eq!(offset % STEP_BYTES, 0);
            assert!(offset <= MAX_SHIFT_BYTES);
            offsets.insert(offset);
        }
        assert!(offsets.len() > 40, "{} offsets", offsets.len());
        // No elements: still a real address, never the empty Vec's 1.
        let mut empty = Moving::<u8>::new(Vec::new());
        empty.move_randomly(&mut rng);
        assert!(empty.is_empty() && empty.as_ptr() as usize > 4096);
    }
}
