//! Running candidates: verification against the independent reference
//! ([`crate::reference`]), and timing in interleaved rounds within a fixed
//! budget; also what the run runs on ([`machine`]). The only stage that
//! times MPI.

pub mod clock;
mod harness;
mod observe;
mod probe;
mod verify;

pub use harness::Harness;
pub use observe::LATE_CAP;
use observe::{assemble, observe_until, Pace};
pub use probe::{cold_cache_bytes, largest_peak_rss_bytes, probe_cases, resident_bytes};
use verify::{agree_on_failure, Check};

use crate::candidates::{self, Call, NotApplicable, Setup, Switch, Tuning};
use crate::case::{CaseData, CaseKey, Outcome, Sample, Smaller};
use crate::collective::Shape;
use crate::element::Element;
use crate::meta::Meta;
use crate::plan::Case;
use crate::reference::{self, Inputs};
use crate::settings::Settings;
use crate::with_element;
use algorithms::topology::Topology;
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

/// The largest resident set this process has had, in bytes (`getrusage`);
/// 0 where unknown.
pub fn peak_rss_bytes() -> u64 {
    // SAFETY: getrusage only writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut usage) != 0 {
            return 0;
        }
        usage
    };
    let maxrss = u64::try_from(usage.ru_maxrss).unwrap_or(0);
    // Kibibytes on Linux and the BSDs, bytes on macOS.
    match cfg!(target_os = "macos") {
        true => maxrss,
        false => maxrss * 1024,
    }
}

/// A candidate ready to run, and what it has gathered.
struct Entry<T> {
    call: Option<Call<T>>,
    /// What the candidate holds set around a chunk of its timed calls.
    switch: Option<Rc<dyn Switch>>,
    pace: Pace,
    sample: Sample,
    /// The size of the library's call at a smaller size ([`Smaller`]):
    /// timed with the others, verified in its own case.
    smaller: Option<u64>,
}

impl<T> Entry<T> {
    fn new(name: &str, call: Option<Call<T>>, outcome: Outcome) -> Entry<T> {
        Entry {
            call,
            switch: None,
            pace: Pace::default(),
            sample: Sample {
                outcome,
                ..Sample::measured(name)
            },
            smaller: None,
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
            .map(
                |name| match candidates::prepare_switched::<T>(name, &setup) {
                    Ok((call, switch)) => Entry {
                        switch,
                        ..Entry::new(name, Some(call), Outcome::Measured)
                    },
                    Err(NotApplicable(why)) => Entry::new(name, None, Outcome::Skipped(why)),
                },
            )
            .collect();
        entries.extend(
            case.skipped
                .iter()
                .map(|(name, why)| Entry::new(name, None, Outcome::Skipped(why.clone()))),
        );
        if let Some((size_bytes, count)) = case.smaller.filter(|_| !case.candidates.is_empty()) {
            entries.push(Entry {
                smaller: Some(size_bytes),
                ..Entry::new(
                    &Smaller::name(size_bytes),
                    Some(smaller_call(ctx, case, count)),
                    Outcome::Measured,
                )
            });
        }
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
        if self.entries.iter().all(|e| e.call.is_none()) {
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
            if self.entries[e].smaller.is_some() {
                continue;
            }
            let Some(mut call) = self.entries[e].call.take() else {
                continue;
            };
            let local = primary.verify(&mut call, &mut self.send, &mut self.recv);
            // Every rank must agree before the second check: preparing a
            // candidate may be collective.
            let mut wrong = agree_on_failure(ctx, local);
            if let (None, Some((op, check))) = (&wrong, &second) {
                let mut setup = self.setup.clone();
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
            match wrong {
                Some(why) => self.entries[e].sample.outcome = Outcome::Wrong(why),
                None => self.entries[e].call = Some(call),
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
            .filter(|&e| self.entries[e].call.is_some())
            .collect();
        for &e in &measured {
            let call = self.entries[e].call.as_mut().expect("verified");
            for _ in 0..settings.warmup {
                comm.barrier();
                call(&self.send, &mut self.recv);
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
                let call = entry.call.as_mut().expect("verified");
                local.clear();
                let slice_start = mpi::time();
                observe_until(
                    comm,
                    harness,
                    call,
                    entry.switch.as_deref(),
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
                    let late = assemble(&max, &mut sample.seconds);
                    let added = sample.seconds.len() - before;
                    let round = round as u32;
                    sample.rounds.extend(std::iter::repeat_n(round, added));
                    sample
                        .invalid_rounds
                        .extend(std::iter::repeat_n(round, late));
                }
                harness.measuring_s += mpi::time() - slice_start;
            }
        }
    }

    fn finish(self, case: &Case) -> CaseData {
        let (smaller, entries): (Vec<_>, Vec<_>) =
            self.entries.into_iter().partition(|e| e.smaller.is_some());
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
        }
    }
}

/// The library's call with `count` elements, on the first elements of the
/// case's buffers (which are at least as long).
fn smaller_call<T: Element>(ctx: &Context, case: &Case, count: usize) -> Call<T> {
    let key = &case.key;
    let shape = Shape::new(key.collective, ctx.size(), ctx.rank(), key.root, count);
    let (send_len, recv_len) = (shape.send_len(), shape.recv_len());
    let mut call = candidates::native::prepare::<T>(&setup(ctx, case, &shape, key.op));
    Box::new(move |send, recv| call(&send[..send_len], &mut recv[..recv_len]))
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

/// A seed per case, so that the order of one case does not depend on the
/// cases before it.
fn case_seed(key: &CaseKey) -> u64 {
    (key.collective as u64) << 48 ^ key.size_bytes << 8 ^ key.root as u64
}

/// What this run runs on (library, processes, nodes, hosts, timer, the
/// environment that selects algorithms); collective over the context.
pub fn machine(ctx: &Context) -> Meta {
    let mut hosts = algorithms::topology::host_names(&ctx.comm);
    hosts.sort();
    hosts.dedup();
    let (nodes, ppn, virtual_nodes) = match &ctx.topology {
        Ok(t) => (t.nodes, t.ppn, t.virtual_nodes),
        Err(_) => (hosts.len(), ctx.size() / hosts.len().max(1), false),
    };
    let (major, minor) = mpi::environment::version();
    Meta {
        tool: "pgcheck".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        git_revision: option_env!("PGCHECK_GIT_REVISION").map(String::from),
        mpi_library: mpi::environment::library_version()
            .unwrap_or_default()
            .trim()
            .to_string(),
        mpi_version: format!("{major}.{minor}"),
        processes: ctx.size(),
        nodes,
        ppn,
        virtual_nodes,
        hosts,
        environment: std::env::vars()
            .filter(|(k, _)| k.starts_with("OMPI_MCA_") || k.starts_with("MPIR_CVAR_"))
            .collect(),
        placement: placement(&ctx.comm),
        slurm: crate::meta::Slurm::from_env(),
        timer: "MPI_Wtime".into(),
        timer_resolution_s: mpi::time_resolution(),
        library_algorithms: candidates::library::algorithms()
            .iter()
            .map(candidates::library::Algorithm::record)
            .collect(),
        ..Meta::default()
    }
}

/// Where the ranks run (collective): how many are not bound to CPUs, and
/// the node with the most ranks per online CPU. Read from Linux's
/// `/proc/self/status` and `/sys/devices/system/cpu/online`; elsewhere
/// every rank counts as bound to its share.
fn placement(comm: &SimpleCommunicator) -> crate::meta::Placement {
    let online = read_cpu_list("/sys/devices/system/cpu/online");
    let allowed = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status
                .lines()
                .find(|l| l.starts_with("Cpus_allowed_list:"))?;
            Some(cpu_count(line.split(':').nth(1)?))
        });
    let unbound = match (online, allowed) {
        (Some(online), Some(allowed)) => i32::from(online > 1 && allowed >= online),
        _ => 0,
    };
    let on_node = comm.split_shared(comm.rank()).size();
    let cpus = online.unwrap_or(0) as i32;
    // The node with the most ranks per CPU, and its numbers.
    let crowding = [on_node as f64 / cpus.max(1) as f64];
    let mut most = [0.0];
    comm.all_reduce_into(&crowding[..], &mut most[..], SystemOperation::max());
    let mine = if crowding[0] == most[0] {
        [on_node, cpus]
    } else {
        [0, 0]
    };
    let mut theirs = [0i32; 2];
    comm.all_reduce_into(&mine[..], &mut theirs[..], SystemOperation::max());
    let mut unbound_ranks = 0;
    comm.all_reduce_into(&unbound, &mut unbound_ranks, SystemOperation::sum());
    crate::meta::Placement {
        unbound_ranks: unbound_ranks as usize,
        most_ranks_on_a_node: theirs[0] as usize,
        cpus_on_that_node: theirs[1] as usize,
    }
}

fn read_cpu_list(path: &str) -> Option<usize> {
    Some(cpu_count(&std::fs::read_to_string(path).ok()?))
}

/// The CPUs of a Linux CPU list such as `0-3,8,10-11`.
fn cpu_count(list: &str) -> usize {
    list.trim()
        .split(',')
        .filter(|part| !part.is_empty())
        .map(|part| match part.split_once('-') {
            Some((a, b)) => match (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => usize::from(part.trim().parse::<usize>().is_ok()),
        })
        .sum()
}

#[cfg(test)]
mod placement_tests {
    use super::cpu_count;

    #[test]
    fn cpu_lists_count_ranges_and_singles() {
        assert_eq!(cpu_count("0-1\n"), 2);
        assert_eq!(cpu_count("0"), 1);
        assert_eq!(cpu_count("\t0-3,8,10-11"), 7);
        assert_eq!(cpu_count(""), 0);
    }
}
