//! Scratch buffers.

/// `len` default elements in a real allocation even when `len` is 0. An
/// empty `Vec`'s dangling address is the type's alignment, and Open MPI's
/// `MPI_IN_PLACE` is address 1: an empty `u8` buffer would be taken for it.
pub fn scratch<T: Copy + Default>(len: usize) -> Vec<T> {
    let mut buffer = Vec::with_capacity(len.max(1));
    buffer.resize(len, T::default());
    buffer
}

/// Where a process receives what only the root keeps: `recv[..len]` on the
/// root, its `spare` scratch on the others.
pub(crate) fn root_or_spare<'a, T>(
    is_root: bool,
    recv: &'a mut [T],
    len: usize,
    spare: &'a mut [T],
) -> &'a mut [T] {
    if is_root {
        &mut recv[..len]
    } else {
        spare
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_is_zeroed_and_never_at_a_dangling_address() {
        for len in [0, 1, 7, 4096] {
            let bytes: Vec<u8> = scratch(len);
            assert_eq!(bytes, vec![0; len]);
            assert!(bytes.capacity() >= 1);
            // A real allocation: not the dangling address 1 that Open MPI
            // takes for MPI_IN_PLACE.
            assert_ne!(bytes.as_ptr() as usize, 1, "len {len}");
            let doubles: Vec<f64> = scratch(len);
            assert!(doubles.iter().all(|&x| x == 0.0) && doubles.len() == len);
            assert_ne!(doubles.as_ptr() as usize, std::mem::align_of::<f64>());
        }
    }

    #[test]
    fn the_root_receives_in_recv_the_others_in_spare() {
        let mut recv = [1, 2, 3, 4];
        let mut spare = [9; 3];
        assert_eq!(root_or_spare(true, &mut recv, 3, &mut spare), &[1, 2, 3]);
        assert_eq!(root_or_spare(false, &mut recv, 3, &mut spare), &[9, 9, 9]);
        root_or_spare(false, &mut recv, 3, &mut spare)[0] = 0;
        assert_eq!((recv, spare), ([1, 2, 3, 4], [0, 9, 9]));
    }
}
