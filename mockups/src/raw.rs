//! Safe wrappers of MPI calls that rsmpi does not offer.

use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::Communicator;

/// `MPI_Reduce_scatter`: reduces `send` (the sum of `counts` elements) over
/// `comm` and leaves block i, `counts[i]` elements, on process i.
///
/// # Panics
/// If `send` is shorter than the sum of `counts`, `recv` shorter than this
/// process's count, or `counts` has not one entry per process.
pub fn reduce_scatter<C, T, O>(comm: &C, send: &[T], recv: &mut [T], counts: &[i32], op: O)
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    check_reduce_scatter(comm, send, recv, counts);
    // SAFETY: the buffers are valid for the lengths checked above, the
    // datatype matches T, and MPI reads `counts` only during the call.
    unsafe {
        ffi::MPI_Reduce_scatter(
            send.as_ptr() as *const _,
            recv.as_mut_ptr() as *mut _,
            counts.as_ptr(),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
        );
    }
}

/// The buffers and counts of a reduce_scatter, checked as
/// [`reduce_scatter`] says.
fn check_reduce_scatter<C: Communicator, T>(comm: &C, send: &[T], recv: &[T], counts: &[i32]) {
    let rank = comm.rank() as usize;
    assert_eq!(counts.len(), comm.size() as usize, "one count per process");
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    assert!(send.len() >= total, "send buffer shorter than the counts");
    assert!(
        recv.len() >= counts[rank] as usize,
        "receive buffer too short"
    );
}

/// `MPI_Type_size` of `T`'s datatype: the bytes of data it describes.
pub fn datatype_size<T: Equivalence>() -> usize {
    let mut size = 0;
    // SAFETY: the datatype is valid and MPI writes one int.
    unsafe {
        ffi::MPI_Type_size(T::equivalent_datatype().as_raw(), &mut size);
    }
    usize::try_from(size).expect("a datatype size is not negative")
}

/// `MPI_Ireduce_scatter` waited for at once (`MPI_Wait`): what
/// [`reduce_scatter`] does, through the nonblocking call.
///
/// # Panics
/// As [`reduce_scatter`].
pub fn ireduce_scatter_wait<C, T, O>(comm: &C, send: &[T], recv: &mut [T], counts: &[i32], op: O)
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    check_reduce_scatter(comm, send, recv, counts);
    // SAFETY: as in `reduce_scatter`; the buffers and `counts` outlive the
    // request, which is waited for before they are released.
    unsafe {
        let mut request: ffi::MPI_Request = std::mem::zeroed();
        ffi::MPI_Ireduce_scatter(
            send.as_ptr() as *const _,
            recv.as_mut_ptr() as *mut _,
            counts.as_ptr(),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
            &mut request,
        );
        ffi::MPI_Wait(&mut request, ffi::RSMPI_STATUS_IGNORE);
    }
}
