//! Before the plan is printed: how long one call of the library's
//! collective takes in each case, and how much memory the processes hold.

use super::{setup, Context};
use crate::candidates;
use crate::element::Element;
use crate::host;
use crate::plan::{Case, CaseProbe};
use crate::reference::{self, Inputs};
use crate::watchdog::{self, Phase};
use crate::with_element;

/// Probes every case (all zero for a case skipped whole), so that the plan
/// can tell how long cases whose calls outlast a round's share of the
/// budget take. A call longer than `slice_s` is made twice and the faster
/// counts: the first call of a size also pays for touching its buffers.
/// Collective.
pub fn probe_cases(ctx: &Context, cases: &[Case], slice_s: f64) -> Vec<CaseProbe> {
    cases
        .iter()
        .map(|case| match case.candidates.is_empty() {
            true => CaseProbe::default(),
            false => with_element!(case.key.datatype, T => probe::<T>(ctx, case, slice_s)),
        })
        .collect()
}

fn probe<T: Element>(ctx: &Context, case: &Case, slice_s: f64) -> CaseProbe {
    let key = &case.key;
    let shape = key.shape(ctx.size(), ctx.rank());
    let mut call = candidates::native::prepare::<T>(&setup(ctx, case, &shape, key.op));
    let inputs = Inputs::new(key.operation.collective, key.op, shape.size);
    let started = mpi::time();
    // Never the dangling pointer of an empty Vec (MPI_IN_PLACE in Open MPI).
    let mut send = reference::send_buffer::<T>(&shape, &inputs);
    send.reserve(1);
    let inputs_s = largest_f64(ctx, mpi::time() - started);
    let mut recv = Vec::with_capacity(shape.recv_len().max(1));
    recv.resize(shape.recv_len(), T::default());
    watchdog::at(&key.label(), candidates::native::DEFAULT);
    let mut once = || {
        ctx.control.barrier();
        watchdog::enter(Phase::Calling, 0.0);
        let start = mpi::time();
        call(&send, &mut recv);
        let took = mpi::time() - start;
        watchdog::enter(Phase::Idle, 0.0);
        largest_f64(ctx, took)
    };
    let first = once();
    let call_s = match first > slice_s {
        true => first.min(once()),
        false => first,
    };
    CaseProbe { call_s, inputs_s }
}

fn largest_f64(ctx: &Context, local: f64) -> f64 {
    let mut max = [local];
    ctx.control.max(&mut max);
    max[0]
}

/// The largest resident set of any process now, in bytes (Linux's
/// `/proc/self/statm`; 0 elsewhere). Collective.
pub fn resident_bytes(ctx: &Context) -> u64 {
    largest(ctx, host::resident_bytes())
}

/// The largest peak resident set of any process so far, in bytes. Collective.
pub fn largest_peak_rss_bytes(ctx: &Context) -> u64 {
    largest(ctx, host::peak_rss_bytes())
}

/// Bytes the run allocates once for a cold cache (`--cache cold`).
pub fn cold_cache_bytes() -> u64 {
    host::last_level_cache_bytes() as u64 * 2
}

/// Exact below 2⁵³ bytes.
fn largest(ctx: &Context, local: u64) -> u64 {
    largest_f64(ctx, local as f64) as u64
}
