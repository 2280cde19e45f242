//! Scratch buffers.

/// `len` default elements in a real allocation even when `len` is 0. An
/// empty `Vec`'s dangling address is the type's alignment, and Open MPI's
/// `MPI_IN_PLACE` is address 1: an empty `u8` buffer would be taken for it.
pub fn scratch<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(len.max(1));
    buffer.resize(len, T::default());
    buffer
}
