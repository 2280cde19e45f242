//! One slice of one candidate: chunks of observations, synchronised by
//! barrier or started at common times (roundtime), and how the pace of the
//! next chunk follows from the last.

use super::verify::Check;
use super::Harness;
use crate::candidates::{Call, Hooks};
use crate::control::Control;
use crate::settings::{SyncMode, LATE_CAP};
use crate::watchdog::{self, Phase};

/// How a candidate's observations went in its last slice. Kept per
/// candidate: one candidate's late starts must not widen another's slots,
/// and a slice's first chunk is sized from the same candidate's pace.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pace {
    /// Seconds per observation (0 before the first slice).
    per_observation: f64,
    /// The slot of a roundtime observation: what the slowest rank needed
    /// for most calls of the last chunk, so that no rank's start is late
    /// because rank 0 happened to finish early (a bcast root, a gather leaf).
    slot: f64,
    /// Slack added to every roundtime slot (and to a chunk's lead), see
    /// [`next_slack`].
    slack: f64,
    /// The machine's hiccups, estimated from the late starts of recent
    /// chunks.
    hiccups: Hiccups,
}

/// Hiccups (interrupts, a descheduled rank) as roundtime sees them: each
/// makes every rank late until the schedule has caught up, which it does by
/// S − d per slot (S = slot + slack, d the typical duration).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Hiccups {
    /// The share of the time they take.
    pub lost: f64,
    /// How many begin per second.
    pub per_second: f64,
}

impl Hiccups {
    /// From a chunk in slots of `slot_s` for calls of `typical`, with the
    /// shares `late` of late starts and `runs` of runs of them. A run of k
    /// late starts is a hiccup the schedule took k slots to catch up with:
    /// it lost between k − 1 and k times S − d, k − ½ on average.
    fn seen(late: f64, runs: f64, slot_s: f64, typical: f64) -> Hiccups {
        Hiccups {
            lost: (late - 0.5 * runs).max(0.0) * (slot_s - typical).max(0.0) / slot_s,
            per_second: runs / slot_s,
        }
    }

    /// The share of starts they make late with slots of `slot_s`: a hiccup
    /// of length h costs h / (S − d) slots, and half a slot more on average
    /// where it ends; so lost·S / (S − d) + ½·per_second·S. Narrow slots
    /// lose many starts to every hiccup, wide ones meet more hiccups.
    fn late(&self, slot_s: f64, typical: f64) -> f64 {
        let catch_up = slot_s - typical;
        if catch_up <= 0.0 {
            return 1.0;
        }
        (self.lost * slot_s / catch_up + 0.5 * self.per_second * slot_s).min(1.0)
    }
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            per_observation: 0.0,
            slot: 0.0,
            slack: MIN_SLACK,
            hiccups: Hiccups::default(),
        }
    }
}

impl Pace {
    /// Follows a roundtime chunk of `n` observations of which the share
    /// `late` started late, in the share `runs` of runs of consecutive late
    /// starts, with the slowest rank's `slot` and `typical` duration
    /// ([`slot_of`]). The estimate of the hiccups is a moving average over
    /// chunks in which a chunk of fewer than eight observations counts for
    /// less, and such a chunk leaves the slot alone. Most starts late
    /// doubles the slack whatever the chunk's size.
    pub(super) fn follow(&mut self, n: usize, late: f64, runs: f64, slot: f64, typical: f64) {
        let seen = Hiccups::seen(late, runs, self.slot + self.slack, typical);
        let weight = 0.25 * (n.min(8) as f64 / 8.0);
        self.hiccups.lost += weight * (seen.lost - self.hiccups.lost);
        self.hiccups.per_second += weight * (seen.per_second - self.hiccups.per_second);
        if n >= 8 || self.slot == 0.0 {
            self.slot = slot;
        }
        // Even a chunk of one: a start that was late at once needs more
        // slack now, and too much costs only until later chunks halve it.
        let escape = late > 0.5;
        self.slack = next_slack(self.slack, self.slot, typical, self.hiccups, escape);
    }
}

/// A wrong result in the timed calls: on which rank, in which call of the
/// candidate (counted from 1 over its case), and what was wrong.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct WrongCall {
    pub rank: usize,
    /// Which call (`timed call 24`, or a check call) and what was wrong.
    pub what: String,
}

/// A candidate's calls so far in its case and the check of their output.
pub(super) struct Checked<'a, T> {
    /// None for the library's call at a smaller size, verified in its own case.
    pub check: Option<&'a Check<T>>,
    pub calls: &'a mut u64,
    pub sampler: &'a mut Sampler,
}

/// Which timed calls have their output checked between observations: each
/// with the probability that keeps the checks' cost near `share` of the
/// calls' time (`--check-share`), drawn at random so that no fault that
/// strikes every M-th call can fall between the checks by construction.
#[derive(Clone, Debug)]
pub(super) struct Sampler {
    state: u64,
    pub(super) share: f64,
    /// Seconds one check of the output takes (a moving average; 0 before
    /// the first, which is always made).
    check_s: f64,
}

impl Sampler {
    pub(super) fn new(seed: u64) -> Sampler {
        Sampler {
            state: seed | 1,
            share: 0.02,
            check_s: 0.0,
        }
    }

    /// Whether to check the output of a call that took `call_s`.
    fn wants(&mut self, call_s: f64) -> bool {
        // xorshift64: uniform enough, and nothing to allocate or lock.
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let uniform = (self.state >> 11) as f64 / (1u64 << 53) as f64;
        self.share > 0.0 && (self.check_s <= 0.0 || uniform * self.check_s < self.share * call_s)
    }

    fn took(&mut self, check_s: f64) {
        self.check_s = match self.check_s {
            0.0 => check_s,
            s => 0.8 * s + 0.2 * check_s,
        };
    }
}

/// Observations until rank 0's clock passes `deadline`, at least one.
/// Each pushes (end, −start, late) to `local`; the maximum over ranks gives
/// the observation (max end − min start) and whether any rank was late.
///
/// Rank 0 decides how many observations come next and broadcasts it: half
/// the remaining time's worth at a time, at most as many as so far, so the
/// agreement costs a logarithmic number of broadcasts per slice, all outside the timed region, and no rank can run
/// ahead into a different collective. With `roundtime` the same broadcast
/// carries the global start time of the chunk's first observation and the
/// slot each observation gets.
///
/// After every chunk, outside the timed region, the output of its last
/// timed call is checked against the reference, then one more call runs on
/// refilled buffers (sentinels in the output) and is checked too, which
/// catches a call that stopped writing. Every rank learns of a wrong
/// result in the chunk's agreement, and the slice ends with it.
#[allow(clippy::too_many_arguments)]
pub(super) fn observe_until<T: crate::element::Element>(
    control: &Control,
    harness: &mut Harness,
    call: &mut Call<T>,
    hooks: Option<&dyn Hooks>,
    send: &mut [T],
    recv: &mut [T],
    deadline: f64,
    local: &mut Vec<f64>,
    pace: &mut Pace,
    mut checked: Checked<'_, T>,
) -> Option<WrongCall> {
    let mut spent = 0.0;
    let mut durations: Vec<f64> = Vec::with_capacity(1 << 10);
    let mut late: Vec<f64> = Vec::new();
    while let Some(chunk) =
        next_chunk_agreed(control, harness, pace, local.len() / 3, spent, deadline)
    {
        let next = chunk.calls;
        // No reallocation (a copy of all observations so far) between two
        // timed calls.
        local.reserve(3 * next as usize);
        // The candidate's switch (MPICH's algorithm variable) is set for
        // the chunk, not around each timed call.
        if let Some(hooks) = hooks {
            hooks.enter();
        }
        let first_call = *checked.calls + 1;
        watchdog::enter(
            Phase::Calling,
            next as f64 * (pace.per_observation + pace.slack + harness.lead),
        );
        let chunk_start = mpi::time();
        let timed = (&mut *call, &mut *send, &mut *recv);
        let wrong = timed_calls(
            control,
            harness,
            timed,
            &chunk,
            first_call,
            local,
            &mut checked,
        );
        spent += mpi::time() - chunk_start;
        *checked.calls += next;
        // Every rank makes the chunk's extra call, wrong so far or not.
        let at_end = check_chunk(&mut checked, call, send, recv);
        let wrong = wrong.or(at_end);
        if let Some(hooks) = hooks {
            hooks.leave();
        }
        harness.calls += next as usize;
        late.clear();
        if harness.sync == SyncMode::Roundtime {
            let chunk = &local[local.len() - 3 * next as usize..];
            durations.clear();
            durations.extend(chunk.chunks(3).map(|o| o[0] + o[1]));
            // Which observations some rank started late (the ones rank 0
            // will discard), and the slot the slowest rank needs.
            late.extend(chunk.chunks(3).map(|o| o[2]));
            let (slot, typical) = slot_of(&mut durations);
            late.extend([slot, typical]);
        }
        if let Some(wrong) = agree_on_chunk(control, harness.sync, &mut late, wrong, pace) {
            watchdog::enter(Phase::Idle, 0.0);
            return Some(wrong);
        }
    }
    watchdog::enter(Phase::Idle, 0.0);
    if local.len() >= 3 {
        pace.per_observation = spent / (local.len() / 3) as f64;
    }
    None
}

/// The next chunk as rank 0 decided it and broadcast it: how many calls,
/// the global start of the first (roundtime) and the slot of each. None
/// when the slice is over; the harness stopped when a signal came.
fn next_chunk_agreed(
    control: &Control,
    harness: &mut Harness,
    pace: &Pace,
    observed: usize,
    spent: f64,
    deadline: f64,
) -> Option<Chunk> {
    // [observations, first start (global), slot length]
    let mut decision = [0.0f64; 3];
    if control.rank() == 0 {
        let remaining = deadline - mpi::time();
        let slot = pace.slot + pace.slack + harness.flush_s;
        // A roundtime observation takes its slot at least, however short
        // the ones before it were when the slack was smaller.
        let least = match harness.sync {
            SyncMode::Roundtime => slot,
            SyncMode::Barrier => 0.0,
        };
        decision = [
            next_chunk(observed, spent, remaining, pace.per_observation, least) as f64,
            harness.clock.now() + harness.lead + pace.slack + harness.flush_s,
            slot,
        ];
        if harness.signalled() {
            decision[0] = -1.0;
        }
    }
    control.broadcast(&mut decision[..]);
    if decision[0] < 0.0 {
        harness.stopped = true;
        return None;
    }
    let [calls, first_start, slot] = decision;
    (calls >= 1.0).then_some(Chunk {
        calls: calls as u64,
        first_start,
        slot,
    })
}

/// A chunk of timed calls as every rank agreed on it.
struct Chunk {
    calls: u64,
    /// Roundtime: the global time the first call starts, and the slot of
    /// each.
    first_start: f64,
    slot: f64,
}

/// The chunk's timed calls: (end, −start, late) of each pushed to `local`
/// (barrier: the duration, 0, 0); now and then a call's output checked
/// where there is time to. The first wrong call seen, and why.
fn timed_calls<T: crate::element::Element>(
    control: &Control,
    harness: &mut Harness,
    (call, send, recv): (&mut Call<T>, &mut [T], &mut [T]),
    chunk: &Chunk,
    first_call: u64,
    local: &mut Vec<f64>,
    checked: &mut Checked<'_, T>,
) -> Option<(u64, String)> {
    let mut wrong: Option<(u64, String)> = None;
    for i in 0..chunk.calls {
        if !harness.flush.is_empty() {
            harness.flush_cache();
        }
        watchdog::call(first_call + i);
        match harness.sync {
            SyncMode::Barrier => {
                control.barrier();
                let start = mpi::time();
                call(send, recv);
                let duration = mpi::time() - start;
                local.extend_from_slice(&[duration, 0.0, 0.0]);
                harness.calling_s += duration;
                if checked.sampler.wants(duration) {
                    sample_output(checked, first_call + i, send, recv, &mut wrong);
                }
            }
            SyncMode::Roundtime => {
                let due = harness
                    .clock
                    .local(chunk.first_start + i as f64 * chunk.slot);
                let late = mpi::time() > due;
                wait_until(due);
                let start = mpi::time();
                call(send, recv);
                let end = mpi::time();
                harness.calling_s += end - start;
                let clock = &harness.clock;
                local.extend_from_slice(&[
                    clock.global(end),
                    -clock.global(start),
                    f64::from(u8::from(late)),
                ]);
                // Only where the check ends well before the next start.
                if i + 1 < chunk.calls && checked.sampler.wants(end - start) {
                    let next_due = clock.local(chunk.first_start + (i + 1) as f64 * chunk.slot);
                    if next_due - mpi::time() > 2.0 * checked.sampler.check_s {
                        sample_output(checked, first_call + i, send, recv, &mut wrong);
                    }
                }
            }
        }
    }
    wrong
}

/// After a chunk, outside the timed region: every rank's late flags, slot
/// needs (roundtime, in `late`) and wrong result reduced to their maximum.
/// A wrong result anywhere ends the slice with what the rank that saw it
/// says; else the roundtime pace follows what the chunk needed.
fn agree_on_chunk(
    control: &Control,
    sync: SyncMode,
    late: &mut Vec<f64>,
    wrong: Option<(u64, String)>,
    pace: &mut Pace,
) -> Option<WrongCall> {
    // Whether, and where, a rank saw a wrong result travels with the late
    // flags.
    late.push(
        wrong
            .as_ref()
            .map_or(0.0, |w| wrong_key(w.0, control.rank())),
    );
    control.max(late);
    let key = late.pop().unwrap_or(0.0);
    if key > 0.0 {
        let (_, rank) = from_wrong_key(key);
        let mine = wrong.map(|w| w.1).unwrap_or_default();
        let what = control.broadcast_text(rank, &mine, 400);
        return Some(WrongCall { rank, what });
    }
    if sync == SyncMode::Roundtime {
        let n = late.len() - 2;
        let flags = &late[..n];
        let invalid = flags.iter().filter(|&&l| l > 0.0).count();
        let runs = flags
            .iter()
            .zip(std::iter::once(&0.0).chain(flags))
            .filter(|&(&l, &before)| l > 0.0 && before <= 0.0)
            .count();
        let share = |k: usize| k as f64 / n as f64;
        pace.follow(n, share(invalid), share(runs), late[n], late[n + 1]);
    }
    None
}

/// Checks a chunk's calls, outside the timed region: the output of the last
/// timed call as it stands, then one more call on refilled buffers.
/// Returns the first wrong call and what was wrong. Every rank makes the
/// extra call, since it is collective.
fn check_chunk<T: crate::element::Element>(
    checked: &mut Checked<'_, T>,
    call: &mut Call<T>,
    send: &mut [T],
    recv: &mut [T],
) -> Option<(u64, String)> {
    let check = checked.check?;
    let last = *checked.calls;
    let timed = check
        .output(send, recv)
        .map(|what| (last, format!("timed call {last}: {what}")));
    *checked.calls += 1;
    let extra = *checked.calls;
    watchdog::call(extra);
    let refilled = check.verify(call, send, recv).map(|what| {
        (
            extra,
            format!("call {extra}, a check between timed calls on refilled buffers: {what}"),
        )
    });
    timed.or(refilled)
}

/// Checks the output of timed call `n` as it stands, keeping the first
/// wrong one.
fn sample_output<T: crate::element::Element>(
    checked: &mut Checked<'_, T>,
    n: u64,
    send: &[T],
    recv: &[T],
    wrong: &mut Option<(u64, String)>,
) {
    let Some(check) = checked.check else {
        return;
    };
    let start = mpi::time();
    if let Some(what) = check.output(send, recv) {
        wrong.get_or_insert_with(|| (n, format!("timed call {n}: {what}")));
    }
    checked.sampler.took(mpi::time() - start);
}

/// Ranks a wrong result by call, then by rank, the lowest first, in one
/// positive number that a maximum over ranks keeps exactly (calls below
/// 2³³, ranks below 2²⁰ − 1).
fn wrong_key(call: u64, rank: usize) -> f64 {
    let scale = (1u64 << 20) as f64;
    (call as f64) * scale + (scale - 1.0 - rank as f64)
}

fn from_wrong_key(key: f64) -> (u64, usize) {
    let scale = (1u64 << 20) as f64;
    let call = (key / scale).floor();
    (call as u64, (scale - 1.0 - (key - call * scale)) as usize)
}

/// A slice's observations from the maximum over ranks of each observation's
/// (end, −start, late): max end − min start where no rank started late;
/// returns how many were late. The first observation of a slice of several
/// is dropped: it follows the reduction of the previous slice's
/// observations and the agreement on this one, which the others do not.
pub(super) fn assemble(max: &[f64], observations: &mut Vec<f64>) -> usize {
    let skip = usize::from(max.len() > 3);
    let mut late = 0;
    for observation in max.chunks(3).skip(skip) {
        match observation {
            [_, _, l] if *l > 0.0 => late += 1,
            [end, negative_start, _] => observations.push(end + negative_start),
            _ => unreachable!("observations come in triples"),
        }
    }
    late
}

/// How many observations the next chunk of a slice takes: half the
/// remaining time's worth at the pace seen so far in this slice, at most as
/// many as so far (so that a machine slowing down mid-slice cannot turn an
/// optimistic estimate into a long overrun). The first chunk of a slice
/// takes a quarter of the time at the `prior` pace of the candidate's last
/// slice, or one observation when there is none. No observation is counted
/// shorter than `least`, the slot of a roundtime chunk: after its slot had
/// widened 30-fold, a chunk of 2,456 observations sized at the old pace
/// took 161 ms of a 100 ms slice.
pub(super) fn next_chunk(
    observed: usize,
    spent: f64,
    remaining: f64,
    prior: f64,
    least: f64,
) -> u64 {
    if observed == 0 {
        // With no pace seen yet, one: the slot alone says nothing of the call.
        return match prior > 0.0 {
            true => ((0.25 * remaining / prior.max(least)).floor() as u64).max(1),
            false => 1,
        };
    }
    let per_observation = (spent / observed as f64).max(least);
    match (0.5 * remaining / per_observation).floor().max(0.0) as u64 {
        // Close to the deadline: one more only if it ends nearer to it.
        0 => u64::from(remaining > 0.5 * per_observation),
        n => n.min(observed as u64),
    }
}

/// The slot one rank needs for an observation and its typical duration,
/// from its durations in the last chunk: the 90th percentile, so that a rare
/// slow call costs a few late starts rather than stretching every slot, and
/// the median.
pub(super) fn slot_of(durations: &mut [f64]) -> (f64, f64) {
    if durations.is_empty() {
        return (0.0, 0.0);
    }
    durations.sort_unstable_by(f64::total_cmp);
    let at = |q: usize| durations[(durations.len() * q / 10).min(durations.len() - 1)];
    (at(9), at(5))
}

/// The roundtime slack that gives the most valid observations per second
/// while at most [`LATE_CAP`] of the starts are late (and discarded), under
/// the machine's `hiccups`; where no slack keeps to the cap, the one that
/// makes the fewest late.
///
/// The valid rate is (1 − late)/S. Hiccups alone (no meetings, a machine
/// that loses 1 % of its time) are best served by slots a tenth longer
/// than the call, however many starts that makes late: widening the slots
/// until almost none are late (the obvious rule) spends far more time than
/// the hiccups do. Wide slots meet more hiccups, so there is a width beyond
/// which widening makes more late, not fewer (the rule that doubled the
/// slack whenever the cap was out of reach drove 1 µs calls into 64 µs
/// slots on a quiet machine, and a fifth of the rate). Only when most
/// starts of a chunk were late (`escape`) are the hiccups longer than any
/// catch-up, and the slack doubles, to outlast them. The slack moves at
/// most by a factor of two per chunk, against noise.
pub(super) fn next_slack(
    slack: f64,
    slot: f64,
    typical: f64,
    hiccups: Hiccups,
    escape: bool,
) -> f64 {
    let target = if escape {
        2.0 * slack
    } else {
        // Slacks from the least to the most, 3.7 % apart.
        let steps = 256;
        let ratio = (MAX_SLACK / MIN_SLACK).powf(1.0 / (steps - 1) as f64);
        let candidates = (0..steps).map(|i| {
            let slack = MIN_SLACK * ratio.powi(i);
            let slot_s = slot + slack;
            let late = hiccups.late(slot_s, typical);
            (slack, late, (1.0 - late) / slot_s)
        });
        let within = candidates
            .clone()
            .filter(|&(_, late, _)| late <= LATE_CAP)
            .max_by(|a, b| a.2.total_cmp(&b.2));
        let fewest_late = || candidates.min_by(|a, b| a.1.total_cmp(&b.1));
        within
            .or_else(fewest_late)
            .map_or(slack, |(slack, _, _)| slack)
    };
    target
        .clamp(0.5 * slack, 2.0 * slack)
        .clamp(MIN_SLACK, MAX_SLACK)
}

/// The least slack of a roundtime slot.
pub(super) const MIN_SLACK: f64 = 0.5e-6;

/// The widest slack: beyond it the machine is too busy for
/// clock-synchronised starts and observations stay invalid.
pub(super) const MAX_SLACK: f64 = 0.005;

/// Waits until the local time `due`: yields the core while far from it, so
/// that oversubscribed ranks can run, and spins for the last microseconds.
pub(super) fn wait_until(due: f64) {
    while due - mpi::time() > 50e-6 {
        std::thread::yield_now();
    }
    while mpi::time() < due {
        std::hint::spin_loop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_call_survives_the_maximum_over_ranks_lowest_rank_first() {
        for (call, rank) in [(1, 0), (12_345_678, 3), ((1 << 33) - 1, (1 << 20) - 2)] {
            assert_eq!(from_wrong_key(wrong_key(call, rank)), (call, rank));
        }
        // Of two ranks wrong in the same call, the lower wins the maximum;
        // a later call wins over an earlier one.
        assert!(wrong_key(7, 0) > wrong_key(7, 1));
        assert!(wrong_key(8, 5) > wrong_key(7, 0));
        assert!(wrong_key(1, 0) > 0.0);
    }

    #[test]
    fn sampled_checks_cost_their_share_of_the_calls_time() {
        // Checks that take as long as the call: about `share` of them.
        let mut sampler = Sampler::new(42);
        assert!(sampler.wants(1e-6), "the first call is always checked");
        sampler.took(1e-6);
        let n = 200_000;
        let checked = (0..n).filter(|_| sampler.wants(1e-6)).count();
        let share = checked as f64 / n as f64;
        assert!((share - sampler.share).abs() < 0.002, "{share}");
        // Checks far cheaper than the call: every call.
        let mut sampler = Sampler::new(7);
        sampler.took(1e-9);
        assert!((0..1000).all(|_| sampler.wants(1e-6)));
        // A share of 0: none.
        sampler.share = 0.0;
        assert!(!(0..1000).any(|_| sampler.wants(1e-6)));
    }

    #[test]
    fn a_slice_starts_with_one_observation_or_a_quarter_at_the_last_pace() {
        assert_eq!(next_chunk(0, 0.0, 0.01, 0.0, 0.0), 1);
        // 2⁻⁶ s left at 2⁻¹⁶ s per observation: a quarter is 256.
        assert_eq!(next_chunk(0, 0.0, 0.015625, 0.0000152587890625, 0.0), 256);
        // Never none, even when the prior pace says the slice is too short.
        assert_eq!(next_chunk(0, 0.0, 1e-6, 10e-6, 0.0), 1);
    }

    #[test]
    fn chunks_take_half_the_remaining_time_and_at_most_double() {
        // 4 observations in 40 µs, 1 s left: half is 50 000, capped at 4.
        assert_eq!(next_chunk(4, 40e-6, 1.0, 0.0, 0.0), 4);
        // 1024 observations in 2⁻⁷ s, as much left: half the time is 512.
        assert_eq!(next_chunk(1024, 0.0078125, 0.0078125, 0.0, 0.0), 512);
        // Near the deadline: one more only if it ends closer to it.
        assert_eq!(next_chunk(100, 1e-3, 6e-6, 0.0, 0.0), 1);
        assert_eq!(next_chunk(100, 1e-3, 4e-6, 0.0, 0.0), 0);
        assert_eq!(next_chunk(100, 1e-3, -1e-3, 0.0, 0.0), 0);
    }

    #[test]
    fn a_wider_slot_shortens_the_chunk() {
        // 1024 observations at 1 µs, 2⁻⁷ s left, but the slot is now 2⁻¹⁵ s
        // (31 µs): half the time at the slot is 128, not 1024.
        let slot = 2f64.powi(-15);
        assert_eq!(next_chunk(1024, 1024e-6, 0.0078125, 0.0, slot), 128);
        // The first chunk of a slice, too: a quarter of the time.
        assert_eq!(next_chunk(0, 0.0, 0.0078125, 1e-6, slot), 64);
        // But with no pace at all, one: the first slot is a guess.
        assert_eq!(next_chunk(0, 0.0, 0.0078125, 0.0, 0.5e-6), 1);
        // A slot shorter than the pace changes nothing.
        assert_eq!(next_chunk(1024, 0.0078125, 0.0078125, 0.0, 1e-9), 512);
    }

    #[test]
    fn observations_are_max_end_minus_min_start_without_late_ones() {
        let mut observations = Vec::new();
        // Three observations: the first dropped, one late, one valid.
        let max = [5.0, -4.0, 0.0, 7.5, -7.0, 1.0, 9.25, -9.0, 0.0];
        assert_eq!(assemble(&max, &mut observations), 1);
        assert_eq!(observations, [0.25]);
        // A slice of one keeps it.
        assert_eq!(assemble(&[2.0, -1.5, 0.0], &mut observations), 0);
        assert_eq!(observations, [0.25, 0.5]);
        assert_eq!(assemble(&[2.0, -1.5, 1.0], &mut observations), 1);
    }

    #[test]
    fn a_slot_covers_most_calls_not_the_slowest() {
        let mut durations: Vec<f64> = (1..=100).map(|i| i as f64 * 1e-6).collect();
        durations[99] = 1.0; // one descheduled call
        let (slot, typical) = slot_of(&mut durations);
        assert!((slot - 91e-6).abs() < 1e-12, "{slot}");
        assert!((typical - 51e-6).abs() < 1e-12, "{typical}");
        assert_eq!(slot_of(&mut []), (0.0, 0.0));
    }

    /// Valid observations per second under `hiccups` (the model of
    /// [`next_slack`]), and the share of late starts.
    fn model(slack: f64, slot: f64, typical: f64, hiccups: Hiccups) -> (f64, f64) {
        let slot_s = slot + slack;
        let late = hiccups.late(slot_s, typical);
        ((1.0 - late) / slot_s, late)
    }

    fn settled(slot: f64, typical: f64, hiccups: Hiccups, from: f64) -> f64 {
        (0..50).fold(from, |slack, _| {
            next_slack(slack, slot, typical, hiccups, false)
        })
    }

    fn losing(lost: f64) -> Hiccups {
        Hiccups {
            lost,
            per_second: 0.0,
        }
    }

    #[test]
    fn the_slack_settles_where_the_most_observations_are_valid() {
        // Late starts only from catching up: lost·S / (S − d).
        // 0.01 · 10.5 µs / 5.5 µs is under the cap, and the rate falls
        // with S: the least slack.
        assert_eq!(settled(10e-6, 5e-6, losing(0.01), MIN_SLACK), MIN_SLACK);
        // At most 5 % late: S ≥ 0.05 · 8 µs / (0.05 − 0.03) = 20 µs, so a
        // slack of 10 µs, to the grid's 3.7 %.
        let (slot, typical, hiccups) = (10e-6, 8e-6, losing(0.03));
        let slack = settled(slot, typical, hiccups, 1e-3);
        assert!((10e-6..10.4e-6).contains(&slack), "{slack}");
        let (best, late) = model(slack, slot, typical, hiccups);
        assert!(late <= LATE_CAP, "{late}");
        for other in [0.9 * slack, 1.1 * slack, 2.0 * slack] {
            let (rate, late) = model(other, slot, typical, hiccups);
            assert!(rate < best || late > LATE_CAP);
        }
        // Where the cap does not bind, the slack maximises the valid rate:
        // S − d = √lost · S, (√0.0016 · 100 µs − 1 µs) / (1 − √0.0016).
        let (slot, typical, hiccups) = (100e-6, 99e-6, losing(0.0016));
        let slack = settled(slot, typical, hiccups, MIN_SLACK);
        assert!((slack / 3.125e-6 - 1.0).abs() < 0.04, "{slack}");
        let (best, late) = model(slack, slot, typical, hiccups);
        assert!(late < LATE_CAP, "{late}");
        for other in [0.5 * slack, 0.9 * slack, 1.1 * slack, 2.0 * slack] {
            assert!(model(other, slot, typical, hiccups).0 < best);
        }
    }

    #[test]
    fn slack_doubles_while_most_starts_are_late_and_shrinks_back() {
        let mut slack = MIN_SLACK;
        for _ in 0..30 {
            slack = next_slack(slack, 2e-6, 1e-6, losing(0.01), true);
        }
        assert_eq!(slack, MAX_SLACK);
        // Halves at most per chunk, against a noisy chunk.
        let none = Hiccups::default();
        assert_eq!(next_slack(slack, 2e-6, 1e-6, none, false), 0.5 * MAX_SLACK);
        for _ in 0..30 {
            slack = next_slack(slack, 2e-6, 1e-6, none, false);
        }
        assert_eq!(slack, MIN_SLACK);
    }

    #[test]
    fn small_chunks_move_the_pace_little() {
        let mut pace = Pace::default();
        pace.follow(1000, 0.0, 0.0, 10e-6, 8e-6);
        assert_eq!(pace.slot, 10e-6);
        // One late start in a chunk of two: the slot stays, the estimate of
        // the lost time moves a quarter as far as after a large chunk.
        pace.follow(2, 0.5, 0.5, 50e-6, 8e-6);
        assert_eq!(pace.slot, 10e-6);
        let small = pace.hiccups;
        let mut large = Pace::default();
        large.follow(1000, 0.0, 0.0, 10e-6, 8e-6);
        large.follow(8, 0.5, 0.5, 10e-6, 8e-6);
        assert!((4.0 * small.lost - large.hiccups.lost).abs() < 1e-12);
        assert!((4.0 * small.per_second - large.hiccups.per_second).abs() < 1e-3);
        // Many late starts in a large chunk: the slack doubles.
        let slack = pace.slack;
        pace.follow(100, 0.9, 0.01, 10e-6, 8e-6);
        assert_eq!(pace.slack, 2.0 * slack);
    }

    #[test]
    fn slots_stop_widening_where_wider_ones_meet_more_hiccups() {
        // 4 % lost in 20,000 hiccups a second: no slot keeps to the cap;
        // the fewest are late at S − d = √(2 · lost · d / per_second)
        // = 1.9 µs, a slack of 1.8 µs over a 1 µs slot.
        let (slot, typical) = (1e-6, 0.9e-6);
        let hiccups = Hiccups {
            lost: 0.04,
            per_second: 20_000.0,
        };
        let slack = settled(slot, typical, hiccups, MIN_SLACK);
        assert!((slack / 1.8e-6 - 1.0).abs() < 0.04, "{slack}");
        assert!(model(slack, slot, typical, hiccups).1 > LATE_CAP);
        // 8 % of the starts late one at a time (hiccups shorter than the
        // slack), as many whatever the slack: the pace settles. Counting a
        // whole slack lost per late start and doubling the slack while the
        // cap was out of reach, it widened itself to MAX_SLACK.
        let mut pace = Pace::default();
        for _ in 0..200 {
            pace.follow(10_000, 0.08, 0.08, slot, typical);
        }
        assert!(pace.slack < 10.0 * typical, "{}", pace.slack);
    }

    #[test]
    fn a_run_of_late_starts_counts_as_one_hiccup_half_a_slack_short() {
        // Ten late starts in one run lose 9.5 times S − d, in ten runs 5.
        let (slot_s, typical) = (10e-6, 8e-6);
        let one = Hiccups::seen(0.01, 0.001, slot_s, typical);
        let ten = Hiccups::seen(0.01, 0.01, slot_s, typical);
        let lost = |k: f64| k * (slot_s - typical) / slot_s / 1000.0;
        assert!((one.lost - lost(9.5)).abs() < 1e-15, "{}", one.lost);
        assert!((ten.lost - lost(5.0)).abs() < 1e-15, "{}", ten.lost);
        // One hiccup per 1000 slots of 10 µs: 100 a second.
        assert!((one.per_second - 100.0).abs() < 1e-9);
        // And the model gives back the late share it was estimated from.
        for seen in [one, ten] {
            assert!((seen.late(slot_s, typical) - 0.01).abs() < 1e-12);
        }
    }
}
