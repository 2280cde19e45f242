//! The plan: every (collective, size, root) case with its candidates, and
//! how long measuring them will take.

use crate::analyse::{Correction, Test};
use crate::candidates::{self, native::DEFAULT, native::DEFAULT_IN_PLACE, Family};
use crate::case::CaseKey;
use crate::config::{Config, InputError};
use crate::element::{Datatype, Op};
use crate::meta::Meta;
use crate::operation::{Form, Operation};
use crate::reference;
pub use crate::settings::REMEASURE_SHARE;
use crate::settings::{Settings, TimedForms, UniversalMode};
use crate::stats::power;
use std::time::Duration;

pub mod memory;
pub mod verify;

use memory::Footprint;

/// One collective at one size and root, with the candidates to measure.
#[derive(Clone, Debug)]
pub struct Case {
    pub key: CaseKey,
    /// `default` first, then the competitors to measure.
    pub candidates: Vec<String>,
    /// Competitors known before measuring not to apply, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Blocks of the n-block circulant broadcast, if set.
    pub blocks: Option<usize>,
    /// With `--universal shared`: the next smaller size of the series
    /// (bytes, count), whose library call runs in this case's rounds too.
    pub smaller: Option<(u64, usize)>,
    /// Which forms of the library's call are timed (both are verified).
    pub timed: TimedForms,
    /// Seconds of one call of the library's collective, and of computing
    /// one rank's inputs, probed before measuring (0 until probed, or when
    /// the case is skipped).
    pub call_s: f64,
    pub inputs_s: f64,
}

impl Case {
    /// Times the library's call in `forms`: with both, the
    /// in-place form is measured as the competitor `default_in_place`,
    /// right after `default` (where `default` itself is measured).
    pub fn time(&mut self, forms: TimedForms) {
        self.timed = forms;
        if forms == TimedForms::Both && self.candidates.first().is_some_and(|c| c == DEFAULT) {
            self.candidates.insert(1, DEFAULT_IN_PLACE.to_string());
        }
    }

    /// Candidate measurements of the case (with the library's call at a
    /// smaller size, where the case times it too, and a nonblocking
    /// call's with computation between start and wait).
    pub fn measurements(&self) -> usize {
        let measured = !self.candidates.is_empty();
        let smaller = usize::from(self.smaller.is_some() && measured);
        let overlapped = usize::from(self.key.operation.form == Form::Nonblocking && measured);
        self.candidates.len() + smaller + overlapped
    }

    /// Calls each candidate makes outside its slices: warm-up and one per
    /// verification (two for an operator checked twice).
    fn calls_outside(&self, warmup: usize) -> usize {
        let key = &self.key;
        let second = key.operation.is_reduction() && key.op.second_check(key.datatype).is_some();
        warmup + 1 + usize::from(second)
    }

    /// Seconds verification's reference takes: the harness's send buffer,
    /// then per check the output MPI defines (and for a second check its
    /// own send buffer). Where the ranks share the output
    /// ([`reference::is_shared`]) each computes one rank's inputs' worth
    /// and the shares travel to the ranks that need them, about one call's
    /// time; elsewhere a rank computes about p ranks' inputs.
    fn reference_s(&self, processes: usize) -> f64 {
        let checks = self.calls_outside(0);
        let (output, exchange) = match reference::is_shared(self.key.operation.collective) {
            true => (1, self.call_s),
            false => (processes, 0.0),
        };
        let inputs = 1 + checks * output + (checks - 1);
        self.inputs_s * inputs as f64 + exchange * checks as f64
    }
}

/// What one case costs besides its budget, in seconds (maximum over
/// ranks), as `measure` probes it before the plan is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CaseProbe {
    /// One call of `default`.
    pub call_s: f64,
    /// Computing one rank's inputs, of which verification's reference
    /// computes every rank's.
    pub inputs_s: f64,
}

/// A case whose one call outlasts a round's share of the budget: each of
/// its slices takes one call, not its share.
#[derive(Clone, Debug, PartialEq)]
pub struct LongCall {
    /// e.g. `allreduce 67108864 B`.
    pub label: String,
    pub call_s: f64,
    pub measurements: usize,
    /// What its slices take, all candidates, and the calls outside them
    /// (warm-up and verification).
    pub slices_s: f64,
    pub outside_s: f64,
    /// Calls per candidate outside the slices.
    pub calls_outside: usize,
    /// What verification's reference takes ([`Case`]'s `reference_s`).
    pub reference_s: f64,
}

/// A slice of a long call: the timed call, and the call after its chunk
/// that checks the output on refilled buffers.
pub const CALLS_PER_LONG_SLICE: f64 = 2.0;

/// Everything a run will do.
#[derive(Clone, Debug)]
pub struct Plan {
    pub settings: Settings,
    pub cases: Vec<Case>,
    /// The largest resident set of a process when planning, counted in
    /// every case's memory ([`World::resident_bytes`]).
    pub resident_bytes: u64,
    /// The processes the plan runs on.
    pub processes: usize,
}

impl Plan {
    /// Candidate measurements in the plan.
    pub fn measurements(&self) -> usize {
        self.cases.iter().map(Case::measurements).sum()
    }

    /// A round's share of the budget: one slice of one candidate.
    pub fn slice_s(&self) -> f64 {
        self.settings.budget.as_secs_f64() / self.settings.rounds as f64
    }

    /// What the budget alone books: every candidate of every case for the
    /// budget.
    pub fn budgeted(&self) -> Duration {
        self.settings.budget * self.measurements() as u32
    }

    /// How long measuring takes: the budget, and for cases whose one call
    /// outlasts a slice, their calls instead ([`Plan::long_calls`]).
    pub fn expected(&self) -> Duration {
        let long: f64 = self
            .long_calls()
            .iter()
            .map(|l| {
                l.slices_s + l.outside_s + l.reference_s
                    - self.settings.budget.as_secs_f64() * l.measurements as f64
            })
            .sum();
        self.budgeted() + Duration::from_secs_f64(long.max(0.0))
    }

    /// The most that measuring disturbed rounds again may add to
    /// [`Plan::expected`] ([`REMEASURE_SHARE`] of it).
    pub fn remeasured_at_most(&self) -> Duration {
        self.expected().mul_f64(REMEASURE_SHARE)
    }

    /// The cases whose one call ([`Case::call_s`]) is longer than a slice:
    /// a slice takes at least one observation, so each of their rounds
    /// takes a call per candidate, and one more that checks the output
    /// on refilled buffers after the chunk (`measure::observe`); warm-up
    /// and verification take calls of the same length.
    pub fn long_calls(&self) -> Vec<LongCall> {
        let budget = self.settings.budget.as_secs_f64();
        self.cases
            .iter()
            .filter(|c| {
                let rounds = self.settings.rounds_for(c.call_s);
                c.call_s > budget / rounds as f64 && c.measurements() > 0
            })
            .map(|c| {
                let rounds = self.settings.rounds_for(c.call_s) as f64;
                let n = c.measurements() as f64;
                let calls_outside = c.calls_outside(self.settings.warmup);
                LongCall {
                    label: format!("{} {} B", c.key.operation, c.key.size_bytes),
                    call_s: c.call_s,
                    measurements: c.measurements(),
                    slices_s: n * rounds * CALLS_PER_LONG_SLICE * c.call_s,
                    outside_s: n * calls_outside as f64 * c.call_s,
                    calls_outside,
                    reference_s: c.reference_s(self.processes),
                }
            })
            .collect()
    }

    /// Sets what was probed of every case (in the order of the cases).
    pub fn with_probes(mut self, probes: &[CaseProbe]) -> Plan {
        for (case, probe) in self.cases.iter_mut().zip(probes) {
            case.call_s = probe.call_s;
            case.inputs_s = probe.inputs_s;
        }
        self
    }

    /// Records in `meta` how the run measures, and when it started.
    pub fn record(&self, meta: &mut Meta) {
        let s = &self.settings;
        meta.start_time =
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        // Rank 0's meta is the one kept: its process id.
        meta.run_id = format!(
            "{}-{}",
            meta.start_time.replace([':', '-'], ""),
            std::process::id()
        );
        meta.budget_s = s.budget.as_secs_f64();
        meta.rounds = s.rounds;
        meta.warmup = s.warmup;
        meta.seed = s.seed;
        meta.cache = format!("{:?}", s.cache).to_lowercase();
        meta.universal = format!("{:?}", s.universal).to_lowercase();
        meta.plan_s = self.expected().as_secs_f64();
        meta.resident_bytes = self.resident_bytes;
    }
}

/// What the plan needs to know about the processes.
#[derive(Clone, Debug)]
pub struct World {
    pub processes: usize,
    /// Whether lane and hier candidates can run, or why not.
    pub topology: Result<(), String>,
    /// Whether the library has persistent collectives, or what it lacks.
    pub persistent: Result<(), String>,
    /// Bytes a process may hold at most: its resident set when planning
    /// and one case's [`Footprint`].
    pub max_memory: u64,
    /// The largest resident set of a process when planning, and what the
    /// run allocates for all cases (the cold-cache buffer).
    pub resident_bytes: u64,
}

/// The default of `--max-memory`: a quarter of the machine's memory shared
/// by the processes on it, at most 4 GiB.
pub fn default_max_memory(processes_per_host: usize) -> u64 {
    let total = crate::host::total_memory_bytes().unwrap_or(8 << 30);
    (total / 4 / processes_per_host.max(1) as u64).min(4 << 30)
}

/// "12.0 MiB".
fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1 << 20) as f64)
}

/// The input with `--datatype`/`--op` applied to every check, checked again.
pub fn with_elements(
    config: &Config,
    datatype: Option<Datatype>,
    op: Option<Op>,
) -> Result<Config, InputError> {
    let mut changed = config.clone();
    for check in &mut changed.checks {
        if let Some(d) = datatype {
            check.datatype = d;
        }
        if let Some(o) = op {
            check.op = o;
        }
        check
            .validate_elements()
            .map_err(|msg| config.error_at(check.line, &msg))?;
    }
    Ok(changed)
}

/// Expands a checked input into cases.
pub fn from_config(config: &Config, settings: Settings, world: &World) -> Result<Plan, InputError> {
    let mut cases = Vec::new();
    for check in &config.checks {
        if let Some(why) = unfit(check, world) {
            return Err(config.error_at(check.line, &why));
        }
        let names: Vec<&str> = match &check.competitors {
            Some(list) => candidates::select(check.operation, list),
            None => candidates::all_of(check.operation)
                .map(|c| c.name)
                .collect(),
        };
        let sizes = check.operation.collective.sizes_of(&check.sizes);
        for &size in &sizes {
            cases.push(case(
                check.operation,
                size,
                check.datatype,
                check.op,
                check.root,
                &names,
                check.blocks,
                world,
            ));
        }
        let first = cases.len() - sizes.len();
        cases[first..]
            .iter_mut()
            .for_each(|c| c.time(check.in_place));
    }
    if settings.universal == UniversalMode::Shared {
        let smaller: Vec<Option<(u64, usize)>> = cases
            .iter()
            .map(|case| {
                cases
                    .iter()
                    .filter(|c| {
                        c.key.same_series(&case.key) && c.key.size_bytes < case.key.size_bytes
                    })
                    .max_by_key(|c| c.key.size_bytes)
                    .map(|c| (c.key.size_bytes, c.key.count))
            })
            .collect();
        for (case, smaller) in cases.iter_mut().zip(smaller) {
            case.smaller = smaller;
        }
    }
    Ok(Plan {
        settings,
        cases,
        resident_bytes: world.resident_bytes,
        processes: world.processes,
    })
}

/// Why `check` cannot run on `world`, if it cannot.
fn unfit(check: &crate::config::Check, world: &World) -> Option<String> {
    if check.root >= world.processes {
        return Some(format!(
            "root {} is outside the communicator of {} processes",
            check.root, world.processes
        ));
    }
    if check.operation.collective.is_transfer() && world.processes < 2 {
        return Some(format!(
            "{} needs two processes or more (a process never sends to itself here); this \
             launch has 1",
            check.operation
        ));
    }
    if let (Form::Persistent, Err(why)) = (check.operation.form, &world.persistent) {
        return Some(format!("{} cannot be checked: {why}", check.operation));
    }
    let asks_library = check.competitors.iter().flatten().any(|c| c == "library");
    if let Some(why) = asks_library.then(candidates::library::none_here).flatten() {
        return Some(format!(
            "`library` selects the library's own algorithms, and this library has none \
             pgcheck can select: {why}"
        ));
    }
    // A per-process size makes buffers of p blocks; MPI counts them in an int.
    if check.operation.size_is_per_process() {
        let width = check.datatype.size() as u64;
        let processes = world.processes as u64;
        if let Some(&s) = check
            .sizes
            .iter()
            .find(|&&s| s / width * processes > crate::config::MAX_COUNT)
        {
            return Some(format!(
                "size {s} per process makes buffers of {} × {} elements, more than an MPI count can hold",
                world.processes,
                s / width
            ));
        }
    }
    None
}

/// One case; competitors that cannot run on this world are set aside.
#[allow(clippy::too_many_arguments)]
pub fn case(
    operation: Operation,
    size_bytes: u64,
    datatype: Datatype,
    op: Op,
    root: usize,
    competitors: &[&str],
    blocks: Option<usize>,
    world: &World,
) -> Case {
    let count = (size_bytes / datatype.size() as u64) as usize;
    let footprint = Footprint::of(
        operation.collective,
        count,
        datatype,
        op,
        world.processes,
        root,
    );
    let needs = |bytes: u64| world.resident_bytes + bytes;
    let mut candidates = vec![DEFAULT.to_string()];
    let mut skipped = Vec::new();
    let fits = needs(footprint.alone()) <= world.max_memory;
    if !fits {
        let why = format!(
            "needs {} per process ({} resident, {} buffers, {} verification, {} in-place verification, {} for the library's temporaries), above --max-memory {}",
            mib(needs(footprint.alone())),
            mib(world.resident_bytes),
            mib(footprint.buffers),
            mib(footprint.verification),
            mib(footprint.in_place),
            mib(footprint.library),
            mib(world.max_memory)
        );
        skipped.push((DEFAULT.to_string(), why.clone()));
        skipped.extend(competitors.iter().map(|&n| (n.to_string(), why.clone())));
        candidates.clear();
    }
    for &name in competitors.iter().filter(|_| fits) {
        let family = candidates::find(name).map(|c| c.family);
        // Every competitor is prepared, with its scratch, before any runs.
        let prepared: Vec<&str> = (candidates.iter().map(String::as_str))
            .filter(|&c| c != DEFAULT)
            .chain([name])
            .collect();
        let with_it = needs(footprint.with(&prepared));
        match (&world.topology, family) {
            (Err(why), Some(Family::Lane | Family::Hier)) => {
                skipped.push((name.to_string(), why.clone()))
            }
            _ if with_it > world.max_memory => skipped.push((
                name.to_string(),
                format!(
                    "may need {} per process with the scratch of {} competitors, above --max-memory {}",
                    mib(with_it),
                    candidates.len(),
                    mib(world.max_memory)
                ),
            )),
            _ => candidates.push(name.to_string()),
        }
    }
    Case {
        key: CaseKey {
            operation,
            size_bytes,
            count,
            datatype,
            op,
            root,
        },
        candidates,
        skipped,
        blocks,
        smaller: None,
        timed: TimedForms::Usual,
        call_s: 0.0,
        inputs_s: 0.0,
    }
}

/// Why the test cannot flag a violation in some case with the plan's
/// rounds: its smallest attainable p-value is not below the correction's
/// first threshold. Says how many rounds would do.
pub fn powerless(plan: &Plan, test: Test, correction: Correction, alpha: f64) -> Option<String> {
    plan.cases.iter().find_map(|case| {
        let rounds = plan.settings.rounds_for(case.call_s);
        let family = case.candidates.len().saturating_sub(1);
        let threshold = correction.first_threshold(alpha, family);
        let min_p = test.min_p(rounds)?;
        if family == 0 || min_p < threshold {
            return None;
        }
        let needed = power::rounds_needed(|r| test.min_p(r).unwrap_or(1.0), threshold);
        let bound = match correction {
            Correction::Holm => format!("α/{family} = {threshold:.3e} (Holm over {family} competitors)"),
            Correction::None => format!("α = {threshold}"),
        };
        Some(format!(
            "with {rounds} rounds the {} test cannot flag a violation of {} {} B: its smallest p-value, {min_p:.3e}, is not below {bound}; {} (or --allow-powerless)",
            format!("{test:?}").to_lowercase(),
            case.key.operation,
            case.key.size_bytes,
            match needed {
                Some(r) => format!("use --rounds {r} or more"),
                None => "no number of rounds suffices".into(),
            }
        ))
    })
}

/// Roots named `first`, `middle`, `last` or by number.
pub fn parse_root(name: &str, processes: usize) -> Result<usize, String> {
    let root = match name {
        "first" => 0,
        "middle" => processes / 2,
        "last" => processes - 1,
        n => n
            .parse()
            .map_err(|_| format!("root `{n}` is not a rank nor first, middle or last"))?,
    };
    if root >= processes {
        return Err(format!(
            "root {root} is outside the communicator of {processes} processes"
        ));
    }
    Ok(root)
}

/// The sizes `pgcheck verify` tries without input, in elements: empty, one
/// element, below p, not divisible by p, and above 1 MiB.
pub fn verify_counts(processes: usize, datatype: Datatype) -> Vec<usize> {
    let p = processes;
    let large = (1 << 20) / datatype.size() + 3 * p + 1;
    let mut counts = vec![0, 1, p.saturating_sub(1), 2 * p + 1, 7 * p + 3, large];
    counts.sort_unstable();
    counts.dedup();
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::settings::{CacheState, SyncRequest};

    /// Allreduce of int32 sums at `sizes` on 4 ranks, two candidates each,
    /// 100 ms in 10 rounds, 3 warm-ups.
    fn plan(sizes: &[u64]) -> Plan {
        let world = World {
            processes: 4,
            topology: Ok(()),
            persistent: Ok(()),
            max_memory: u64::MAX,
            resident_bytes: 0,
        };
        let cases = sizes
            .iter()
            .map(|&size| {
                case(
                    Collective::Allreduce.into(),
                    size,
                    Datatype::Int32,
                    Op::Sum,
                    0,
                    &["allreduce_as_reduce_bcast"],
                    None,
                    &world,
                )
            })
            .collect();
        Plan {
            settings: Settings {
                budget: Duration::from_millis(100),
                rounds: 10,
                rounds_by_budget: false,
                seed: 1,
                warmup: 3,
                sync: SyncRequest::Barrier,
                cache: CacheState::Warm,
                resync_s: 10.0,
                drift_s: 0.0,
                universal: UniversalMode::Apart,
                check_share: 0.02,
            },
            cases,
            resident_bytes: 0,
            processes: 4,
        }
    }

    #[test]
    fn calls_longer_than_a_slice_replace_its_budget_in_the_plan() {
        let probes = [
            // 1 ms: shorter than the 10 ms slice, the budget holds.
            CaseProbe {
                call_s: 0.001,
                inputs_s: 0.0,
            },
            // 250 ms a call, 100 ms for one rank's inputs.
            CaseProbe {
                call_s: 0.25,
                inputs_s: 0.1,
            },
        ];
        let plan = plan(&[1024, 64 << 20]).with_probes(&probes);
        assert_eq!(plan.budgeted(), Duration::from_millis(400));
        let long = plan.long_calls();
        assert_eq!(long.len(), 1);
        let l = &long[0];
        assert_eq!(l.label, "allreduce 67108864 B");
        // 2 candidates × 10 rounds of a timed call and a checked one.
        assert!((l.slices_s - 10.0).abs() < 1e-9, "{l:?}");
        // 3 warm-ups and 1 verification (sum is checked once) per candidate.
        assert_eq!(l.calls_outside, 4);
        assert!((l.outside_s - 2.0).abs() < 1e-9, "{l:?}");
        // The harness's send buffer, then one rank's share of the check's
        // output (allreduce's is shared), and its exchange, about a call.
        assert!((l.reference_s - 0.45).abs() < 1e-9, "{l:?}");
        // The small case's 0.2 s of budget, and the large one's calls.
        let expected = plan.expected().as_secs_f64();
        assert!(
            (expected - (0.2 + 10.0 + 2.0 + 0.45)).abs() < 1e-6,
            "{expected}"
        );
    }

    #[test]
    fn without_long_calls_the_plan_is_the_budget() {
        let probe = CaseProbe {
            call_s: 0.005,
            inputs_s: 0.001,
        };
        let plan = plan(&[1024, 4096]).with_probes(&[probe, probe]);
        assert!(plan.long_calls().is_empty());
        assert_eq!(plan.expected(), plan.budgeted());
    }

    /// The run is refused when the test's smallest attainable p-value is
    /// not below the correction's first threshold: equality is not enough.
    #[test]
    fn a_test_that_cannot_reach_the_threshold_is_refused() {
        let mut p = plan(&[1024]);
        let refused = |p: &Plan, test, correction, alpha| powerless(p, test, correction, alpha);
        // 3 rounds each: 1/C(6, 3) = 0.05, not below α/1.
        p.settings.rounds = 3;
        assert_eq!(
            refused(&p, Test::Rounds, Correction::Holm, 0.05).as_deref(),
            Some(
                "with 3 rounds the rounds test cannot flag a violation of allreduce 1024 B: its smallest p-value, 5.000e-2, is not below α/1 = 5.000e-2 (Holm over 1 competitors); use --rounds 4 or more (or --allow-powerless)"
            )
        );
        let none = refused(&p, Test::Rounds, Correction::None, 0.05).unwrap();
        assert!(
            none.contains("is not below α = 0.05; use --rounds 4"),
            "{none}"
        );
        // Tests on all observations have no bound from the rounds.
        assert_eq!(refused(&p, Test::Mwu, Correction::Holm, 0.05), None);
        assert_eq!(refused(&p, Test::Welch, Correction::Holm, 0.05), None);
        // 4 rounds: 1/70 for Mann–Whitney; 1/16 for the paired tests,
        // which need 5 (1/32).
        p.settings.rounds = 4;
        assert_eq!(refused(&p, Test::Rounds, Correction::Holm, 0.05), None);
        for test in [Test::Paired, Test::Sign] {
            let why = refused(&p, test, Correction::Holm, 0.05).unwrap();
            assert!(
                why.contains("6.250e-2") && why.contains("use --rounds 5 or more"),
                "{why}"
            );
        }
        // No number of rounds up to MAX_ROUNDS: 2^-1000 is about 9e-302.
        let why = refused(&p, Test::Sign, Correction::None, 1e-305).unwrap();
        assert!(
            why.ends_with("no number of rounds suffices (or --allow-powerless)"),
            "{why}"
        );
        // A case without competitors has nothing to flag.
        p.cases[0].candidates.truncate(1);
        assert_eq!(refused(&p, Test::Sign, Correction::Holm, 0.05), None);
    }
}
