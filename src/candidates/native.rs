//! `default`: the library's own collective.

use super::{persistent_request, Call, Hooks, Setup};
use crate::collective::{transfers, Collective};
use crate::element::Element;
use crate::operation::Form;
use mockups::rooted;
use mpi::request::scope;
use mpi::traits::*;
use std::rc::Rc;

/// The name of the library's own call.
pub const DEFAULT: &str = "default";

/// The name of the library's own call in place, where a case times both
/// forms (`in_place: both`): a competitor of `default`.
pub const DEFAULT_IN_PLACE: &str = "default_in_place";

/// Whether `name` is the library's own call, in either form.
pub fn is_library_call(name: &str) -> bool {
    name == DEFAULT || name == DEFAULT_IN_PLACE
}

/// The in-place form, prepared: the collective on its one buffer, laid out
/// as [`crate::reference::in_place`] says.
pub type InPlaceCall<T> = Box<dyn FnMut(&mut [T])>;

/// The library's own call in the form the case times as `default`
/// (`setup.tuning.default_in_place`).
pub fn prepare_timed<T: Element>(setup: &Setup) -> Call<T> {
    prepare_timed_hooked(setup).0
}

/// [`prepare_timed`], and the call's [`Hooks`]: a persistent request's.
#[allow(clippy::type_complexity)]
pub fn prepare_timed_hooked<T: Element>(setup: &Setup) -> (Call<T>, Option<Rc<dyn Hooks>>) {
    match (setup.tuning.default_in_place, setup.form) {
        (true, _) => (prepare_in_place_timed(setup), None),
        (false, _) if setup.shape.collective.is_transfer() => {
            super::transfer::prepare_default(setup)
        }
        (false, Form::Persistent) => {
            let (call, hooks) = persistent_request::prepare(setup);
            (call, Some(hooks))
        }
        (false, _) => (prepare(setup), None),
    }
}

/// The in-place form as a [`Call`]: it works on a buffer of its own and
/// leaves `send` and `recv` alone. The buffer starts as zeros, which every
/// operator keeps zeros: each timed call reduces the output of the one
/// before, and other values would grow into overflow or denormals.
pub fn prepare_in_place_timed<T: Element>(setup: &Setup) -> Call<T> {
    let mut call = prepare_in_place(setup).expect("a collective with an in-place form");
    // Never the dangling pointer of an empty Vec (see `mockups::in_place`).
    let len = setup.shape.in_place_len();
    let mut buffer = Vec::with_capacity(len.max(1));
    buffer.resize(len, T::default());
    Box::new(move |_, _| call(&mut buffer))
}

/// The library's own collective in place (`MPI_IN_PLACE`) for
/// `setup.shape`; `None` for bcast, which has no in-place form. Off the
/// root, reduce and gather send the buffer and scatter receives into it
/// with the usual form, as MPI has them do.
pub fn prepare_in_place<T: Element>(setup: &Setup) -> Option<InPlaceCall<T>> {
    use mockups::in_place;
    let comm = setup.comm.clone();
    let op = setup.op;
    let shape = &setup.shape;
    let root = shape.root as i32;
    let is_root = shape.is_root();
    let call: InPlaceCall<T> = match shape.collective {
        Collective::Bcast | Collective::Barrier => return None,
        transfers!() => return None,
        Collective::Allgather => Box::new(move |b| in_place::allgather(&*comm, b)),
        Collective::Allreduce => Box::new(move |b| in_place::allreduce(&*comm, b, op)),
        Collective::Alltoall => Box::new(move |b| in_place::alltoall(&*comm, b)),
        Collective::Gather if is_root => Box::new(move |b| in_place::gather_at_root(&*comm, b)),
        Collective::Gather => Box::new(move |b| comm.process_at_rank(root).gather_into(&b[..])),
        Collective::Reduce if is_root => Box::new(move |b| in_place::reduce_at_root(&*comm, b, op)),
        Collective::Reduce => Box::new(move |b| comm.process_at_rank(root).reduce_into(&b[..], op)),
        Collective::ReduceScatterBlock => {
            Box::new(move |b| in_place::reduce_scatter_block(&*comm, b, op))
        }
        Collective::ReduceScatter => {
            let counts: Vec<i32> = shape.counts.iter().map(|&c| c as i32).collect();
            Box::new(move |b| in_place::reduce_scatter(&*comm, b, &counts, op))
        }
        Collective::Scan => Box::new(move |b| in_place::scan(&*comm, b, op)),
        Collective::Exscan => Box::new(move |b| in_place::exscan(&*comm, b, op)),
        Collective::Scatter if is_root => Box::new(move |b| in_place::scatter_at_root(&*comm, b)),
        Collective::Scatter => Box::new(move |b| comm.process_at_rank(root).scatter_into(b)),
    };
    Some(call)
}

/// The library's own collective for `setup.shape`, in `setup.form`.
pub fn prepare<T: Element>(setup: &Setup) -> Call<T> {
    match setup.form {
        Form::Blocking if setup.shape.collective.is_transfer() => {
            super::transfer::prepare_default(setup).0
        }
        Form::Blocking => prepare_blocking(setup),
        Form::Nonblocking => prepare_nonblocking(setup),
        Form::Persistent => persistent_request::prepare(setup).0,
    }
}

/// The library's own blocking collective for `setup.shape`.
pub fn prepare_blocking<T: Element>(setup: &Setup) -> Call<T> {
    let comm = setup.comm.clone();
    let op = setup.op;
    let shape = &setup.shape;
    let root = shape.root as i32;
    let is_root = shape.is_root();
    match shape.collective {
        Collective::Allgather => Box::new(move |s, r| comm.all_gather_into(s, r)),
        Collective::Allreduce => Box::new(move |s, r| comm.all_reduce_into(s, r, op)),
        Collective::Alltoall => Box::new(move |s, r| comm.all_to_all_into(s, r)),
        Collective::Bcast => Box::new(move |_, r| comm.process_at_rank(root).broadcast_into(r)),
        Collective::Gather => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.gather_into_root(s, r)
            } else {
                root.gather_into(s)
            }
        }),
        Collective::Reduce => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.reduce_into_root(s, r, op)
            } else {
                root.reduce_into(s, op)
            }
        }),
        Collective::ReduceScatterBlock => {
            Box::new(move |s, r| comm.reduce_scatter_block_into(s, r, op))
        }
        Collective::ReduceScatter => {
            let counts: Vec<i32> = shape.counts.iter().map(|&c| c as i32).collect();
            Box::new(move |s, r| mockups::raw::reduce_scatter(&*comm, s, r, &counts, op))
        }
        Collective::Scan => Box::new(move |s, r| comm.scan_into(s, r, op)),
        Collective::Exscan => Box::new(move |s, r| comm.exclusive_scan_into(s, r, op)),
        Collective::Barrier => Box::new(move |_, _| comm.barrier()),
        transfers!() => super::transfer::prepare_default(setup).0,
        Collective::Scatter => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.scatter_into_root(s, r)
            } else {
                root.scatter_into(r)
            }
        }),
    }
}

/// The library's own nonblocking collective for `setup.shape`, waited for
/// at once: `MPI_Ixxx` then `MPI_Wait`, nothing in between.
pub fn prepare_nonblocking<T: Element>(setup: &Setup) -> Call<T> {
    prepare_overlapped(setup, || {})
}

/// The library's own nonblocking collective for `setup.shape` with `work`
/// between `MPI_Ixxx` and `MPI_Wait`: what of the call the library
/// overlaps with computation.
pub fn prepare_overlapped<T: Element>(setup: &Setup, work: impl Fn() + Clone + 'static) -> Call<T> {
    let comm = setup.comm.clone();
    let op = setup.op;
    let shape = &setup.shape;
    let root = shape.root;
    // The start and the wait around `work`, in a scope that ends with them.
    macro_rules! around {
        ($start:expr) => {
            Box::new(move |s, r| {
                scope(|sc| {
                    let request = $start(sc, s, r);
                    work();
                    request.wait_without_status()
                })
            })
        };
    }
    match shape.collective {
        Collective::Allgather => around!(|sc, s, r| comm.immediate_all_gather_into(sc, s, r)),
        Collective::Allreduce => around!(|sc, s, r| comm.immediate_all_reduce_into(sc, s, r, op)),
        Collective::Alltoall => around!(|sc, s, r| comm.immediate_all_to_all_into(sc, s, r)),
        Collective::Bcast => {
            Box::new(move |_, r| rooted::ibcast_overlapped(&*comm, root, r, &work))
        }
        Collective::Gather => {
            Box::new(move |s, r| rooted::igather_overlapped(&*comm, root, s, r, &work))
        }
        Collective::Reduce => {
            Box::new(move |s, r| rooted::ireduce_overlapped(&*comm, root, s, r, op, &work))
        }
        Collective::ReduceScatterBlock => {
            around!(|sc, s, r| comm.immediate_reduce_scatter_block_into(sc, s, r, op))
        }
        Collective::ReduceScatter => {
            let counts: Vec<i32> = shape.counts.iter().map(|&c| c as i32).collect();
            Box::new(move |s, r| {
                mockups::raw::ireduce_scatter_overlapped(&*comm, s, r, &counts, op, &work)
            })
        }
        Collective::Scan => around!(|sc, s, r| comm.immediate_scan_into(sc, s, r, op)),
        Collective::Exscan => around!(|sc, s, r| comm.immediate_exclusive_scan_into(sc, s, r, op)),
        Collective::Scatter => {
            Box::new(move |s, r| rooted::iscatter_overlapped(&*comm, root, s, r, &work))
        }
        Collective::Barrier => Box::new(move |_, _| {
            let request = comm.immediate_barrier();
            work();
            request.wait_without_status()
        }),
        transfers!() => unreachable!("a transfer has no nonblocking form"),
    }
}
