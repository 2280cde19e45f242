//! The point-to-point and one-sided operations (Träff, Gropp & Thakur
//! 2010, sections 3 and 6): `default`, the library's `MPI_Send` or
//! fence-synchronised `MPI_Put` or `MPI_Get` in a ping-pong or a halo
//! ([`crate::collective::Shape::pattern`]), and what the guidelines say
//! must not be faster: the send as `MPI_Isend` + `MPI_Wait`, as
//! `MPI_Ssend`, split into smaller messages; the put and the get as sends
//! and under passive-target synchronisation (lock and unlock, or flush in
//! one lock-all epoch).
//!
//! A window is created over the harness's buffer (`recv` for a put, `send`
//! for a get) at the first call, outside the timed calls, and again where
//! the harness moves the buffers ([`Hooks::moved`], on every rank alike:
//! creating and freeing a window is collective). So a window costs no
//! memory beyond the case's buffers, and none outlives its case.

use super::{Call, Competitor, Family, Hooks, NotApplicable, Setup};
use crate::collective::{Collective, Transfer};
use crate::element::Element;
use crate::operation::Operation;
use mockups::send::{Sender, TwoSided};
use mockups::window::{Passive, Window};
use mockups::{get, put};
use mpi::topology::SimpleCommunicator;
use std::cell::RefCell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::rc::Rc;

/// Pieces `*_as_split` sends a message in unless the input's `blocks`
/// says otherwise: the paper's Figure 1 (two messages of 750 B beat one of
/// 1,500 B across the eager limit).
pub const SPLIT_PIECES: usize = 2;

macro_rules! competitor {
    ($name:literal, $collective:ident, $guideline:literal, $description:literal) => {
        Competitor {
            name: $name,
            operation: Operation::blocking(Collective::$collective),
            family: Family::Transfer,
            guideline: $guideline,
            description: $description,
        }
    };
}

/// The family's competitors, in `pgcheck list` order.
pub const COMPETITORS: &[Competitor] = &[
    competitor!("send_as_isend_wait", Send, "(2) MPI_Send ⪯ MPI_Isend + MPI_Wait", "each MPI_Send of the ping-pong as MPI_Isend and MPI_Wait"),
    competitor!("send_as_ssend", Send, "(6) MPI_Send ⪯ MPI_Ssend", "each MPI_Send of the ping-pong as MPI_Ssend, which has more semantics"),
    competitor!("send_as_split", Send, "(4) MPI_Send(kn) ⪯ k × MPI_Send(n)", "each message of the ping-pong as k MPI_Send of n/k (k = blocks, default 2)"),
    competitor!("sendhalo_as_isend_wait", SendHalo, "(2) MPI_Send ⪯ MPI_Isend + MPI_Wait", "each MPI_Send of the halo as MPI_Isend and MPI_Wait"),
    competitor!("sendhalo_as_ssend", SendHalo, "(6) MPI_Send ⪯ MPI_Ssend", "each MPI_Send of the halo as MPI_Ssend"),
    competitor!("sendhalo_as_split", SendHalo, "(4) MPI_Send(kn) ⪯ k × MPI_Send(n)", "each message of the halo as k MPI_Send of n/k (k = blocks, default 2)"),
    competitor!("put_as_send", Put, "(23) fence + MPI_Put + fence ⪯ barrier + MPI_Send(d) + MPI_Send(n) + barrier", "barrier, MPI_Send of the displacement and of the data, barrier after each phase"),
    competitor!("put_as_lock", Put, "fence + MPI_Put + fence ≈ barrier + lock + MPI_Put + unlock + barrier", "passive target: a barrier, then MPI_Win_lock, MPI_Put, MPI_Win_unlock and a barrier per phase"),
    competitor!("put_as_flush", Put, "fence + MPI_Put + fence ≈ barrier + MPI_Put + MPI_Win_flush + barrier", "passive target in one MPI_Win_lock_all epoch: a barrier, then MPI_Put and MPI_Win_flush and a barrier per phase"),
    competitor!("puthalo_as_send", PutHalo, "(23) fence + MPI_Put + fence ⪯ barrier + MPI_Send(d) + MPI_Send(n) + barrier", "barrier, MPI_Send of the displacement and of the data to both neighbours, barrier"),
    competitor!("puthalo_as_lock", PutHalo, "fence + MPI_Put + fence ≈ barrier + lock + MPI_Put + unlock + barrier", "passive target: a barrier, lock, MPI_Put, unlock per neighbour, a barrier"),
    competitor!("puthalo_as_flush", PutHalo, "fence + MPI_Put + fence ≈ barrier + MPI_Put + MPI_Win_flush + barrier", "passive target in one MPI_Win_lock_all epoch: a barrier, MPI_Put and MPI_Win_flush per neighbour, a barrier"),
    competitor!("get_as_send", Get, "fence + MPI_Get + fence ⪯ barrier + MPI_Send(d) + MPI_Send(n) + barrier", "barrier, a request (the displacement) sent and the data sent back, barrier after each phase"),
    competitor!("get_as_lock", Get, "fence + MPI_Get + fence ≈ barrier + lock + MPI_Get + unlock + barrier", "passive target: a barrier, then MPI_Win_lock, MPI_Get, MPI_Win_unlock and a barrier per phase"),
    competitor!("get_as_flush", Get, "fence + MPI_Get + fence ≈ barrier + MPI_Get + MPI_Win_flush + barrier", "passive target in one MPI_Win_lock_all epoch: a barrier, then MPI_Get and MPI_Win_flush and a barrier per phase"),
    competitor!("gethalo_as_send", GetHalo, "fence + MPI_Get + fence ⪯ barrier + MPI_Send(d) + MPI_Send(n) + barrier", "barrier, a request to and the data from both neighbours, barrier"),
    competitor!("gethalo_as_lock", GetHalo, "fence + MPI_Get + fence ≈ barrier + lock + MPI_Get + unlock + barrier", "passive target: a barrier, lock, MPI_Get, unlock per neighbour, a barrier"),
    competitor!("gethalo_as_flush", GetHalo, "fence + MPI_Get + fence ≈ barrier + MPI_Get + MPI_Win_flush + barrier", "passive target in one MPI_Win_lock_all epoch: a barrier, MPI_Get and MPI_Win_flush per neighbour, a barrier"),
];

/// `default` for a transfer, with its hooks where it holds a window.
#[allow(clippy::type_complexity)]
pub fn prepare_default<T: Element>(setup: &Setup) -> (Call<T>, Option<Rc<dyn Hooks>>) {
    let how = match setup.shape.collective.transfer() {
        Some(Transfer::Send) => How::Send(Sender::Send),
        Some(Transfer::Put) => How::Put(Sync::Fence),
        Some(Transfer::Get) => How::Get(Sync::Fence),
        None => unreachable!("{} is no transfer", setup.shape.collective),
    };
    prepared(how, setup)
}

/// A competitor of this family, with its hooks where it holds a window.
#[allow(clippy::type_complexity)]
pub fn prepare_hooked<T: Element>(
    name: &str,
    setup: &Setup,
) -> Result<(Call<T>, Option<Rc<dyn Hooks>>), NotApplicable> {
    let pieces = setup.tuning.nblock_blocks.unwrap_or(SPLIT_PIECES);
    let how = how(name, pieces)
        .ok_or_else(|| NotApplicable(format!("{name} is not a Transfer competitor")))?;
    Ok(prepared(how, setup))
}

/// How the competitor `name` transfers (a split into `pieces`).
fn how(name: &str, pieces: usize) -> Option<How> {
    Some(match name {
        "send_as_isend_wait" | "sendhalo_as_isend_wait" => How::Send(Sender::IsendWait),
        "send_as_ssend" | "sendhalo_as_ssend" => How::Send(Sender::Ssend),
        "send_as_split" | "sendhalo_as_split" => How::Send(Sender::Split(pieces.max(1))),
        "put_as_send" | "puthalo_as_send" => How::PutAsSend,
        "put_as_lock" | "puthalo_as_lock" => How::Put(Sync::Lock),
        "put_as_flush" | "puthalo_as_flush" => How::Put(Sync::Flush),
        "get_as_send" | "gethalo_as_send" => How::GetAsSend,
        "get_as_lock" | "gethalo_as_lock" => How::Get(Sync::Lock),
        "get_as_flush" | "gethalo_as_flush" => How::Get(Sync::Flush),
        _ => return None,
    })
}

/// [`prepare_hooked`] for a harness that does not move the buffers.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Call<T>, NotApplicable> {
    prepare_hooked(name, setup).map(|(call, _)| call)
}

/// How a transfer is made.
#[derive(Clone, Copy)]
enum How {
    Send(Sender),
    Put(Sync),
    PutAsSend,
    Get(Sync),
    GetAsSend,
}

/// How a one-sided transfer is synchronised.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sync {
    /// `MPI_Win_fence` (active target): the library's way here.
    Fence,
    /// `MPI_Win_lock` and `MPI_Win_unlock` per target, and barriers.
    Lock,
    /// `MPI_Win_flush` per target in one `MPI_Win_lock_all` epoch, and
    /// barriers.
    Flush,
}

#[allow(clippy::type_complexity)]
fn prepared<T: Element>(how: How, setup: &Setup) -> (Call<T>, Option<Rc<dyn Hooks>>) {
    let comm = Rc::clone(&setup.comm);
    let (pattern, m) = (setup.shape.pattern(), setup.shape.count);
    match how {
        How::Send(sender) => {
            let mut two_sided = TwoSided::new(&*comm, pattern, m, sender);
            (Box::new(move |s, r| two_sided.run(&*comm, s, r)), None)
        }
        How::PutAsSend => {
            let mut as_send = put::AsSend::new(&*comm, pattern, m);
            (Box::new(move |s, r| as_send.run(&*comm, s, r)), None)
        }
        How::GetAsSend => {
            let mut as_send = get::AsSend::new(&*comm, pattern, m);
            (Box::new(move |s, r| as_send.run(&*comm, s, r)), None)
        }
        How::Put(sync) => {
            let puts = pattern.peers(&*comm, true);
            let bound = Bound::<T>::new(&comm, setup.shape.recv_len(), sync);
            let window = Rc::clone(&bound);
            let call: Call<T> = Box::new(move |s, r| {
                let mut window = window.borrow_mut();
                let window = window.at(r.as_mut_ptr() as *mut c_void);
                match sync {
                    Sync::Fence => put::fence(window, &puts, s),
                    Sync::Lock => put::passive(&*comm, window, &puts, s, Passive::Lock),
                    Sync::Flush => put::passive(&*comm, window, &puts, s, Passive::Flush),
                }
            });
            let on_recv = true;
            (call, Some(Rc::new(Rebind { bound, on_recv })))
        }
        How::Get(sync) => {
            let gets = pattern.peers(&*comm, false);
            let bound = Bound::<T>::new(&comm, setup.shape.send_len(), sync);
            let window = Rc::clone(&bound);
            let call: Call<T> = Box::new(move |s, r| {
                let mut window = window.borrow_mut();
                // Only gets read the window: MPI never writes `send`.
                let window = window.at(s.as_ptr() as *mut c_void);
                match sync {
                    Sync::Fence => get::fence(window, &gets, r, m),
                    Sync::Lock => get::passive(&*comm, window, &gets, r, m, Passive::Lock),
                    Sync::Flush => get::passive(&*comm, window, &gets, r, m, Passive::Flush),
                }
            });
            let on_recv = false;
            (call, Some(Rc::new(Rebind { bound, on_recv })))
        }
    }
}

/// A window over one of the harness's buffers of `T`, and where it is.
struct Bound<T> {
    comm: Rc<SimpleCommunicator>,
    /// Elements of the buffer.
    len: usize,
    /// Whether the window lives in one `MPI_Win_lock_all` epoch.
    locked_all: bool,
    window: Option<(*mut c_void, Window)>,
    element: PhantomData<T>,
}

impl<T: Element> Bound<T> {
    fn new(comm: &Rc<SimpleCommunicator>, len: usize, sync: Sync) -> Rc<RefCell<Bound<T>>> {
        Rc::new(RefCell::new(Bound {
            comm: Rc::clone(comm),
            len,
            locked_all: sync == Sync::Flush,
            window: None,
            element: PhantomData,
        }))
    }

    /// Frees the window (if any) and creates one over `at`; collective.
    fn bind(&mut self, at: *mut c_void) {
        self.window = None;
        // SAFETY: the harness's buffer at `at` has `len` elements and stays
        // in place until `Hooks::moved`, which frees this window first.
        let (comm, base, len) = (&*self.comm, at as *mut T, self.len);
        let window = unsafe {
            match self.locked_all {
                false => Window::create(comm, base, len),
                true => Window::create_locked_all(comm, base, len),
            }
        };
        self.window = Some((at, window));
    }

    /// The window over the buffer at `at`, created at the first call (every
    /// rank makes it alike, in verification); from then on only
    /// [`Hooks::moved`] creates one, on every rank at once.
    ///
    /// # Panics
    /// If the buffer moved without [`Hooks::moved`].
    fn at(&mut self, at: *mut c_void) -> &Window {
        match &self.window {
            None => self.bind(at),
            Some((bound, _)) => assert!(
                *bound == at,
                "a window over {bound:?} used on {at:?}: the buffers moved without Hooks::moved"
            ),
        }
        &self.window.as_ref().expect("bound above").1
    }
}

/// The window created again where the harness moved the buffers.
struct Rebind<T> {
    bound: Rc<RefCell<Bound<T>>>,
    /// Over `recv` (a put's), else over `send` (a get's).
    on_recv: bool,
}

impl<T: Element> Hooks for Rebind<T> {
    fn moved(&self, send: *const c_void, recv: *mut c_void) {
        let at = match self.on_recv {
            true => recv,
            false => send as *mut c_void,
        };
        self.bound.borrow_mut().bind(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every listed competitor has its code, and its operation's prefix.
    #[test]
    fn every_competitor_is_prepared() {
        for c in COMPETITORS {
            assert!(how(c.name, SPLIT_PIECES).is_some(), "{}", c.name);
            assert!(c.name.starts_with(&format!("{}_as_", c.operation.prefix())));
        }
        assert!(how("send_as_nothing", SPLIT_PIECES).is_none());
    }
}
