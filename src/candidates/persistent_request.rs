//! The library's persistent collective as a [`Call`]: `MPI_Xxx_init`
//! (or `MPIX_Xxx_init`) once, then `MPI_Start` + `MPI_Wait` per call.
//!
//! The request holds on to its buffers, and the harness moves the buffers
//! to a fresh place every round on every rank ([`crate::measure`]): the
//! request is then initialised again by [`Hooks::moved`], outside the timed
//! calls and on every rank alike (the initialisation is collective).

use super::{Call, Hooks, Setup};
use crate::collective::{transfers, Collective};
use crate::element::Element;
use mockups::persistent::{self, Request};
use mpi::topology::SimpleCommunicator;
use std::cell::RefCell;
use std::ffi::c_void;
use std::rc::Rc;

/// What the running library lacks to run persistent collectives, naming
/// the first missing initialisation and the MPI version it reports; `None`
/// when it has every one (as `MPI_` or `MPIX_`).
pub fn missing(mpi_version: (i32, i32), library: &str) -> Option<String> {
    #[cfg(feature = "testing")]
    let hidden = std::env::var_os("PGCHECK_TEST_NO_PERSISTENT").is_some();
    #[cfg(not(feature = "testing"))]
    let hidden = false;
    let call = persistent::CALLS
        .into_iter()
        .find(|call| hidden || persistent::find(call).is_none())?;
    let library = library.lines().next().unwrap_or("").trim();
    Some(format!(
        "this MPI library has no persistent collectives: neither MPI_{call}_init (MPI-4) nor \
         MPIX_{call}_init (Open MPI 4.1's extension); it reports MPI {}.{} ({library})",
        mpi_version.0, mpi_version.1
    ))
}

/// The library's own persistent collective for `setup.shape`, and its
/// [`Hooks`]: the request is initialised at the first call on the buffers
/// it gets, and again on every rank when the harness moves them.
pub fn prepare<T: Element>(setup: &Setup) -> (Call<T>, Rc<dyn Hooks>) {
    let bound = Rc::new(RefCell::new(Bound {
        request: None,
        init: initialiser::<T>(setup),
    }));
    let in_call = Rc::clone(&bound);
    let call: Call<T> = Box::new(move |send, recv| {
        let at = (
            send.as_ptr() as *const c_void,
            recv.as_mut_ptr() as *mut c_void,
        );
        in_call.borrow_mut().start_and_wait(at);
    });
    (call, Rc::new(Rebind(bound)))
}

/// A request initialised on the buffers at `(send, recv)`.
type Initialiser = Box<dyn Fn((*const c_void, *mut c_void)) -> Request>;

/// A persistent request and the buffers it is bound to.
struct Bound {
    /// Before `init`: fields drop in order, and the request must be freed
    /// before the counts `init` holds for it.
    request: Option<((*const c_void, *mut c_void), Request)>,
    init: Initialiser,
}

impl Bound {
    /// Frees the request (if any) and initialises one on `at`; collective.
    fn bind(&mut self, at: (*const c_void, *mut c_void)) {
        self.request = None;
        self.request = Some((at, (self.init)(at)));
    }

    /// One collective on the buffers at `at`, bound there at the first
    /// call. Every rank makes its first call (verification's) alike; from
    /// then on only [`Hooks::moved`] binds it again, on every rank at once:
    /// binding where one rank's buffers happened to stay put would leave
    /// the ranks initialising different numbers of requests.
    ///
    /// # Panics
    /// If the buffers moved without [`Hooks::moved`].
    fn start_and_wait(&mut self, at: (*const c_void, *mut c_void)) {
        match &self.request {
            None => self.bind(at),
            Some((bound, _)) => assert!(
                *bound == at,
                "a persistent request bound to {bound:?} called on {at:?}: \
                 the buffers moved without Hooks::moved"
            ),
        }
        let (_, request) = self.request.as_mut().expect("bound above");
        request.start_and_wait();
    }
}

/// The request bound again where the harness moved the buffers.
struct Rebind(Rc<RefCell<Bound>>);

impl Hooks for Rebind {
    fn moved(&self, send: *const c_void, recv: *mut c_void) {
        self.0.borrow_mut().bind((send, recv));
    }
}

/// How `setup.shape`'s persistent collective is initialised on a pair of
/// buffers (laid out as [`crate::collective::Shape`] says).
fn initialiser<T: Element>(setup: &Setup) -> Initialiser {
    let comm: Rc<SimpleCommunicator> = Rc::clone(&setup.comm);
    let (shape, op) = (setup.shape.clone(), setup.op);
    let (m, root) = (shape.count, shape.root);
    let call = &shape.collective.mpi_name()["MPI_".len()..];
    let call: &'static str = persistent::CALLS
        .into_iter()
        .find(|c| *c == call)
        .expect("every collective has a persistent form");
    let counts: Vec<i32> = shape.counts.iter().map(|&c| c as i32).collect();
    // SAFETY (every arm): the harness's buffers have the shape's lengths
    // and stay in place until `Hooks::moved`, which frees the request
    // before it initialises the next; `counts` lives in the closure, as
    // long as every request it initialises.
    Box::new(move |(s, r)| {
        let (s, r, comm) = (s as *const T, r as *mut T, &*comm);
        unsafe {
            match shape.collective {
                Collective::Allreduce
                | Collective::ReduceScatterBlock
                | Collective::Scan
                | Collective::Exscan => persistent::reduction(call, comm, s, r, m, op),
                Collective::Allgather | Collective::Alltoall => {
                    persistent::exchange(call, comm, s, r, m)
                }
                Collective::Gather | Collective::Scatter => {
                    persistent::rooted(call, comm, s, r, m, root)
                }
                Collective::Bcast => persistent::bcast(comm, r, m, root),
                Collective::Reduce => persistent::reduce(comm, s, r, m, op, root),
                Collective::ReduceScatter => persistent::reduce_scatter(comm, s, r, &counts, op),
                Collective::Barrier => persistent::barrier(comm),
                transfers!() => unreachable!("a transfer has no persistent form"),
            }
        }
    })
}
