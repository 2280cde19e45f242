//! Checking a candidate's result against the independent reference
//! ([`crate::reference`]), and agreeing on the outcome across ranks.

use super::Context;
use crate::candidates::native::InPlaceCall;
use crate::candidates::Call;
use crate::collective::Shape;
use crate::element::Element;
use crate::reference::{self, Inputs};

/// One verification of candidates: the send buffer, what the receive
/// buffer holds before the call (the sentinel of every expected element,
/// bcast's input at its root), and the output MPI defines.
pub(super) struct Check<T> {
    /// The send buffer of the check, restored after a second verification.
    pub(super) send: Vec<T>,
    recv_before: Vec<T>,
    want: Vec<T>,
    defined: std::ops::Range<usize>,
}

impl<T: Element> Check<T> {
    pub(super) fn new(shape: &Shape, inputs: Inputs) -> Check<T> {
        let want = reference::expected::<T>(shape, &inputs);
        let defined = shape.defined_output();
        let recv_before = reference::recv_input(shape, &inputs).unwrap_or_else(|| {
            let mut recv = vec![T::default(); shape.recv_len()];
            for (x, &w) in recv[defined.clone()].iter_mut().zip(&want) {
                *x = T::sentinel(w);
            }
            recv
        });
        Check {
            send: reference::send_buffer(shape, &inputs),
            recv_before,
            want,
            defined,
        }
    }

    /// Runs a candidate once on `send` and `recv`; what it did wrong.
    pub(super) fn verify(
        &self,
        call: &mut Call<T>,
        send: &mut [T],
        recv: &mut [T],
    ) -> Option<String> {
        self.reset(send, recv);
        call(send, recv);
        self.output(send, recv)
    }

    /// Puts the check's inputs into `send` and `recv`: what a wrong
    /// candidate's verification left there (bcast's root reads its input
    /// from `recv`) must not reach the timed calls.
    pub(super) fn reset(&self, send: &mut [T], recv: &mut [T]) {
        send.copy_from_slice(&self.send);
        recv.copy_from_slice(&self.recv_before);
    }

    /// What is wrong with the output of the call that last ran on `send`
    /// and `recv`, as they stand.
    pub(super) fn output(&self, send: &[T], recv: &[T]) -> Option<String> {
        if let Some(mismatch) = reference::compare(&recv[self.defined.clone()], &self.want) {
            return Some(mismatch.to_string());
        }
        (*send != self.send[..]).then(|| "it overwrote its send buffer".to_string())
    }
}

/// One verification of the library's call in place: its one buffer
/// before the call and the output MPI defines ([`reference::in_place`]).
pub(super) struct InPlaceCheck<T> {
    expected: reference::InPlace<T>,
}

impl<T: Element> InPlaceCheck<T> {
    /// `None` where the collective has no in-place form.
    pub(super) fn new(shape: &Shape, inputs: Inputs) -> Option<InPlaceCheck<T>> {
        let expected = reference::in_place(shape, &inputs)?;
        Some(InPlaceCheck { expected })
    }

    /// Runs an in-place call once on a buffer of its own; what it did wrong.
    pub(super) fn verify(&self, call: &mut InPlaceCall<T>) -> Option<String> {
        // Never the dangling pointer of an empty Vec: Open MPI's
        // MPI_IN_PLACE is (void*)1, the address an empty Vec<u8> has.
        let before = &self.expected.before;
        let mut buffer = Vec::with_capacity(before.len().max(1));
        buffer.extend_from_slice(before);
        call(&mut buffer);
        let got = &buffer[self.expected.defined.clone()];
        reference::compare(got, &self.expected.want).map(|mismatch| mismatch.to_string())
    }
}

/// Agrees on a verification failure: every rank learns on which ranks the
/// candidate was wrong and what the first of them saw.
pub(super) fn agree_on_failure(ctx: &Context, local: Option<String>) -> Option<String> {
    let flags = ctx.control.all_gather(&[i32::from(local.is_some())]);
    let wrong: Vec<usize> = (0..flags.len()).filter(|&r| flags[r] != 0).collect();
    let first = *wrong.first()?;
    // The first wrong rank tells the others what it saw.
    let reason = ctx
        .control
        .broadcast_text(first, local.as_deref().unwrap_or_default(), 200);
    let others = match wrong.len() {
        1 => String::new(),
        n => format!(" (wrong on {n} ranks: {wrong:?})"),
    };
    Some(format!("rank {first}, {reason}{others}"))
}
