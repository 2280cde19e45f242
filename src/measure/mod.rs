//! Running candidates: verification against the independent reference
//! ([`crate::reference`]), and timing in interleaved rounds within a fixed budget. The only stage
//! that times MPI.

pub mod clock;

use crate::candidates::{self, NotApplicable, Run, Setup, Tuning};
use crate::case::{CaseData, CaseKey, Outcome, Sample};
use crate::collective::Shape;
use crate::element::Element;
use crate::plan::Case;
use crate::reference::{self, Inputs};
use crate::settings::{CacheState, Settings, SyncMode};
use crate::with_element;
use algorithms::topology::Topology;
use clock::GlobalClock;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::rc::Rc;

/// Where measuring is, sent to whoever draws progress (rank 0 only).
#[derive(Clone, Debug)]
pub struct Event {
    /// 1-based index of the case and the number of cases.
    pub case: usize,
    pub cases: usize,
    /// e.g. `allreduce 8 B`.
    pub label: String,
    pub candidate: String,
    /// 1-based round and the number of rounds.
    pub round: usize,
    pub rounds: usize,
    /// Seconds since measuring started, and of the plan booked so far.
    pub elapsed_s: f64,
    pub planned_s: f64,
}

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
    pub comm: Rc<SimpleCommunicator>,
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

/// The state of measuring that lasts across cases: the run's schedule, the
/// synchronisation and its clocks, the cache-flush buffer.
///
/// The schedule: slices end at their planned offsets from the start, so a
/// slice that overran is made up by the next ones of its case; time spent
/// outside the slices (preparing, verifying, warming up, writing files) is
/// booked separately ([`Harness::rebase`]), so that no candidate's slice
/// pays for it.
pub struct Harness {
    start: f64,
    planned: f64,
    sync: SyncMode,
    clock: GlobalClock,
    synced_at: f64,
    resync_s: f64,
    drift_s: f64,
    /// How far ahead of its announcement a roundtime chunk starts: a few
    /// broadcast times.
    lead: f64,
    /// Written between observations for a cold cache.
    flush: Vec<u8>,
    /// How long one flush takes; roundtime slots make room for it.
    flush_s: f64,
    /// Set by SIGINT/SIGTERM on this process.
    signalled: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Rank 0 was signalled and every rank has stopped measuring.
    pub stopped: bool,
    /// Seconds spent outside the slices (preparing, verifying, warming up,
    /// writing files) that moved the plan.
    pub outside_s: f64,
}

impl Harness {
    /// Starts the run's clock and synchronises clocks for `roundtime`; collective.
    pub fn start(ctx: &Context, settings: &Settings) -> Harness {
        let mut harness = Harness {
            start: mpi::time(),
            planned: 0.0,
            sync: settings.sync,
            clock: GlobalClock::IDENTITY,
            synced_at: 0.0,
            resync_s: settings.resync_s,
            drift_s: settings.drift_s,
            lead: 0.0,
            flush: match settings.cache {
                CacheState::Warm => Vec::new(),
                CacheState::Cold => vec![0u8; last_level_cache_bytes() * 2],
            },
            flush_s: 0.0,
            signalled: std::sync::Arc::default(),
            stopped: false,
            outside_s: 0.0,
        };
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // A second signal terminates at once, as if there were no handler.
            let flag = harness.signalled.clone();
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 1, flag.clone());
            let _ = signal_hook::flag::register(signal, flag);
        }
        if !harness.flush.is_empty() {
            let start = mpi::time();
            harness.flush_cache();
            harness.flush_s = mpi::time() - start;
        }
        if harness.sync == SyncMode::Roundtime {
            harness.synchronise(ctx);
        }
        harness
    }

    fn synchronise(&mut self, ctx: &Context) {
        self.clock = clock::synchronise(&ctx.comm, 20, self.drift_s);
        self.synced_at = mpi::time();
        // A start must reach every rank before it passes.
        self.lead = (4.0 * broadcast_time(ctx)).max(20e-6);
    }

    /// Gives up `roundtime` for `barrier` when a barrier takes longer than
    /// any slack clock-synchronised starts can wait for (ranks that are
    /// oversubscribed and busy-poll wake up milliseconds late, so every
    /// start would be late); says why. `noise_floor_s` is the same on
    /// every rank ([`barrier_floor`]), so every rank decides alike.
    pub fn fall_back_if_too_slow(&mut self, noise_floor_s: f64) -> Option<String> {
        (self.sync == SyncMode::Roundtime && noise_floor_s > MAX_SLACK).then(|| {
            self.sync = SyncMode::Barrier;
            format!(
                "measuring with barrier, not roundtime: a barrier takes {:.1} ms here \
                 (oversubscribed or busy-polling ranks?), longer than clock-synchronised \
                 starts can wait for",
                noise_floor_s * 1e3
            )
        })
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        mpi::time() - self.start
    }

    /// Starts the next slices from now when preparing, verifying and
    /// warming up (or writing files) took the run past its plan: that time
    /// is booked outside the slices, which keep their whole share of the
    /// budget. Returns how far the plan moved.
    pub fn rebase(&mut self) -> f64 {
        let behind = (self.elapsed() - self.planned).max(0.0);
        self.planned += behind;
        self.outside_s += behind;
        behind
    }

    /// Planned length of the run up to the end of the next slice, as an
    /// absolute time, after which the slice is booked.
    fn book(&mut self, seconds: f64) -> f64 {
        self.planned += seconds;
        self.start + self.planned
    }

    /// Resynchronises the clocks when they are older than the bound; collective.
    fn refresh(&mut self, ctx: &Context) {
        let mut stale = u8::from(
            self.sync == SyncMode::Roundtime && mpi::time() - self.synced_at > self.resync_s,
        );
        ctx.comm.process_at_rank(0).broadcast_into(&mut stale);
        if stale == 1 {
            self.synchronise(ctx);
        }
    }

    /// Whether SIGINT or SIGTERM reached this process.
    fn signalled(&self) -> bool {
        self.signalled.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn flush_cache(&mut self) {
        for (i, b) in self.flush.iter_mut().enumerate() {
            *b = b.wrapping_add(i as u8);
        }
        std::hint::black_box(&self.flush);
    }
}

/// The size of the last-level cache, from sysfs; 32 MiB when unknown.
fn last_level_cache_bytes() -> usize {
    let parse = |text: &str| {
        let text = text.trim();
        let (digits, unit) = text.split_at(
            text.find(|c: char| !c.is_ascii_digit())
                .unwrap_or(text.len()),
        );
        let n: usize = digits.parse().ok()?;
        Some(match unit {
            "K" => n << 10,
            "M" => n << 20,
            _ => n,
        })
    };
    (0..8)
        .rev()
        .find_map(|i| {
            let path = format!("/sys/devices/system/cpu/cpu0/cache/index{i}/size");
            std::fs::read_to_string(path).ok().and_then(|t| parse(&t))
        })
        .unwrap_or(32 << 20)
}

/// The median time of a small broadcast from rank 0, maximum over ranks.
fn broadcast_time(ctx: &Context) -> f64 {
    let comm = &*ctx.comm;
    let mut local = [0.0; 21];
    for t in local.iter_mut() {
        let mut x = [0.0f64; 3];
        comm.barrier();
        let start = mpi::time();
        comm.process_at_rank(0).broadcast_into(&mut x[..]);
        *t = mpi::time() - start;
    }
    let mut max = [0.0; 21];
    comm.all_reduce_into(&local[..], &mut max[..], SystemOperation::max());
    crate::stats::describe::median(&max)
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
    harness.refresh(ctx);
    with_element!(case.key.datatype, T => {
        let mut prepared = Prepared::<T>::new(ctx, case);
        prepared.verify(ctx);
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
    let comm = &*ctx.comm;
    let mut local = vec![0.0; repetitions];
    for t in local.iter_mut() {
        comm.barrier();
        let start = mpi::time();
        comm.barrier();
        *t = mpi::time() - start;
    }
    let mut max = vec![0.0; repetitions];
    comm.all_reduce_into(&local[..], &mut max[..], SystemOperation::max());
    crate::stats::describe::median(&max)
}

/// A candidate ready to run, and what it has gathered.
struct Entry<T> {
    run: Option<Run<T>>,
    pace: Pace,
    sample: Sample,
}

impl<T> Entry<T> {
    fn new(name: &str, run: Option<Run<T>>, outcome: Outcome) -> Entry<T> {
        Entry {
            run,
            pace: Pace::default(),
            sample: Sample {
                name: name.to_string(),
                outcome,
                seconds: Vec::new(),
                rounds: Vec::new(),
                invalid: 0,
            },
        }
    }
}

/// How a candidate's observations went in its last slice. Kept per
/// candidate: one candidate's late starts must not widen another's slots,
/// and a slice's first chunk is sized from the same candidate's pace.
#[derive(Clone, Copy, Debug)]
struct Pace {
    /// Seconds per observation (0 before the first slice).
    per_observation: f64,
    /// The slot of a roundtime observation: what the slowest rank needed
    /// for most calls of the last chunk, so that no rank's start is late
    /// because rank 0 happened to finish early (a bcast root, a gather leaf).
    slot: f64,
    /// Slack added to every roundtime slot (and to a chunk's lead): doubled
    /// after many late starts, shrunk while starts are on time.
    slack: f64,
}

impl Default for Pace {
    fn default() -> Pace {
        Pace {
            per_observation: 0.0,
            slot: 0.0,
            slack: MIN_SLACK,
        }
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
    send: Vec<T>,
    recv: Vec<T>,
    entries: Vec<Entry<T>>,
}

impl<T: Element> Prepared<T> {
    fn new(ctx: &Context, case: &Case) -> Prepared<T> {
        let key = &case.key;
        let shape = Shape::new(key.collective, ctx.size(), ctx.rank(), key.root, key.count);
        let setup = setup(ctx, case, &shape, key.op);
        let mut entries: Vec<Entry<T>> = case
            .candidates
            .iter()
            .map(|name| match candidates::prepare::<T>(name, &setup) {
                Ok(run) => Entry::new(name, Some(run), Outcome::Measured),
                Err(NotApplicable(why)) => Entry::new(name, None, Outcome::Skipped(why)),
            })
            .collect();
        entries.extend(
            case.skipped
                .iter()
                .map(|(name, why)| Entry::new(name, None, Outcome::Skipped(why.clone()))),
        );
        // A case whose buffers exceed --max-memory has no candidates left.
        let (send_len, recv_len) = match case.candidates.is_empty() {
            true => (0, 0),
            false => (shape.send_len(), shape.recv_len()),
        };
        // Never the dangling pointer of an empty Vec: Open MPI's MPI_IN_PLACE
        // is (void*)1, the address an empty Vec<u8> has.
        let inputs = Inputs::new(key.collective, key.op, shape.size);
        let mut send = match send_len {
            0 => Vec::new(),
            _ => reference::send_buffer(&shape, &inputs),
        };
        send.reserve(1);
        let mut recv = Vec::with_capacity(recv_len.max(1));
        recv.resize(recv_len, T::default());
        Prepared {
            shape,
            inputs,
            datatype: key.datatype,
            setup,
            send,
            recv,
            entries,
        }
    }

    /// Verifies every candidate against the reference; a second time with a
    /// stronger operator where the measured one could hide a wrong result
    /// ([`crate::element::Op::second_check`]).
    fn verify(&mut self, ctx: &Context) {
        if self.entries.iter().all(|e| e.run.is_none()) {
            return;
        }
        let primary = Check::new(&self.shape, self.inputs);
        let second = self
            .shape
            .collective
            .is_reduction()
            .then(|| self.inputs.op.second_check(self.datatype))
            .flatten()
            .map(|op| {
                let inputs = Inputs::new(self.shape.collective, op, self.shape.size);
                (op, Check::new(&self.shape, inputs))
            });
        for e in 0..self.entries.len() {
            let Some(mut run) = self.entries[e].run.take() else {
                continue;
            };
            let local = primary.run(&mut run, &mut self.send, &mut self.recv);
            // Every rank must agree before the second check: preparing a
            // candidate may be collective.
            let mut wrong = agree_on_failure(ctx, local);
            if let (None, Some((op, check))) = (&wrong, &second) {
                let mut setup = self.setup.clone();
                setup.op = op.mpi();
                setup.commutative = setup.op.is_commutative();
                let local = match candidates::prepare::<T>(&self.entries[e].sample.name, &setup) {
                    Ok(mut strong) => check
                        .run(&mut strong, &mut self.send, &mut self.recv)
                        .map(|why| format!("with op {} on distinct data: {why}", op.name())),
                    Err(NotApplicable(why)) => {
                        Some(format!("cannot be verified with op {}: {why}", op.name()))
                    }
                };
                self.send.copy_from_slice(&primary.send);
                wrong = agree_on_failure(ctx, local);
            }
            match wrong {
                Some(why) => self.entries[e].sample.outcome = Outcome::Wrong(why),
                None => self.entries[e].run = Some(run),
            }
        }
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
        let comm = &*ctx.comm;
        let measured: Vec<usize> = (0..self.entries.len())
            .filter(|&e| self.entries[e].run.is_some())
            .collect();
        for &e in &measured {
            let run = self.entries[e].run.as_mut().expect("verified");
            for _ in 0..settings.warmup {
                comm.barrier();
                run(&self.send, &mut self.recv);
            }
        }
        // Rank 0's schedule decides every chunk (see `observe_until`).
        harness.rebase();
        let slice = settings.budget.as_secs_f64() / settings.rounds as f64;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed ^ case_seed(&case.key));
        let mut order = measured.clone();
        let mut local = Vec::with_capacity(3 << 12);
        for round in 0..settings.rounds {
            order.shuffle(&mut rng);
            for &e in &order {
                if harness.stopped {
                    return;
                }
                if let Some(sender) = &events.sender {
                    let _ = sender.send(Event {
                        case: events.case,
                        cases: events.cases,
                        label: format!("{} {} B", case.key.collective, case.key.size_bytes),
                        candidate: self.entries[e].sample.name.clone(),
                        round: round + 1,
                        rounds: settings.rounds,
                        elapsed_s: harness.elapsed(),
                        planned_s: harness.planned,
                    });
                }
                // Clocks drift: resynchronise between slices once stale.
                harness.refresh(ctx);
                let deadline = harness.book(slice);
                let entry = &mut self.entries[e];
                let run = entry.run.as_mut().expect("verified");
                local.clear();
                observe_until(
                    comm,
                    harness,
                    run,
                    &self.send,
                    &mut self.recv,
                    deadline,
                    &mut local,
                    &mut entry.pace,
                );
                // Whether any rank was signalled travels with the
                // observations: a launcher may not signal rank 0 itself.
                local.push(f64::from(u8::from(harness.signalled())));
                let mut max = vec![0.0; local.len()];
                comm.all_reduce_into(&local[..], &mut max[..], SystemOperation::max());
                if max.pop().is_some_and(|signalled| signalled > 0.0) {
                    harness.stopped = true;
                }
                if ctx.rank() == 0 {
                    let sample = &mut entry.sample;
                    let before = sample.seconds.len();
                    sample.invalid += assemble(&max, &mut sample.seconds);
                    let added = sample.seconds.len() - before;
                    sample
                        .rounds
                        .extend(std::iter::repeat_n(round as u32, added));
                }
            }
        }
    }

    fn finish(self, case: &Case) -> CaseData {
        CaseData {
            key: case.key.clone(),
            samples: self.entries.into_iter().map(|e| e.sample).collect(),
        }
    }
}

/// What candidates of a case are prepared with, for operator `op`.
fn setup(ctx: &Context, case: &Case, shape: &Shape, op: crate::element::Op) -> Setup {
    let mpi_op = op.mpi();
    Setup {
        comm: ctx.comm.clone(),
        topology: ctx.topology.clone(),
        shape: shape.clone(),
        commutative: mpi_op.is_commutative(),
        op: mpi_op,
        tuning: Tuning {
            nblock_blocks: case.blocks,
        },
    }
}

/// One verification of candidates: the send buffer, what the receive
/// buffer holds before the call (the sentinel of every expected element,
/// bcast's input at its root), and the output MPI defines.
struct Check<T> {
    send: Vec<T>,
    recv_before: Vec<T>,
    want: Vec<T>,
    defined: std::ops::Range<usize>,
}

impl<T: Element> Check<T> {
    fn new(shape: &Shape, inputs: Inputs) -> Check<T> {
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
    fn run(&self, run: &mut Run<T>, send: &mut [T], recv: &mut [T]) -> Option<String> {
        send.copy_from_slice(&self.send);
        recv.copy_from_slice(&self.recv_before);
        run(send, recv);
        if let Some(mismatch) = reference::compare(&recv[self.defined.clone()], &self.want) {
            return Some(mismatch.to_string());
        }
        (*send != self.send[..]).then(|| "it overwrote its send buffer".to_string())
    }
}

/// A seed per case, so that the order of one case does not depend on the
/// cases before it.
fn case_seed(key: &CaseKey) -> u64 {
    (key.collective as u64) << 48 ^ key.size_bytes << 8 ^ key.root as u64
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
#[allow(clippy::too_many_arguments)]
fn observe_until<T>(
    comm: &SimpleCommunicator,
    harness: &mut Harness,
    run: &mut Run<T>,
    send: &[T],
    recv: &mut [T],
    deadline: f64,
    local: &mut Vec<f64>,
    pace: &mut Pace,
) {
    let leader = comm.rank() == 0;
    let root = comm.process_at_rank(0);
    let mut spent = 0.0;
    let mut durations: Vec<f64> = Vec::with_capacity(1 << 10);
    let (mut late, mut any_late): (Vec<f64>, Vec<f64>) = (Vec::new(), Vec::new());
    loop {
        // [observations, first start (global), slot length]
        let mut decision = [0.0f64; 3];
        if leader {
            let observed = local.len() / 3;
            let remaining = deadline - mpi::time();
            decision = [
                next_chunk(observed, spent, remaining, pace.per_observation) as f64,
                harness.clock.now() + harness.lead + pace.slack + harness.flush_s,
                pace.slot + pace.slack + harness.flush_s,
            ];
            if harness.signalled() {
                decision[0] = -1.0;
            }
        }
        root.broadcast_into(&mut decision[..]);
        if decision[0] < 0.0 {
            harness.stopped = true;
            break;
        }
        let next = decision[0] as u64;
        if next == 0 {
            break;
        }
        let chunk_start = mpi::time();
        for i in 0..next {
            if !harness.flush.is_empty() {
                harness.flush_cache();
            }
            match harness.sync {
                SyncMode::Barrier => {
                    comm.barrier();
                    let start = mpi::time();
                    run(send, recv);
                    let duration = mpi::time() - start;
                    local.extend_from_slice(&[duration, 0.0, 0.0]);
                }
                SyncMode::Roundtime => {
                    let due = harness.clock.local(decision[1] + i as f64 * decision[2]);
                    let late = mpi::time() > due;
                    wait_until(due);
                    let start = mpi::time();
                    run(send, recv);
                    let end = mpi::time();
                    let clock = &harness.clock;
                    local.extend_from_slice(&[
                        clock.global(end),
                        -clock.global(start),
                        f64::from(u8::from(late)),
                    ]);
                }
            }
        }
        spent += mpi::time() - chunk_start;
        if harness.sync == SyncMode::Roundtime {
            let chunk = &local[local.len() - 3 * next as usize..];
            durations.clear();
            durations.extend(chunk.chunks(3).map(|o| o[0] + o[1]));
            // Which observations some rank started late (the ones rank 0
            // will discard), and the slot the slowest rank needs.
            late.clear();
            late.extend(chunk.chunks(3).map(|o| o[2]));
            late.push(slot_of(&mut durations));
            any_late.resize(late.len(), 0.0);
            comm.all_reduce_into(&late[..], &mut any_late[..], SystemOperation::max());
            pace.slot = any_late[next as usize];
            let invalid = any_late[..next as usize]
                .iter()
                .filter(|&&l| l > 0.0)
                .count();
            pace.slack = next_slack(pace.slack, invalid as f64 / next as f64);
        }
    }
    if local.len() >= 3 {
        pace.per_observation = spent / (local.len() / 3) as f64;
    }
}

/// A slice's observations from the maximum over ranks of each observation's
/// (end, −start, late): max end − min start where no rank started late;
/// returns how many were late. The first observation of a slice of several
/// is dropped: it follows the reduction of the previous slice's
/// observations and the agreement on this one, which the others do not.
fn assemble(max: &[f64], observations: &mut Vec<f64>) -> usize {
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
/// slice, or one observation when there is none.
fn next_chunk(observed: usize, spent: f64, remaining: f64, prior: f64) -> u64 {
    if observed == 0 {
        return match prior > 0.0 {
            true => ((0.25 * remaining / prior).floor() as u64).max(1),
            false => 1,
        };
    }
    let per_observation = spent / observed as f64;
    match (0.5 * remaining / per_observation).floor().max(0.0) as u64 {
        // Close to the deadline: one more only if it ends nearer to it.
        0 => u64::from(remaining > 0.5 * per_observation),
        n => n.min(observed as u64),
    }
}

/// The slot one rank needs for an observation, from its durations in the
/// last chunk: a quarter above their 90th percentile, so that a rare slow
/// call costs one late start rather than stretching every slot.
fn slot_of(durations: &mut [f64]) -> f64 {
    if durations.is_empty() {
        return 0.0;
    }
    durations.sort_unstable_by(f64::total_cmp);
    let p90 = durations[(durations.len() * 9 / 10).min(durations.len() - 1)];
    1.25 * p90
}

/// The roundtime slack after a chunk of which the share `late` of
/// observations had a rank start late (and is discarded). A rare late start
/// costs one observation, slack on every slot costs them all: the slack
/// doubles when more than [`LATE_TARGET`] started late, shrinks by a fifth
/// when almost none did, and stays otherwise.
fn next_slack(slack: f64, late: f64) -> f64 {
    if late > LATE_TARGET {
        (2.0 * slack).min(MAX_SLACK)
    } else if late < 0.2 * LATE_TARGET {
        (0.8 * slack).max(MIN_SLACK)
    } else {
        slack
    }
}

/// The share of late starts the slack aims below.
const LATE_TARGET: f64 = 0.02;

/// The least slack of a roundtime slot.
const MIN_SLACK: f64 = 1e-6;

/// The widest slack: beyond it the machine is too busy for
/// clock-synchronised starts and observations stay invalid.
const MAX_SLACK: f64 = 0.005;

/// Waits until the local time `due`: yields the core while far from it, so
/// that oversubscribed ranks can run, and spins for the last microseconds.
fn wait_until(due: f64) {
    while due - mpi::time() > 50e-6 {
        std::thread::yield_now();
    }
    while mpi::time() < due {
        std::hint::spin_loop();
    }
}

/// Agrees on a verification failure: every rank learns on which ranks the
/// candidate was wrong and what the first of them saw.
fn agree_on_failure(ctx: &Context, local: Option<String>) -> Option<String> {
    let comm = &*ctx.comm;
    let flag = i32::from(local.is_some());
    let mut flags = vec![0i32; ctx.size()];
    comm.all_gather_into(&flag, &mut flags[..]);
    let wrong: Vec<usize> = (0..flags.len()).filter(|&r| flags[r] != 0).collect();
    let first = *wrong.first()?;
    // The first wrong rank tells the others what it saw.
    let mut reason = [0u8; 200];
    if ctx.rank() == first {
        let text = local.unwrap_or_default();
        let n = text.len().min(reason.len());
        reason[..n].copy_from_slice(&text.as_bytes()[..n]);
    }
    comm.process_at_rank(first as i32)
        .broadcast_into(&mut reason[..]);
    let end = reason.iter().position(|&b| b == 0).unwrap_or(reason.len());
    let others = match wrong.len() {
        1 => String::new(),
        n => format!(" (wrong on {n} ranks: {wrong:?})"),
    };
    Some(format!(
        "rank {first}, {}{others}",
        String::from_utf8_lossy(&reason[..end])
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_starts_with_one_observation_or_a_quarter_at_the_last_pace() {
        assert_eq!(next_chunk(0, 0.0, 0.01, 0.0), 1);
        // 2⁻⁶ s left at 2⁻¹⁶ s per observation: a quarter is 256.
        assert_eq!(next_chunk(0, 0.0, 0.015625, 0.0000152587890625), 256);
        // Never none, even when the prior pace says the slice is too short.
        assert_eq!(next_chunk(0, 0.0, 1e-6, 10e-6), 1);
    }

    #[test]
    fn chunks_take_half_the_remaining_time_and_at_most_double() {
        // 4 observations in 40 µs, 1 s left: half is 50 000, capped at 4.
        assert_eq!(next_chunk(4, 40e-6, 1.0, 0.0), 4);
        // 1024 observations in 2⁻⁷ s, as much left: half the time is 512.
        assert_eq!(next_chunk(1024, 0.0078125, 0.0078125, 0.0), 512);
        // Near the deadline: one more only if it ends closer to it.
        assert_eq!(next_chunk(100, 1e-3, 6e-6, 0.0), 1);
        assert_eq!(next_chunk(100, 1e-3, 4e-6, 0.0), 0);
        assert_eq!(next_chunk(100, 1e-3, -1e-3, 0.0), 0);
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
        let slot = slot_of(&mut durations);
        assert!((slot - 1.25 * 91e-6).abs() < 1e-12, "{slot}");
        assert_eq!(slot_of(&mut []), 0.0);
    }

    #[test]
    fn slack_doubles_after_many_late_starts_and_shrinks_back() {
        let mut slack = MIN_SLACK;
        for _ in 0..20 {
            slack = next_slack(slack, 0.5);
        }
        assert_eq!(slack, MAX_SLACK);
        // One late start in a hundred is the price of short slots.
        assert_eq!(next_slack(slack, 0.01), slack);
        for _ in 0..200 {
            slack = next_slack(slack, 0.0);
        }
        assert_eq!(slack, MIN_SLACK);
    }
}
