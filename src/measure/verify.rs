//! Checking a candidate's result against the independent reference
//! ([`crate::reference`]), and agreeing on the outcome across ranks.

use super::Context;
use crate::candidates::communicator::OutputOrder;
use crate::candidates::native::InPlaceCall;
use crate::candidates::Call;
use crate::collective::Shape;
use crate::element::Element;
use crate::reference::{self, Inputs};

/// One verification of candidates with one operator: this rank's send
/// buffer and the output MPI defines, computed once per case and shared by
/// the usual form's checks and the in-place one. Before each call the
/// receive buffer gets the sentinel of every expected element (bcast's
/// input at its root).
pub(super) struct Check<T> {
    /// The send buffer of the check, restored after a second verification.
    pub(super) send: Vec<T>,
    want: Vec<T>,
    defined: std::ops::Range<usize>,
    /// bcast's root: `recv` holds the input, which is also the output.
    recv_is_input: bool,
    shape: Shape,
    inputs: Inputs,
}

impl<T: Element> Check<T> {
    /// The check of `inputs`, with `send` this rank's send buffer for them
    /// ([`reference::send_buffer`]). Collective over the control plane:
    /// where the ranks share the reference ([`reference::sharing`]), each
    /// folds its share and the shares are gathered.
    pub(super) fn new(ctx: &Context, shape: &Shape, inputs: Inputs, send: Vec<T>) -> Check<T> {
        Check {
            send,
            want: expected(ctx, shape, &inputs),
            defined: shape.defined_output(),
            recv_is_input: reference::recv_is_input(shape),
            shape: shape.clone(),
            inputs,
        }
    }

    /// The check of a candidate whose output is the reference's in another
    /// order ([`OutputOrder`]): the same inputs, the output reordered here,
    /// outside any timed region.
    pub(super) fn reordered(&self, order: &OutputOrder) -> Check<T> {
        let source = match order.rank == self.shape.rank {
            true => self.want.clone(),
            // Another rank's output; only unshared references are asked
            // for (alltoall), which a rank computes alone.
            false => reference::expected(
                &Shape {
                    rank: order.rank,
                    ..self.shape.clone()
                },
                &self.inputs,
            ),
        };
        let m = self.shape.count;
        let want = order
            .blocks
            .iter()
            .flat_map(|&b| source[b * m..(b + 1) * m].iter().copied())
            .collect();
        Check {
            send: self.send.clone(),
            want,
            defined: self.defined.clone(),
            recv_is_input: self.recv_is_input,
            shape: self.shape.clone(),
            inputs: self.inputs,
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
        let (before, defined, after) = split3(recv, self.defined.clone());
        before.fill(T::default());
        after.fill(T::default());
        match self.recv_is_input {
            true => defined.copy_from_slice(&self.want),
            false => {
                for (x, &w) in defined.iter_mut().zip(&self.want) {
                    *x = T::sentinel(w);
                }
            }
        }
    }

    /// What is wrong with the output of the call that last ran on `send`
    /// and `recv`, as they stand.
    pub(super) fn output(&self, send: &[T], recv: &[T]) -> Option<String> {
        if let Some(mismatch) = reference::compare(&recv[self.defined.clone()], &self.want) {
            return Some(mismatch.to_string());
        }
        (*send != self.send[..]).then(|| "it overwrote its send buffer".to_string())
    }

    /// Runs the library's in-place call once on a buffer of its own, laid
    /// out from this check's send buffer and output
    /// ([`reference::in_place`]); what it did wrong. `None` where the
    /// collective has no in-place form.
    pub(super) fn verify_in_place(&self, call: &mut InPlaceCall<T>) -> Option<String> {
        let expected = reference::in_place(&self.shape, &self.send, &self.want)?;
        let mut buffer = expected.before;
        call(&mut buffer);
        let got = &buffer[expected.defined.clone()];
        reference::compare(got, expected.want).map(|mismatch| mismatch.to_string())
    }
}

/// The output MPI defines on this rank for `inputs`: computed alone, or
/// where the ranks share it ([`reference::sharing`]), this rank's share
/// folded here and the others' received over the control plane.
/// Collective over the control plane.
fn expected<T: Element>(ctx: &Context, shape: &Shape, inputs: &Inputs) -> Vec<T> {
    match reference::sharing(shape) {
        None => reference::expected(shape, inputs),
        Some(reference::Sharing::Prefix) => prefix(ctx, shape, inputs),
        Some(reference::Sharing::Everyone) => reduction(ctx, shape, inputs, None),
        Some(reference::Sharing::Root(root)) => reduction(ctx, shape, inputs, Some(root)),
    }
}

/// Allreduce's output (`root` None) or reduce's at `root`: this rank folds
/// its share, and the shares are gathered where the output is defined.
fn reduction<T: Element>(
    ctx: &Context,
    shape: &Shape,
    inputs: &Inputs,
    root: Option<usize>,
) -> Vec<T> {
    let (p, r) = (shape.size, shape.rank);
    let bounds = reference::share_bounds(shape.count, p);
    let mine = bounds[r]..bounds[r + 1];
    let needed = root.is_none_or(|root| r == root);
    let mut want = vec![T::default(); if needed { shape.count } else { mine.len() }];
    let share = match needed {
        true => &mut want[mine.clone()],
        false => &mut want[..],
    };
    reference::reduce_into(inputs, p, mine.start, share);
    match root {
        None => ctx.control.all_gather_blocks(&mut want, &bounds),
        Some(root) => ctx.control.gather_blocks(root, &mut want, &bounds),
    }
    if !needed {
        return Vec::new();
    }
    debug_assert_eq!(want.len(), shape.defined_output().len());
    want
}

/// Scan's or exscan's output on this rank: this rank folds its share of
/// the elements for every rank's prefix, and each rank receives its own.
fn prefix<T: Element>(ctx: &Context, shape: &Shape, inputs: &Inputs) -> Vec<T> {
    let (p, r) = (shape.size, shape.rank);
    let bounds = reference::share_bounds(shape.count, p);
    let mine = bounds[r]..bounds[r + 1];
    let (blocks, out_bounds) = reference::prefix_blocks(inputs, shape.collective, p, mine);
    let defined = shape.defined_output().len();
    // Each rank's share of this rank's prefix, or nothing where MPI
    // defines no output here (exscan's rank 0).
    let in_bounds = match defined {
        0 => vec![0; p + 1],
        _ => bounds,
    };
    let mut want = vec![T::default(); defined];
    ctx.control
        .all_to_all_blocks(&blocks, &out_bounds, &mut want, &in_bounds);
    want
}

/// `all` cut at the start and the end of `middle`.
fn split3<T>(all: &mut [T], middle: std::ops::Range<usize>) -> (&mut [T], &mut [T], &mut [T]) {
    let (rest, after) = all.split_at_mut(middle.end);
    let (before, middle) = rest.split_at_mut(middle.start);
    (before, middle, after)
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

/// How late the late rank of a barrier's check enters it.
const BARRIER_LATE_S: f64 = 0.03;

/// A barrier's check, which no output can give: in turn the first, middle
/// and last rank enter [`BARRIER_LATE_S`] late, after a synchronisation
/// over the control plane (which never uses the library's collectives);
/// every other rank must spend at least a third of that in the call, or
/// it left before the late rank entered. A rank descheduled that long
/// after the synchronisation would look early too, so a failure is tried
/// once more before it counts. What this rank saw wrong, if anything;
/// every rank returns at the same point.
pub(super) fn verify_barrier<T: Element>(
    ctx: &Context,
    call: &mut Call<T>,
    send: &[T],
    recv: &mut [T],
) -> Option<String> {
    let (p, me) = (ctx.size(), ctx.rank());
    if p == 1 {
        call(send, recv);
        return None;
    }
    let mut late_ranks = vec![0, p / 2, p - 1];
    late_ranks.dedup();
    for late in late_ranks {
        for attempt in 0..2 {
            ctx.control.barrier();
            if me == late {
                std::thread::sleep(std::time::Duration::from_secs_f64(BARRIER_LATE_S));
            }
            let start = mpi::time();
            call(send, recv);
            let waited = mpi::time() - start;
            let early = (me != late && waited < BARRIER_LATE_S / 3.0).then(|| {
                format!(
                    "left the barrier {:.2} ms after entering it, while rank {late} entered \
                     {:.0} ms after the others",
                    waited * 1e3,
                    BARRIER_LATE_S * 1e3
                )
            });
            let mut any = [f64::from(u8::from(early.is_some()))];
            ctx.control.max(&mut any);
            match (any[0] == 0.0, attempt) {
                (true, _) => break,
                (false, 1) => return early,
                (false, _) => {}
            }
        }
    }
    None
}
