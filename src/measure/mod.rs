//! Running candidates: verification against the independent reference
//! ([`crate::reference`]), and timing in interleaved rounds within a fixed
//! budget; also what the run runs on ([`machine`], this process's memory
//! and its host's cache in [`host`]), and ranks bound to cores before
//! anything is timed ([`pin`]). The only stage that times MPI.

mod buffers;
pub mod calibration;
pub mod clock;
pub mod environment;
mod harness;
pub mod machine;
mod observe;
pub mod pin;
mod probe;
pub mod survey;
mod verify;

pub use crate::host::peak_rss_bytes;
use crate::watchdog::{self, Phase};
pub use harness::Harness;
pub use machine::machine;
use observe::{assemble, observe_until, Checked, Pace, Sampler};
pub use probe::{cold_cache_bytes, largest_peak_rss_bytes, probe_cases, resident_bytes};
use verify::{agree_on_failure, verify_barrier, Check};

use crate::analyse::disturbed;
use crate::candidates::{self, native, Call, Hooks, NotApplicable, Setup, Tuning};
use crate::case::{CaseData, CaseKey, Event, Outcome, Overlapped, Sample, Smaller};
use crate::collective::{Collective, Shape};
use crate::control::Control;
use crate::element::{Element, Op};
use crate::operation::Form;
use crate::plan::Case;
use crate::reference::{self, Inputs};
use crate::settings::{Settings, TimedForms};
use crate::with_element;
use algorithms::topology::Topology;
use buffers::Moving;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::cell::Cell;
use std::rc::Rc;

/// Where to send [`Event`]s (none off rank 0 and off a terminal) and which
/// case this is.
pub struct Events {
    pub sender: Option<std::sync::mpsc::Sender<Event>>,
    /// 1-based index of the case and the number of cases.
    pub case: usize,
    pub cases: usize,
}

/// The processes a check runs on.
pub struct Context {
    /// What the candidates run on.
    pub comm: Rc<SimpleCommunicator>,
    /// What pgcheck's bookkeeping runs on: never the library's collectives.
    pub control: Control,
    pub topology: Result<Rc<Topology>, String>,
}

impl Context {
    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }
}

/// Verifies every candidate of a case once, without timing.
pub fn verify_case(ctx: &Context, case: &Case) -> CaseData {
    with_element!(case.key.datatype, T => {
        let mut prepared = Prepared::<T>::new(ctx, case);
        prepared.verify(ctx);
        prepared.finish(case)
    })
}

/// Verifies and measures every candidate of a case.
pub fn measure_case(
    ctx: &Context,
    case: &Case,
    settings: &Settings,
    harness: &mut Harness,
    events: &Events,
) -> CaseData {
    harness.case_wait_s = harness.refresh(ctx);
    with_element!(case.key.datatype, T => {
        let start = mpi::time();
        let mut prepared = Prepared::<T>::new(ctx, case);
        let prepared_at = mpi::time();
        prepared.verify(ctx);
        harness.prepare_s += prepared_at - start;
        harness.verify_s += mpi::time() - prepared_at;
        // A wrong library collective is the finding; nothing is judged
        // against it, so nothing is timed.
        if !prepared.default_is_wrong() {
            prepared.measure(ctx, case, settings, harness, events);
        }
        prepared.finish(case)
    })
}

/// The median over `repetitions` of the maximum over ranks of one barrier:
/// what barrier synchronisation itself costs, the noise floor.
pub fn barrier_floor(ctx: &Context, repetitions: usize) -> f64 {
    let control = &ctx.control;
    let mut max = vec![0.0; repetitions];
    for t in max.iter_mut() {
        control.barrier();
        let start = mpi::time();
        control.barrier();
        *t = mpi::time() - start;
    }
    control.max(&mut max);
    crate::stats::describe::median(&max)
}

/// A candidate ready to run, and what it has gathered.
struct Entry<T> {
    call: Option<Call<T>>,
    /// What the candidate holds set around a chunk of its timed calls.
    hooks: Option<Rc<dyn Hooks>>,
    pace: Pace,
    sample: Sample,
    /// The size of the library's call at a smaller size ([`Smaller`]):
    /// timed with the others, verified in its own case.
    smaller: Option<u64>,
    /// The computation of the library's nonblocking call with computation
    /// between start and wait ([`Overlapped`]), set before the rounds.
    overlapped: Option<Rc<Cell<f64>>>,
    /// The candidate's calls in this case so far: verification, warm-up,
    /// timed calls and the checks between them.
    calls: u64,
    /// Which timed calls have their output checked.
    sampler: Sampler,
    /// Its own check where its output is the reference's in another order
    /// ([`candidates::communicator::output_order`]); else the case's.
    check: Option<Check<T>>,
}

impl<T> Entry<T> {
    fn new(name: &str, call: Option<Call<T>>, outcome: Outcome) -> Entry<T> {
        Entry {
            call,
            hooks: None,
            pace: Pace::default(),
            sample: Sample {
                outcome,
                ..Sample::measured(name)
            },
            smaller: None,
            overlapped: None,
            calls: 0,
            sampler: Sampler::new(name.bytes().fold(0x9e37_79b9_7f4a_7c15, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            })),
            check: None,
        }
    }
}

/// The checks of candidate `name` with the measured operator and the
/// second one, where its output is the reference's in another order
/// ([`candidates::communicator::output_order`]); `None` for the case's.
#[allow(clippy::type_complexity)]
fn own_checks<T: Element>(
    name: &str,
    shape: &Shape,
    primary: &Check<T>,
    second: Option<&(Op, Check<T>)>,
) -> (Option<Check<T>>, Option<(Op, Check<T>)>) {
    match candidates::communicator::output_order(name, shape) {
        None => (None, None),
        Some(order) => (
            Some(primary.reordered(&order)),
            second.map(|(op, check)| (*op, check.reordered(&order))),
        ),
    }
}

/// A case's candidates and the buffers they share.
struct Prepared<T> {
    shape: Shape,
    /// The inputs of the case, with the operator measured.
    inputs: Inputs,
    datatype: crate::element::Datatype,
    /// What candidates were prepared with (for a second verification).
    setup: Setup,
    /// The case as messages name it ([`CaseKey::label`]), for the watchdog.
    label: String,
    /// The longest verification call of any candidate, on this rank: what
    /// the watchdog expects of one call.
    longest_call_s: f64,
    /// The check of the measured operator, which the timed calls' outputs
    /// are held to as well.
    check: Option<Check<T>>,
    /// Moved to a fresh offset every round ([`buffers`]).
    send: Moving<T>,
    recv: Moving<T>,
    entries: Vec<Entry<T>>,
    /// The machine's state at the start of each round (rank 0's).
    calibration: Sample,
}

impl<T: Element> Prepared<T> {
    fn new(ctx: &Context, case: &Case) -> Prepared<T> {
        let key = &case.key;
        let shape = key.shape(ctx.size(), ctx.rank());
        let setup = setup(ctx, case, &shape, key.op);
        let mut entries: Vec<Entry<T>> = case
            .candidates
            .iter()
            .map(|name| match candidates::prepare_hooked::<T>(name, &setup) {
                Ok((call, hooks)) => Entry {
                    hooks,
                    ..Entry::new(name, Some(call), Outcome::Measured)
                },
                Err(NotApplicable(why)) => Entry::new(name, None, Outcome::Skipped(why)),
            })
            .collect();
        entries.extend(
            case.skipped
                .iter()
                .map(|(name, why)| Entry::new(name, None, Outcome::Skipped(why.clone()))),
        );
        if let Some((size_bytes, count)) = case.smaller.filter(|_| !case.candidates.is_empty()) {
            let (call, hooks) = smaller_call(ctx, case, count);
            entries.push(Entry {
                smaller: Some(size_bytes),
                hooks,
                ..Entry::new(&Smaller::name(size_bytes), Some(call), Outcome::Measured)
            });
        }
        if key.operation.form == Form::Nonblocking && !case.candidates.is_empty() {
            let compute = Rc::new(Cell::new(0.0));
            let work = Rc::clone(&compute);
            let call = native::prepare_overlapped(&setup, move || spin_for(work.get()));
            entries.push(Entry {
                overlapped: Some(compute),
                ..Entry::new(&Overlapped::name(0.0), Some(call), Outcome::Measured)
            });
        }
        // A case whose buffers exceed --max-memory has no candidates left.
        let (send_len, recv_len) = match case.candidates.is_empty() {
            true => (0, 0),
            false => (shape.send_len(), shape.recv_len()),
        };
        let inputs = Inputs::new(key.operation.collective, key.op, shape.size);
        let send = Moving::new(match send_len {
            0 => Vec::new(),
            _ => reference::send_buffer(&shape, &inputs),
        });
        let recv = Moving::new(vec![T::default(); recv_len]);
        Prepared {
            shape,
            inputs,
            datatype: key.datatype,
            setup,
            label: key.label(),
            longest_call_s: 0.0,
            check: None,
            send,
            recv,
            entries,
            calibration: Sample::measured(crate::case::CALIBRATION),
        }
    }

    /// Verifies every candidate against the reference; a second time with a
    /// stronger operator where the measured one could hide a wrong result
    /// ([`crate::element::Op::second_check`]).
    fn verify(&mut self, ctx: &Context) {
        if self.entries.iter().all(|e| e.call.is_none()) {
            return;
        }
        // Prepared::new filled the send buffer from the same inputs, and no
        // candidate has run on it yet.
        let primary = Check::new(ctx, &self.shape, self.inputs, self.send.to_vec());
        let second = self
            .shape
            .collective
            .is_reduction()
            .then(|| self.inputs.op.second_check(self.datatype))
            .flatten()
            .map(|op| {
                let inputs = Inputs::new(self.shape.collective, op, self.shape.size);
                let send = reference::send_buffer(&self.shape, &inputs);
                (op, Check::new(ctx, &self.shape, inputs, send))
            });
        for e in 0..self.entries.len() {
            // Their library call is verified as `default`.
            if self.entries[e].smaller.is_some() || self.entries[e].overlapped.is_some() {
                continue;
            }
            let Some(mut call) = self.entries[e].call.take() else {
                continue;
            };
            let name = self.entries[e].sample.name.clone();
            let (mine, second_mine) = own_checks(&name, &self.shape, &primary, second.as_ref());
            let primary = mine.as_ref().unwrap_or(&primary);
            let second = second_mine.as_ref().or(second.as_ref());
            watchdog::at(&self.label, &name);
            watchdog::enter(Phase::Verifying, 0.0);
            let in_place_only = name == native::DEFAULT_IN_PLACE;
            let start = mpi::time();
            let local = self.first_check(ctx, &name, &mut call, primary);
            self.longest_call_s = self.longest_call_s.max(mpi::time() - start);
            self.entries[e].calls += 1;
            // Every rank must agree before the second check: preparing a
            // candidate may be collective.
            let mut wrong = agree_on_failure(ctx, local);
            if let (None, false, Some((op, check))) = (&wrong, in_place_only, second) {
                let mut setup = self.setup.clone();
                setup.tuning.default_in_place = false;
                setup.op = op.mpi();
                setup.commutative = setup.op.is_commutative();
                let local = match candidates::prepare::<T>(&self.entries[e].sample.name, &setup) {
                    Ok(mut strong) => check
                        .verify(&mut strong, &mut self.send, &mut self.recv)
                        .map(|why| format!("with op {} on distinct data: {why}", op.name())),
                    Err(NotApplicable(why)) => {
                        Some(format!("cannot be verified with op {}: {why}", op.name()))
                    }
                };
                self.send.copy_from_slice(&primary.send);
                wrong = agree_on_failure(ctx, local);
            }
            if wrong.is_none() && native::is_library_call(&name) {
                wrong = self.verify_in_place(ctx, primary, second);
            }
            match wrong {
                Some(why) => self.entries[e].sample.outcome = Outcome::Wrong(why),
                None => {
                    self.entries[e].call = Some(call);
                    self.entries[e].check = mine;
                }
            }
        }
        watchdog::enter(Phase::Idle, 0.0);
        self.check = Some(primary);
    }

    /// Candidate `name`'s first check, with the measured operator: what
    /// this rank saw wrong. The library's call is verified in both forms,
    /// whichever is timed: the usual form here, the in-place one after;
    /// a barrier, which has no output, by [`verify_barrier`].
    fn first_check(
        &mut self,
        ctx: &Context,
        name: &str,
        call: &mut Call<T>,
        primary: &Check<T>,
    ) -> Option<String> {
        if name == native::DEFAULT_IN_PLACE {
            return None;
        }
        let (send, recv) = (&mut self.send, &mut self.recv);
        if name == native::DEFAULT && runs_in_place(name, &self.setup) {
            return primary.verify(&mut native::prepare::<T>(&self.setup), send, recv);
        }
        match self.shape.collective {
            Collective::Barrier => verify_barrier(ctx, call, send, recv),
            _ => primary.verify(call, send, recv),
        }
    }

    /// Verifies the library's call in place with the measured operator
    /// (`primary`'s), then with `second`'s; what it did wrong, agreed by
    /// every rank.
    fn verify_in_place(
        &self,
        ctx: &Context,
        primary: &Check<T>,
        second: Option<&(Op, Check<T>)>,
    ) -> Option<String> {
        if !self.setup.operation().has_in_place() {
            return None;
        }
        let checks = std::iter::once((self.inputs.op, primary))
            .chain(second.map(|(op, check)| (*op, check)));
        for (op, check) in checks {
            let mut setup = self.setup.clone();
            setup.op = op.mpi();
            setup.commutative = setup.op.is_commutative();
            let mut call = native::prepare_in_place::<T>(&setup)?;
            let local = check
                .verify_in_place(&mut call)
                .map(|why| match op == self.inputs.op {
                    true => why,
                    false => format!("with op {} on distinct data: {why}", op.name()),
                });
            if let Some(why) = agree_on_failure(ctx, local) {
                return Some(format!(
                    "{} in place (MPI_IN_PLACE): {why}",
                    native::DEFAULT
                ));
            }
        }
        None
    }

    fn default_is_wrong(&self) -> bool {
        self.entries
            .iter()
            .any(|e| e.sample.name == candidates::native::DEFAULT && e.sample.outcome.is_wrong())
    }

    /// Warm-up, then `rounds` rounds in which every verified candidate runs
    /// for its share of the budget, in a seeded random order.
    fn measure(
        &mut self,
        ctx: &Context,
        case: &Case,
        settings: &Settings,
        harness: &mut Harness,
        events: &Events,
    ) {
        let control = &ctx.control;
        let measured: Vec<usize> = (0..self.entries.len())
            .filter(|&e| self.entries[e].call.is_some())
            .collect();
        // Nothing to time (every candidate skipped or wrong): no rounds,
        // and no calibrations of rounds that were not measured.
        if measured.is_empty() {
            return;
        }
        watchdog::expect_calls_of(self.longest_call_s);
        if let Some(check) = &self.check {
            check.reset(&mut self.send, &mut self.recv);
        }
        for &e in &measured {
            let entry = &mut self.entries[e];
            entry.sampler.share = settings.check_share;
            let call = entry.call.as_mut().expect("verified");
            watchdog::at(&self.label, &entry.sample.name);
            for _ in 0..settings.warmup {
                control.barrier();
                entry.calls += 1;
                watchdog::call(entry.calls);
                watchdog::enter(Phase::Calling, self.longest_call_s);
                call(&self.send, &mut self.recv);
                watchdog::enter(Phase::Idle, 0.0);
            }
        }
        self.calibrate_overlap(ctx);
        // Rank 0's schedule decides every chunk (see `observe_until`).
        harness.rebase();
        let rounds = settings.rounds_for(case.call_s);
        let slice = settings.budget.as_secs_f64() / rounds as f64;
        let mut rounds_run = Rounds {
            order: measured,
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed ^ case_seed(&case.key)),
            placement: rand_chacha::ChaCha8Rng::seed_from_u64(
                settings.seed ^ case_seed(&case.key) ^ (ctx.rank() as u64 + 1) << 32,
            ),
            slice,
            planned: rounds,
            local: Vec::with_capacity(3 << 12),
        };
        for round in 0..rounds {
            if !self.round(ctx, case, harness, events, &mut rounds_run, round) {
                return;
            }
        }
        // Rounds in which every candidate ran far slower than usual are
        // set aside by the analysis; as many are measured again, within
        // a bounded share of the case's rounds. Rank 0 alone has the
        // observations, so it decides for every rank.
        let most = Settings::extra_rounds(rounds);
        let mut extra = 0;
        while extra < most {
            let mut again = [0u32];
            if ctx.rank() == 0 {
                let disturbed = disturbed::find(self.entries.iter().map(|e| &e.sample)).len();
                again[0] = disturbed.saturating_sub(extra).min(most - extra) as u32;
            }
            control.broadcast(&mut again);
            if again[0] == 0 {
                break;
            }
            rounds_run.planned += again[0] as usize;
            for _ in 0..again[0] {
                if !self.round(ctx, case, harness, events, &mut rounds_run, rounds + extra) {
                    return;
                }
                extra += 1;
            }
        }
    }

    /// Round `round` of a case: the machine's state calibrated, then every
    /// candidate for its slice in a fresh random order. False when
    /// measuring stops (a signal, a wrong result).
    fn round(
        &mut self,
        ctx: &Context,
        case: &Case,
        harness: &mut Harness,
        events: &Events,
        run: &mut Rounds,
        round: usize,
    ) -> bool {
        let control = &ctx.control;
        self.calibrate(ctx, harness, round);
        self.send.move_randomly(&mut run.placement);
        self.recv.move_randomly(&mut run.placement);
        self.rebind();
        // The calibration and the move are outside the slices: the round's
        // first slice keeps its whole share.
        harness.rebase();
        run.order.shuffle(&mut run.rng);
        for i in 0..run.order.len() {
            let e = run.order[i];
            if harness.stopped || harness.wrong {
                return false;
            }
            let name = &self.entries[e].sample.name;
            announce(events, case, name, (round + 1, run.planned), harness);
            // Clocks drift: resynchronise between slices once stale.
            harness.refresh(ctx);
            let deadline = harness.book(run.slice);
            let entry = &mut self.entries[e];
            let call = entry.call.as_mut().expect("verified");
            watchdog::at(&self.label, &entry.sample.name);
            let local = &mut run.local;
            local.clear();
            let slice_start = mpi::time();
            // The in-place form runs on a buffer of its own, which the
            // usual form's check cannot read.
            let in_place = runs_in_place(&entry.sample.name, &self.setup);
            let checked = Checked {
                check: entry
                    .check
                    .as_ref()
                    .or(self.check.as_ref())
                    .filter(|_| entry.smaller.is_none() && !in_place),
                calls: &mut entry.calls,
                sampler: &mut entry.sampler,
            };
            let wrong = observe_until(
                control,
                harness,
                call,
                entry.hooks.as_deref(),
                &mut self.send,
                &mut self.recv,
                deadline,
                local,
                &mut entry.pace,
                checked,
            );
            // Every rank learnt of it alike: nothing more is measured.
            if let Some(w) = wrong {
                entry.sample.outcome = Outcome::Wrong(format!(
                    "rank {}, {} (verification had passed)",
                    w.rank, w.what
                ));
                entry.call = None;
                harness.wrong = true;
                return false;
            }
            gather_slice(control, harness, local);
            if ctx.rank() == 0 {
                keep_slice(&mut entry.sample, local, round as u32);
            }
            harness.measuring_s += mpi::time() - slice_start;
        }
        true
    }

    /// The machine's state at the start of round `round`: the run's and,
    /// on rank 0, the case's.
    fn calibrate(&mut self, ctx: &Context, harness: &mut Harness, round: usize) {
        let state = calibration::calibrate(ctx);
        harness.calibrations.push(state);
        if ctx.rank() == 0 {
            self.calibration.seconds.push(state.exchange_s);
            self.calibration.rounds.push(round as u32);
        }
    }

    /// Sets the computation of the overlapped call to `default`'s own
    /// time, as IMB-NBC does: the median of a few calls on each rank, the
    /// longest over ranks, so that every rank computes alike. Without a
    /// verified `default` there is nothing to overlap: it is not measured.
    fn calibrate_overlap(&mut self, ctx: &Context) {
        let Some(o) = self.entries.iter().position(|e| e.overlapped.is_some()) else {
            return;
        };
        let default = self
            .entries
            .iter()
            .position(|e| e.sample.name == native::DEFAULT && e.call.is_some());
        let Some(d) = default else {
            self.entries[o].call = None;
            self.entries[o].sample.outcome =
                Outcome::Skipped(format!("{} is not measured", native::DEFAULT));
            return;
        };
        let mut took = Vec::with_capacity(OVERLAP_CALIBRATION_CALLS);
        let entry = &mut self.entries[d];
        let call = entry.call.as_mut().expect("verified");
        watchdog::at(&self.label, &entry.sample.name);
        for _ in 0..OVERLAP_CALIBRATION_CALLS {
            ctx.control.barrier();
            entry.calls += 1;
            watchdog::call(entry.calls);
            watchdog::enter(Phase::Calling, self.longest_call_s);
            let start = mpi::time();
            call(&self.send, &mut self.recv);
            took.push(mpi::time() - start);
            watchdog::enter(Phase::Idle, 0.0);
        }
        took.sort_by(f64::total_cmp);
        let mut compute = [took[took.len() / 2]];
        ctx.control.max(&mut compute);
        // Whole nanoseconds, as its name in raw/ gives it back to `analyze`.
        compute[0] = (compute[0] * 1e9).round() * 1e-9;
        let overlapped = &mut self.entries[o];
        overlapped
            .overlapped
            .as_ref()
            .expect("found")
            .set(compute[0]);
        overlapped.sample.name = Overlapped::name(compute[0]);
    }

    /// Tells every verified candidate with hooks where the buffers moved
    /// (a persistent request is initialised again there): on every rank,
    /// in the entries' order, since that may be collective.
    fn rebind(&mut self) {
        let (send, recv) = (
            self.send.as_ptr() as *const std::ffi::c_void,
            self.recv.as_mut_ptr() as *mut std::ffi::c_void,
        );
        for entry in self.entries.iter().filter(|e| e.call.is_some()) {
            if let Some(hooks) = &entry.hooks {
                hooks.moved(send, recv);
            }
        }
    }

    fn finish(self, case: &Case) -> CaseData {
        let (overlapped, entries): (Vec<_>, Vec<_>) = self
            .entries
            .into_iter()
            .partition(|e| e.overlapped.is_some());
        let (smaller, entries): (Vec<_>, Vec<_>) =
            entries.into_iter().partition(|e| e.smaller.is_some());
        CaseData {
            key: case.key.clone(),
            samples: entries.into_iter().map(|e| e.sample).collect(),
            smaller: smaller.into_iter().next().and_then(|e| {
                let size_bytes = e.smaller?;
                Some(Smaller {
                    size_bytes,
                    sample: e.sample,
                })
            }),
            overlapped: overlapped.into_iter().next().map(|e| Overlapped {
                compute_s: e.overlapped.expect("partitioned").get(),
                sample: e.sample,
            }),
            calibration: (!self.calibration.seconds.is_empty()).then_some(self.calibration),
        }
    }
}

/// Tells whoever draws progress (rank 0 on a terminal) which candidate of
/// which case is measured in round `round.0` of `round.1`.
fn announce(events: &Events, case: &Case, name: &str, round: (usize, usize), harness: &Harness) {
    if let Some(sender) = &events.sender {
        let _ = sender.send(Event {
            case: events.case,
            cases: events.cases,
            label: format!("{} {} B", case.key.operation, case.key.size_bytes),
            candidate: name.to_string(),
            round: round.0,
            rounds: round.1,
            elapsed_s: harness.elapsed(),
            planned_s: harness.planned,
        });
    }
}

/// After a slice: every rank's observations reduced to their maximum on
/// rank 0, and whether any rank was signalled, which travels with them (a
/// launcher may not signal rank 0 itself); only rank 0 needs the
/// observations, every rank the flag.
fn gather_slice(control: &Control, harness: &mut Harness, local: &mut Vec<f64>) {
    local.push(f64::from(u8::from(harness.signalled())));
    control.max_on_first(local);
    let mut signalled = [local.pop().unwrap_or(0.0)];
    control.broadcast(&mut signalled);
    if signalled[0] > 0.0 {
        harness.stopped = true;
    }
}

/// On rank 0: a slice's observations (the maxima over ranks) added to the
/// candidate's sample, those started late as invalid, all of `round`.
fn keep_slice(sample: &mut Sample, max: &[f64], round: u32) {
    let before = sample.seconds.len();
    let late = assemble(max, &mut sample.seconds);
    let added = sample.seconds.len() - before;
    sample.rounds.extend(std::iter::repeat_n(round, added));
    sample
        .invalid_rounds
        .extend(std::iter::repeat_n(round, late));
}

/// A case's rounds as they go: the candidates' order, shuffled anew each
/// round by a generator seeded per case (the same on every rank), the
/// buffers' offsets drawn by one of this rank's own, each slice's length,
/// the rounds planned so far (disturbed rounds measured again add to
/// them), and the buffer of a slice's observations.
struct Rounds {
    order: Vec<usize>,
    rng: rand_chacha::ChaCha8Rng,
    placement: rand_chacha::ChaCha8Rng,
    slice: f64,
    planned: usize,
    local: Vec<f64>,
}

/// Calls of `default` that set the overlapped call's computation.
const OVERLAP_CALIBRATION_CALLS: usize = 7;

/// Computes (spins, with no MPI call) for `seconds`: the independent
/// computation between a nonblocking call's start and its wait.
fn spin_for(seconds: f64) {
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(seconds);
    while std::time::Instant::now() < end {
        std::hint::spin_loop();
    }
}

/// The library's call with `count` elements, on the first elements of the
/// case's buffers (which are at least as long), and its hooks.
#[allow(clippy::type_complexity)]
fn smaller_call<T: Element>(
    ctx: &Context,
    case: &Case,
    count: usize,
) -> (Call<T>, Option<Rc<dyn Hooks>>) {
    let key = &case.key;
    let shape = Shape::new(
        key.operation.collective,
        ctx.size(),
        ctx.rank(),
        key.root,
        count,
    );
    let (send_len, recv_len) = (shape.send_len(), shape.recv_len());
    let (mut call, hooks) = native::prepare_timed_hooked::<T>(&setup(ctx, case, &shape, key.op));
    let call: Call<T> = Box::new(move |send, recv| call(&send[..send_len], &mut recv[..recv_len]));
    (call, hooks)
}

/// What candidates of a case are prepared with, for operator `op`.
fn setup(ctx: &Context, case: &Case, shape: &Shape, op: crate::element::Op) -> Setup {
    let mpi_op = op.mpi();
    Setup {
        comm: ctx.comm.clone(),
        topology: ctx.topology.clone(),
        shape: shape.clone(),
        form: case.key.operation.form,
        commutative: mpi_op.is_commutative(),
        op: mpi_op,
        tuning: Tuning {
            nblock_blocks: case.blocks,
            default_in_place: case.timed == TimedForms::InPlace,
        },
    }
}

/// Whether candidate `name` is the library's call in place: `default_in_place`,
/// or `default` where the input times it in place.
fn runs_in_place(name: &str, setup: &Setup) -> bool {
    name == native::DEFAULT_IN_PLACE || (name == native::DEFAULT && setup.tuning.default_in_place)
}

/// A seed per case, so that the order of one case does not depend on the
/// cases before it.
fn case_seed(key: &CaseKey) -> u64 {
    (key.operation.collective as u64) << 48
        ^ (key.operation.form as u64) << 44
        ^ key.size_bytes << 8
        ^ key.root as u64
}
