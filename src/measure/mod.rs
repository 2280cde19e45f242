//! Running candidates: verification against the library's own collective,
//! and timing in interleaved rounds within a fixed budget. The only stage
//! that times MPI.

use crate::candidates::{self, NotApplicable, Run, Setup, Tuning};
use crate::collective::Shape;
use crate::element::Element;
use crate::plan::{Case, Settings};
use crate::with_element;
use algorithms::topology::Topology;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::Serialize;
use std::rc::Rc;

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

/// What became of a candidate in a case.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum Status {
    /// Verified and measured.
    Measured,
    /// Its result differs from the library's own collective.
    Wrong(String),
    /// It cannot run in this case (topology, operator, …).
    Skipped(String),
}

/// One candidate's outcome in one case. Observations are kept on rank 0 only.
#[derive(Clone, Debug, Serialize)]
pub struct CandidateRun {
    pub name: String,
    #[serde(flatten)]
    pub status: Status,
    /// Seconds per observation: the maximum over ranks of the local duration.
    #[serde(skip)]
    pub observations: Vec<f64>,
    /// The round of each observation.
    #[serde(skip)]
    pub rounds: Vec<u32>,
}

/// One case's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct CaseRun {
    pub case: Case,
    pub candidates: Vec<CandidateRun>,
}

/// Keeps the whole run on its planned length: slices end at their planned
/// offsets from the start, so time spent preparing and verifying is taken
/// from the following slices instead of adding up.
pub struct Schedule {
    start: f64,
    planned: f64,
}

impl Schedule {
    pub fn start() -> Schedule {
        Schedule {
            start: mpi::time(),
            planned: 0.0,
        }
    }

    /// Seconds since the start.
    pub fn elapsed(&self) -> f64 {
        mpi::time() - self.start
    }

    /// Seconds of plan consumed so far.
    pub fn planned(&self) -> f64 {
        self.planned
    }

    /// Planned length of the run up to the end of the next slice, as an
    /// absolute time, after which the slice is booked.
    fn book(&mut self, seconds: f64) -> f64 {
        self.planned += seconds;
        self.start + self.planned
    }
}

/// Verifies every candidate of a case once, without timing.
pub fn verify_case(ctx: &Context, case: &Case) -> CaseRun {
    with_element!(case.datatype, T => {
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
    schedule: &mut Schedule,
) -> CaseRun {
    with_element!(case.datatype, T => {
        let mut prepared = Prepared::<T>::new(ctx, case);
        prepared.verify(ctx);
        prepared.measure(ctx, case, settings, schedule);
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

/// A candidate ready to run.
struct Entry<T> {
    name: String,
    run: Option<Run<T>>,
    status: Status,
    observations: Vec<f64>,
    rounds: Vec<u32>,
}

/// A case's candidates and the buffers they share.
struct Prepared<T> {
    shape: Shape,
    op: crate::element::Op,
    send: Vec<T>,
    recv: Vec<T>,
    entries: Vec<Entry<T>>,
}

impl<T: Element> Prepared<T> {
    fn new(ctx: &Context, case: &Case) -> Prepared<T> {
        let shape = Shape::new(case.collective, ctx.size(), ctx.rank(), case.root, case.count);
        let mpi_op = case.op.mpi();
        let setup = Setup {
            comm: ctx.comm.clone(),
            topology: ctx.topology.clone(),
            shape: shape.clone(),
            commutative: mpi_op.is_commutative(),
            op: mpi_op,
            tuning: Tuning {
                nblock_blocks: case.blocks,
            },
        };
        let mut entries: Vec<Entry<T>> = case
            .candidates
            .iter()
            .map(|name| {
                let (run, status) = match candidates::prepare::<T>(name, &setup) {
                    Ok(run) => (Some(run), Status::Measured),
                    Err(NotApplicable(why)) => (None, Status::Skipped(why)),
                };
                Entry {
                    name: name.clone(),
                    run,
                    status,
                    observations: Vec::new(),
                    rounds: Vec::new(),
                }
            })
            .collect();
        entries.extend(case.skipped.iter().map(|(name, why)| Entry {
            name: name.clone(),
            run: None,
            status: Status::Skipped(why.clone()),
            observations: Vec::new(),
            rounds: Vec::new(),
        }));
        let send = (0..shape.send_len())
            .map(|i| T::input(shape.rank, i, case.op))
            .collect();
        let recv = vec![T::default(); shape.recv_len()];
        Prepared {
            shape,
            op: case.op,
            send,
            recv,
            entries,
        }
    }

    /// Fills `recv` before a verification run: bcast's input at the root, a
    /// pattern no candidate produces elsewhere.
    fn reset_recv(&mut self) {
        let bcast_root = self.shape.collective == crate::collective::Collective::Bcast
            && self.shape.is_root();
        let rank = self.shape.rank;
        for (i, x) in self.recv.iter_mut().enumerate() {
            *x = if bcast_root {
                T::input(rank, i, self.op)
            } else {
                T::input(rank + 7919, i ^ 0x5555, self.op)
            };
        }
    }

    /// Runs each candidate once and compares with `default` (the first).
    fn verify(&mut self, ctx: &Context) {
        let defined = self.shape.defined_output();
        let input = self.send.clone();
        let mut expected: Option<Vec<T>> = None;
        for e in 0..self.entries.len() {
            let Some(mut run) = self.entries[e].run.take() else {
                continue;
            };
            self.reset_recv();
            run(&self.send, &mut self.recv);
            let local = match &expected {
                None => {
                    expected = Some(self.recv[defined.clone()].to_vec());
                    None
                }
                Some(want) => self.recv[defined.clone()]
                    .iter()
                    .zip(want)
                    .position(|(got, want)| got != want)
                    .map(|i| format!("element {i}")),
            };
            let local = local.or_else(|| {
                (self.send != input).then(|| "it overwrote its send buffer".to_string())
            });
            self.send.copy_from_slice(&input);
            if let Some(why) = agree_on_failure(ctx, local) {
                self.entries[e].status = Status::Wrong(why);
            } else {
                self.entries[e].run = Some(run);
            }
        }
    }

    /// Warm-up, then `rounds` rounds in which every verified candidate runs
    /// for its share of the budget, in a seeded random order.
    fn measure(&mut self, ctx: &Context, case: &Case, settings: &Settings, schedule: &mut Schedule) {
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
        let slice = settings.budget.as_secs_f64() / settings.rounds as f64;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(settings.seed ^ case_seed(case));
        let mut order = measured.clone();
        let mut local = Vec::with_capacity(1 << 12);
        for round in 0..settings.rounds {
            order.shuffle(&mut rng);
            for &e in &order {
                let deadline = schedule.book(slice);
                let entry = &mut self.entries[e];
                let run = entry.run.as_mut().expect("verified");
                local.clear();
                observe_until(comm, run, &self.send, &mut self.recv, deadline, &mut local);
                let mut max = vec![0.0; local.len()];
                comm.all_reduce_into(&local[..], &mut max[..], SystemOperation::max());
                if ctx.rank() == 0 {
                    entry.rounds.extend(std::iter::repeat(round as u32).take(max.len()));
                    entry.observations.extend(max);
                }
            }
        }
    }

    fn finish(self, case: &Case) -> CaseRun {
        CaseRun {
            case: case.clone(),
            candidates: self
                .entries
                .into_iter()
                .map(|e| CandidateRun {
                    name: e.name,
                    status: e.status,
                    observations: e.observations,
                    rounds: e.rounds,
                })
                .collect(),
        }
    }
}

/// A seed per case, so that the order of one case does not depend on the
/// cases before it.
fn case_seed(case: &Case) -> u64 {
    (case.collective as u64) << 48 ^ case.size_bytes << 8 ^ case.root as u64
}

/// Barrier-synchronised observations until rank 0's clock passes
/// `deadline`, at least one. Rank 0 decides how many observations come next
/// and broadcasts it: half the remaining time's worth at a time, so the
/// agreement costs a handful of broadcasts per slice, all outside the timed
/// region, and no rank can run ahead into a different collective.
fn observe_until<T>(
    comm: &SimpleCommunicator,
    run: &mut Run<T>,
    send: &[T],
    recv: &mut [T],
    deadline: f64,
    local: &mut Vec<f64>,
) {
    let leader = comm.rank() == 0;
    let root = comm.process_at_rank(0);
    let mut spent = 0.0;
    loop {
        let mut next: u64 = 0;
        if leader {
            let remaining = deadline - mpi::time();
            next = if local.is_empty() {
                1
            } else {
                let per_observation = spent / local.len() as f64;
                match (0.5 * remaining / per_observation).floor().max(0.0) as u64 {
                    // Close to the deadline: one more only if it ends nearer to it.
                    0 => u64::from(remaining > 0.5 * per_observation),
                    n => n,
                }
            };
        }
        root.broadcast_into(&mut next);
        if next == 0 {
            break;
        }
        let chunk_start = mpi::time();
        for _ in 0..next {
            comm.barrier();
            let start = mpi::time();
            run(send, recv);
            local.push(mpi::time() - start);
        }
        spent += mpi::time() - chunk_start;
    }
}

/// Agrees on a verification failure: every rank learns on which ranks the
/// candidate was wrong and the first rank's reason.
fn agree_on_failure(ctx: &Context, local: Option<String>) -> Option<String> {
    let comm = &*ctx.comm;
    let flag = i32::from(local.is_some());
    let mut flags = vec![0i32; ctx.size()];
    comm.all_gather_into(&flag, &mut flags[..]);
    let wrong: Vec<usize> = (0..flags.len()).filter(|&r| flags[r] != 0).collect();
    let first = *wrong.first()?;
    // The first wrong rank tells the others what it saw.
    let mut reason = [0u8; 96];
    if ctx.rank() == first {
        let text = local.unwrap_or_default();
        let n = text.len().min(reason.len());
        reason[..n].copy_from_slice(&text.as_bytes()[..n]);
    }
    comm.process_at_rank(first as i32).broadcast_into(&mut reason[..]);
    let end = reason.iter().position(|&b| b == 0).unwrap_or(reason.len());
    Some(format!(
        "differs from default on rank(s) {wrong:?}; rank {first}: {}",
        String::from_utf8_lossy(&reason[..end])
    ))
}
