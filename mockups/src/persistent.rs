//! Persistent collectives: MPI-4's `MPI_Allreduce_init` and its kin, or
//! the `MPIX_` names of Open MPI 4.1's `pcollreq` extension. rsmpi 0.8
//! binds neither, and which one a library has (if any) is known only when
//! it is loaded, so each initialisation is found at run time
//! ([`find`]); a library with neither is refused before anything is
//! measured, not at link time.
//!
//! Buffers are raw pointers: a persistent request holds on to them from
//! its initialisation until it is freed, which no borrow can express. The
//! caller keeps them valid and in place while the [`Request`] lives.

use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::Communicator;
use std::ffi::{c_int, c_void, CString};
use std::sync::OnceLock;

/// A persistent collective's initialisation, as the running library has
/// it: its C name (`MPI_Allreduce_init` or `MPIX_Allreduce_init`) and
/// address.
#[derive(Clone, Copy, Debug)]
pub struct Init {
    pub name: &'static str,
    address: usize,
}

/// The initialisation of the collective MPI calls `MPI_<call>` (`call` as
/// in `Allreduce`), MPI-4's name first, then the `MPIX_` one; `None` when
/// the library has neither. Looked up once per call.
pub fn find(call: &str) -> Option<Init> {
    static FOUND: OnceLock<Vec<(String, Option<Init>)>> = OnceLock::new();
    let found = FOUND.get_or_init(|| CALLS.iter().map(|c| (c.to_string(), look_up(c))).collect());
    found
        .iter()
        .find(|(c, _)| c == call)
        .and_then(|(_, init)| *init)
}

/// Every collective whose persistent form [`find`] looks up.
pub const CALLS: [&str; 12] = [
    "Allgather",
    "Allreduce",
    "Alltoall",
    "Barrier",
    "Bcast",
    "Exscan",
    "Gather",
    "Reduce",
    "Reduce_scatter",
    "Reduce_scatter_block",
    "Scan",
    "Scatter",
];

fn look_up(call: &str) -> Option<Init> {
    ["MPI_", "MPIX_"].into_iter().find_map(|prefix| {
        let name = format!("{prefix}{call}_init");
        let symbol = CString::new(name.clone()).expect("no NUL in a name");
        // SAFETY: dlsym reads a NUL-terminated name; RTLD_DEFAULT searches
        // the process's global symbols, where the MPI library (and any
        // PMPI wrapper preloaded before it) is.
        let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, symbol.as_ptr()) };
        (!address.is_null()).then(|| Init {
            name: Box::leak(name.into_boxed_str()),
            address: address as usize,
        })
    })
}

/// An initialised persistent collective; freed when dropped.
pub struct Request(ffi::MPI_Request);

impl Request {
    /// `MPI_Start`, then `MPI_Wait`: one collective on the bound buffers.
    pub fn start_and_wait(&mut self) {
        // SAFETY: the request is a valid, inactive persistent request; its
        // buffers are valid while it lives (the caller's contract).
        unsafe {
            ffi::MPI_Start(&mut self.0);
            ffi::MPI_Wait(&mut self.0, ffi::RSMPI_STATUS_IGNORE);
        }
    }
}

impl Drop for Request {
    fn drop(&mut self) {
        // SAFETY: an inactive persistent request (every start was waited
        // for) may be freed.
        unsafe {
            ffi::MPI_Request_free(&mut self.0);
        }
    }
}

/// What MPI-4 passes for "no hints".
fn info_null() -> ffi::MPI_Info {
    // SAFETY: reading a constant rsmpi's C shim defines.
    unsafe { ffi::RSMPI_INFO_NULL }
}

fn count(n: usize) -> c_int {
    c_int::try_from(n).expect("a count fits an MPI int")
}

/// A request to be filled by an initialisation.
fn null_request() -> ffi::MPI_Request {
    // SAFETY: reading a constant rsmpi's C shim defines.
    unsafe { ffi::RSMPI_REQUEST_NULL }
}

type Datatype = ffi::MPI_Datatype;
type Comm = ffi::MPI_Comm;
type Op = ffi::MPI_Op;
type Info = ffi::MPI_Info;
type Req = *mut ffi::MPI_Request;

/// `(sendbuf, recvbuf, count, datatype, op, comm, info, request)`:
/// allreduce, reduce_scatter_block, scan, exscan.
type Reduction =
    unsafe extern "C" fn(*const c_void, *mut c_void, c_int, Datatype, Op, Comm, Info, Req) -> c_int;

/// `(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
/// info, request)`: allgather, alltoall.
type Exchange = unsafe extern "C" fn(
    *const c_void,
    c_int,
    Datatype,
    *mut c_void,
    c_int,
    Datatype,
    Comm,
    Info,
    Req,
) -> c_int;

/// Gather and scatter: [`Exchange`] with a root before the communicator.
type Rooted = unsafe extern "C" fn(
    *const c_void,
    c_int,
    Datatype,
    *mut c_void,
    c_int,
    Datatype,
    c_int,
    Comm,
    Info,
    Req,
) -> c_int;

type BcastInit =
    unsafe extern "C" fn(*mut c_void, c_int, Datatype, c_int, Comm, Info, Req) -> c_int;

type ReduceInit = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    c_int,
    Datatype,
    Op,
    c_int,
    Comm,
    Info,
    Req,
) -> c_int;

type ReduceScatterInit = unsafe extern "C" fn(
    *const c_void,
    *mut c_void,
    *const c_int,
    Datatype,
    Op,
    Comm,
    Info,
    Req,
) -> c_int;

/// The initialisation of `call`, as a function of type `F`.
///
/// # Panics
/// If the library has none: callers check [`find`] first.
///
/// # Safety
/// `F` must be the C signature of `MPI_<call>_init`.
unsafe fn init_of<F: Copy>(call: &str) -> F {
    let init = find(call).unwrap_or_else(|| panic!("no persistent {call}: check `find` first"));
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    // SAFETY: the address is the function `call`'s, of signature F.
    unsafe { std::mem::transmute_copy(&init.address) }
}

/// A persistent allreduce, reduce_scatter_block, scan or exscan (`call`)
/// of `count` elements: the [`Reduction`] signature.
///
/// # Safety
/// `send` and `recv` hold `count` elements and stay valid and in place
/// while the request lives.
pub unsafe fn reduction<C, T, O>(
    call: &str,
    comm: &C,
    send: *const T,
    recv: *mut T,
    count: usize,
    op: O,
) -> Request
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    let mut request = null_request();
    // SAFETY: the caller's contract; `call` is one of the four.
    unsafe {
        let init: Reduction = init_of(call);
        init(
            send as *const c_void,
            recv as *mut c_void,
            self::count(count),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}

/// A persistent allgather or alltoall (`call`) of `count` elements per
/// process.
///
/// # Safety
/// `send` holds the call's send blocks and `recv` p blocks of `count`;
/// both stay valid and in place while the request lives.
pub unsafe fn exchange<C, T>(
    call: &str,
    comm: &C,
    send: *const T,
    recv: *mut T,
    count: usize,
) -> Request
where
    C: Communicator,
    T: Equivalence,
{
    let (mut request, n, datatype) = (null_request(), self::count(count), T::equivalent_datatype());
    // SAFETY: the caller's contract; `call` is allgather or alltoall.
    unsafe {
        let init: Exchange = init_of(call);
        let datatype = datatype.as_raw();
        init(
            send as *const c_void,
            n,
            datatype,
            recv as *mut c_void,
            n,
            datatype,
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}

/// A persistent gather or scatter (`call`) of `count` elements per process
/// at `root`.
///
/// # Safety
/// As [`exchange`], with p blocks at the root (recv for gather, send for
/// scatter).
pub unsafe fn rooted<C, T>(
    call: &str,
    comm: &C,
    send: *const T,
    recv: *mut T,
    count: usize,
    root: usize,
) -> Request
where
    C: Communicator,
    T: Equivalence,
{
    let (mut request, n, datatype) = (null_request(), self::count(count), T::equivalent_datatype());
    // SAFETY: the caller's contract; `call` is gather or scatter.
    unsafe {
        let init: Rooted = init_of(call);
        let datatype = datatype.as_raw();
        init(
            send as *const c_void,
            n,
            datatype,
            recv as *mut c_void,
            n,
            datatype,
            self::count(root),
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}

type BarrierInit = unsafe extern "C" fn(Comm, Info, Req) -> c_int;

/// A persistent barrier.
pub fn barrier<C: Communicator>(comm: &C) -> Request {
    let mut request = null_request();
    // SAFETY: a barrier holds no buffer; `find` has it (callers check).
    unsafe {
        let init: BarrierInit = init_of("Barrier");
        init(comm.as_raw(), info_null(), &mut request);
    }
    Request(request)
}

/// A persistent bcast of `count` elements in `buffer` from `root`.
///
/// # Safety
/// `buffer` holds `count` elements and stays valid and in place while the
/// request lives.
pub unsafe fn bcast<C, T>(comm: &C, buffer: *mut T, count: usize, root: usize) -> Request
where
    C: Communicator,
    T: Equivalence,
{
    let mut request = null_request();
    // SAFETY: the caller's contract.
    unsafe {
        let init: BcastInit = init_of("Bcast");
        init(
            buffer as *mut c_void,
            self::count(count),
            T::equivalent_datatype().as_raw(),
            self::count(root),
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}

/// A persistent reduce of `count` elements to `root` (`recv` is read only
/// there).
///
/// # Safety
/// As [`reduction`].
pub unsafe fn reduce<C, T, O>(
    comm: &C,
    send: *const T,
    recv: *mut T,
    count: usize,
    op: O,
    root: usize,
) -> Request
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    let mut request = null_request();
    // SAFETY: the caller's contract.
    unsafe {
        let init: ReduceInit = init_of("Reduce");
        init(
            send as *const c_void,
            recv as *mut c_void,
            self::count(count),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            self::count(root),
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}

/// A persistent reduce_scatter leaving `counts[i]` elements on process i.
///
/// # Safety
/// As [`reduction`]; `counts` (one per process) too stays valid while the
/// request lives.
pub unsafe fn reduce_scatter<C, T, O>(
    comm: &C,
    send: *const T,
    recv: *mut T,
    counts: &[i32],
    op: O,
) -> Request
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    assert_eq!(counts.len(), comm.size() as usize, "one count per process");
    let mut request = null_request();
    // SAFETY: the caller's contract.
    unsafe {
        let init: ReduceScatterInit = init_of("Reduce_scatter");
        init(
            send as *const c_void,
            recv as *mut c_void,
            counts.as_ptr(),
            T::equivalent_datatype().as_raw(),
            op.as_raw(),
            comm.as_raw(),
            info_null(),
            &mut request,
        );
    }
    Request(request)
}
