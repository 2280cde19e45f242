//! The in-place forms of MPI collectives (`MPI_IN_PLACE` as the send
//! buffer, or as the root's receive buffer of a scatter), which rsmpi 0.8
//! does not offer. Each works on one buffer, laid out as the MPI standard
//! says for that collective; `MPI_IN_PLACE` is the library's own value,
//! read from its `mpi.h` (`in_place.c`), never a number written here.
//!
//! An empty `Vec<u8>` has the address 1, which is Open MPI's
//! `MPI_IN_PLACE`: callers pass buffers that own an allocation.

use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::Communicator;
use std::ffi::c_void;

extern "C" {
    fn mockups_mpi_in_place() -> *mut c_void;
}

/// The library's `MPI_IN_PLACE`.
fn in_place() -> *mut c_void {
    // SAFETY: the C function only returns a constant.
    unsafe { mockups_mpi_in_place() }
}

/// An MPI count: `len` elements.
fn count(len: usize) -> i32 {
    i32::try_from(len).expect("an MPI count fits an int")
}

/// The length of one of the `comm.size()` equal blocks of `buf`.
fn block<C: Communicator, T>(comm: &C, buf: &[T]) -> i32 {
    let p = comm.size() as usize;
    assert_eq!(buf.len() % p, 0, "the buffer holds one block per process");
    count(buf.len() / p)
}

/// `MPI_Allreduce` in place: `buf` holds this process's input and receives
/// the reduction.
pub fn allreduce<C: Communicator, T: Equivalence, O: Operation>(comm: &C, buf: &mut [T], op: O) {
    // SAFETY: `buf` is valid for its length and of T's datatype.
    unsafe {
        ffi::MPI_Allreduce(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            count(buf.len()),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Reduce` in place at the root (call it on the root only; the
/// others call the usual form): `buf` holds the root's input and receives
/// the reduction.
pub fn reduce_at_root<C: Communicator, T: Equivalence, O: Operation>(
    comm: &C,
    buf: &mut [T],
    op: O,
) {
    // SAFETY: as in `allreduce`; the calling process is the root.
    unsafe {
        ffi::MPI_Reduce(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            count(buf.len()),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.rank(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Allgather` in place: `buf` holds p blocks, this process's own
/// already at its offset (rank × block), and receives every block.
pub fn allgather<C: Communicator, T: Equivalence>(comm: &C, buf: &mut [T]) {
    let m = block(comm, buf);
    let datatype = T::equivalent_datatype().as_raw();
    // SAFETY: `buf` holds p blocks of m elements of T's datatype; the send
    // count and type are ignored in place.
    unsafe {
        ffi::MPI_Allgather(
            in_place(),
            m,
            datatype,
            buf.as_mut_ptr() as *mut _,
            m,
            datatype,
            comm.as_raw(),
        );
    }
}

/// `MPI_Gather` in place at the root (call it on the root only): `buf`
/// holds p blocks, the root's own already at its offset, and receives
/// every block.
pub fn gather_at_root<C: Communicator, T: Equivalence>(comm: &C, buf: &mut [T]) {
    let m = block(comm, buf);
    let datatype = T::equivalent_datatype().as_raw();
    // SAFETY: as in `allgather`; the calling process is the root.
    unsafe {
        ffi::MPI_Gather(
            in_place(),
            m,
            datatype,
            buf.as_mut_ptr() as *mut _,
            m,
            datatype,
            comm.rank(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Scatter` in place at the root (call it on the root only): `send`
/// holds p blocks; the root's own block stays where it is, unwritten.
pub fn scatter_at_root<C: Communicator, T: Equivalence>(comm: &C, send: &[T]) {
    let m = block(comm, send);
    let datatype = T::equivalent_datatype().as_raw();
    // SAFETY: `send` holds p blocks of m elements; MPI only reads it, and
    // the receive count and type are ignored in place.
    unsafe {
        ffi::MPI_Scatter(
            send.as_ptr() as *const _,
            m,
            datatype,
            in_place(),
            m,
            datatype,
            comm.rank(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Alltoall` in place: `buf` holds p blocks, block j for process j,
/// and receives block j from process j in their place.
pub fn alltoall<C: Communicator, T: Equivalence>(comm: &C, buf: &mut [T]) {
    let m = block(comm, buf);
    let datatype = T::equivalent_datatype().as_raw();
    // SAFETY: as in `allgather`.
    unsafe {
        ffi::MPI_Alltoall(
            in_place(),
            m,
            datatype,
            buf.as_mut_ptr() as *mut _,
            m,
            datatype,
            comm.as_raw(),
        );
    }
}

/// `MPI_Reduce_scatter_block` in place: `buf` holds p blocks of input;
/// block i of the reduction is left at the start of process i's `buf`.
pub fn reduce_scatter_block<C: Communicator, T: Equivalence, O: Operation>(
    comm: &C,
    buf: &mut [T],
    op: O,
) {
    let m = block(comm, buf);
    // SAFETY: `buf` holds p blocks of m elements of T's datatype.
    unsafe {
        ffi::MPI_Reduce_scatter_block(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            m,
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Reduce_scatter` in place: `buf` holds the whole input vector (the
/// sum of `counts`); process i's block of the reduction, `counts[i]`
/// elements, is left at the start of its `buf`.
///
/// # Panics
/// If `counts` has not one entry per process or `buf` is shorter than
/// their sum.
pub fn reduce_scatter<C: Communicator, T: Equivalence, O: Operation>(
    comm: &C,
    buf: &mut [T],
    counts: &[i32],
    op: O,
) {
    assert_eq!(counts.len(), comm.size() as usize, "one count per process");
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    assert!(buf.len() >= total, "buffer shorter than the counts");
    // SAFETY: `buf` holds the whole vector; MPI reads `counts` only during
    // the call.
    unsafe {
        ffi::MPI_Reduce_scatter(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            counts.as_ptr(),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Scan` in place: `buf` holds this process's input and receives the
/// reduction over processes 0..=rank.
pub fn scan<C: Communicator, T: Equivalence, O: Operation>(comm: &C, buf: &mut [T], op: O) {
    // SAFETY: as in `allreduce`.
    unsafe {
        ffi::MPI_Scan(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            count(buf.len()),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}

/// `MPI_Exscan` in place: `buf` holds this process's input and receives
/// the reduction over processes 0..rank (undefined on process 0).
pub fn exscan<C: Communicator, T: Equivalence, O: Operation>(comm: &C, buf: &mut [T], op: O) {
    // SAFETY: as in `allreduce`.
    unsafe {
        ffi::MPI_Exscan(
            in_place(),
            buf.as_mut_ptr() as *mut _,
            count(buf.len()),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}
