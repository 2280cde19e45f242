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
    ireduce_scatter_overlapped(comm, send, recv, counts, op, || {})
}

/// [`ireduce_scatter_wait`] with `work` between the start and the wait.
///
/// # Panics
/// As [`reduce_scatter`].
pub fn ireduce_scatter_overlapped<C, T, O>(
    comm: &C,
    send: &[T],
    recv: &mut [T],
    counts: &[i32],
    op: O,
    work: impl FnOnce(),
) where
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
        work();
        ffi::MPI_Wait(&mut request, ffi::RSMPI_STATUS_IGNORE);
    }
}

/// Request slots for [`receive_blocks`] and [`send_blocks`]: one per
/// process, made once so that those calls allocate nothing.
pub fn request_slots(processes: usize) -> Vec<ffi::MPI_Request> {
    // SAFETY: reading a constant rsmpi's C shim defines.
    vec![unsafe { ffi::RSMPI_REQUEST_NULL }; processes]
}

/// Block r of `recv` (`count` elements each, p blocks) received from
/// process r, for every process but this one: every `MPI_Irecv` posted at
/// once, then one `MPI_Waitall`. The root's side of a linear gather.
/// `requests` comes from [`request_slots`].
///
/// # Panics
/// If `recv` holds fewer than p blocks or `requests` fewer than p slots.
pub fn receive_blocks<C, T>(
    comm: &C,
    recv: &mut [T],
    count: usize,
    tag: mpi::Tag,
    requests: &mut [ffi::MPI_Request],
) where
    C: Communicator,
    T: Equivalence,
{
    let base = recv.as_mut_ptr();
    assert!(
        recv.len() >= comm.size() as usize * count,
        "one block per process"
    );
    // SAFETY: every block lies within `recv`, borrowed mutably until
    // `each_other_block`'s MPI_Waitall has completed every request.
    each_other_block(comm, count, requests, |r, n, request| unsafe {
        ffi::MPI_Irecv(
            base.add(r * count) as *mut _,
            n,
            T::equivalent_datatype().as_raw(),
            r as i32,
            tag,
            comm.as_raw(),
            request,
        );
    });
}

/// Block r of `send` (`count` elements each, p blocks) sent to process r,
/// for every process but this one: every `MPI_Isend` posted at once, then
/// one `MPI_Waitall`. The root's side of a linear scatter. `requests` comes
/// from [`request_slots`].
///
/// # Panics
/// If `send` holds fewer than p blocks or `requests` fewer than p slots.
pub fn send_blocks<C, T>(
    comm: &C,
    send: &[T],
    count: usize,
    tag: mpi::Tag,
    requests: &mut [ffi::MPI_Request],
) where
    C: Communicator,
    T: Equivalence,
{
    let base = send.as_ptr();
    assert!(
        send.len() >= comm.size() as usize * count,
        "one block per process"
    );
    // SAFETY: every block lies within `send`, borrowed until
    // `each_other_block`'s MPI_Waitall has completed every request.
    each_other_block(comm, count, requests, |r, n, request| unsafe {
        ffi::MPI_Isend(
            base.add(r * count) as *const _,
            n,
            T::equivalent_datatype().as_raw(),
            r as i32,
            tag,
            comm.as_raw(),
            request,
        );
    });
}

/// `post(r, count, request)` for every process r but this one, each into
/// its own slot of `requests`, then one `MPI_Waitall`; nothing for blocks
/// of no elements.
fn each_other_block<C: Communicator>(
    comm: &C,
    count: usize,
    requests: &mut [ffi::MPI_Request],
    mut post: impl FnMut(usize, i32, &mut ffi::MPI_Request),
) {
    let (p, me) = (comm.size() as usize, comm.rank() as usize);
    assert!(requests.len() >= p, "one request slot per process");
    let n = i32::try_from(count).expect("a block count fits an MPI int");
    let mut posted = 0;
    for r in (0..p).filter(|&r| r != me && count > 0) {
        post(r, n, &mut requests[posted]);
        posted += 1;
    }
    wait_all(&mut requests[..posted]);
}

/// `MPI_Waitall` on `requests`, statuses ignored.
fn wait_all(requests: &mut [ffi::MPI_Request]) {
    if requests.is_empty() {
        return;
    }
    // SAFETY: every request was started by the caller on buffers it still
    // borrows; MPI writes the completed requests back as MPI_REQUEST_NULL.
    unsafe {
        ffi::MPI_Waitall(
            requests.len() as i32,
            requests.as_mut_ptr(),
            ffi::RSMPI_STATUSES_IGNORE,
        );
    }
}
