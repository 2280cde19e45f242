//! Gathering blocks of any datatype with a bitwise-OR reduction of their
//! bytes: each process contributes a zeroed buffer with only its own block
//! set, so the OR of block i is process i's block, byte for byte.

use crate::raw;
use crate::rooted;
use crate::scratch::scratch;
use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use mpi::traits::*;
use std::marker::PhantomData;
use std::ops::Range;

/// A zeroed buffer of one block per process, of which this process sets
/// its own before the OR.
pub(crate) struct ByteOr<T> {
    own: Range<usize>,
    contribution: Vec<u8>,
    element: PhantomData<fn() -> T>,
}

impl<T: Equivalence> ByteOr<T> {
    /// Blocks of `count` elements.
    ///
    /// # Panics
    /// If `T` has padding (bytes its MPI datatype does not cover): the
    /// byte views below need every byte of a `T` initialised.
    pub(crate) fn new(size: usize, rank: usize, count: usize) -> ByteOr<T> {
        assert_eq!(
            raw::datatype_size::<T>(),
            std::mem::size_of::<T>(),
            "the byte mock-ups need a datatype without padding"
        );
        let block = count * std::mem::size_of::<T>();
        ByteOr {
            own: rank * block..(rank + 1) * block,
            contribution: scratch(size * block),
            element: PhantomData,
        }
    }

    /// Every process's block into `recv` on every process (`MPI_Allreduce`).
    pub(crate) fn all_reduce<C: Communicator>(&mut self, comm: &C, block: &[T], recv: &mut [T]) {
        self.set_own(block);
        assert_eq!(std::mem::size_of_val(recv), self.contribution.len());
        // SAFETY: the OR of the contributions is all MPI writes.
        let out = unsafe { bytes_of_result(recv) };
        comm.all_reduce_into(&self.contribution[..], out, bor());
    }

    /// Every process's block into `recv` on `root` (`MPI_Reduce`); `recv`
    /// is not used elsewhere.
    pub(crate) fn reduce<C: Communicator>(
        &mut self,
        comm: &C,
        root: usize,
        block: &[T],
        recv: &mut [T],
    ) {
        self.set_own(block);
        if comm.rank() as usize == root {
            assert_eq!(std::mem::size_of_val(recv), self.contribution.len());
        }
        // SAFETY: the OR of the contributions is all MPI writes (on the root
        // only).
        let out = unsafe { bytes_of_result(recv) };
        rooted::reduce(comm, root, &self.contribution[..], out, bor());
    }

    fn set_own(&mut self, block: &[T]) {
        assert_eq!(std::mem::size_of_val(block), self.own.len(), "block size");
        // SAFETY: `new` checked that T has no padding, so all bytes of the
        // block are initialised; u8 has alignment 1.
        let bytes =
            unsafe { std::slice::from_raw_parts(block.as_ptr().cast::<u8>(), self.own.len()) };
        self.contribution[self.own.clone()].copy_from_slice(bytes);
    }
}

/// `recv` as the bytes the OR goes into.
///
/// # Safety
/// Only the OR of `ByteOr` contributions may be written to the bytes: it
/// leaves in each element the bytes of an element some process sent.
unsafe fn bytes_of_result<T>(recv: &mut [T]) -> &mut [u8] {
    // u8 has alignment 1 and the slice covers the same memory.
    std::slice::from_raw_parts_mut(recv.as_mut_ptr().cast(), std::mem::size_of_val(recv))
}

fn bor() -> SystemOperation {
    SystemOperation::bitwise_or()
}
