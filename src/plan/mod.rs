//! The plan: every (collective, size, root) case with its candidates, and
//! how long measuring them will take.

use crate::analyse::{Correction, Test};
use crate::candidates::{self, native::DEFAULT, native::DEFAULT_IN_PLACE, Family};
use crate::case::CaseKey;
use crate::collective::Collective;
use crate::config::{Config, InputError};
use crate::element::{Datatype, Op};
use crate::meta::Meta;
use crate::settings::{Settings, TimedForms, UniversalMode};
use crate::stats::power;
use std::time::Duration;

pub mod verify;

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
}

/// Everything a run will do.
#[derive(Clone, Debug)]
pub struct Plan {
    pub settings: Settings,
    pub cases: Vec<Case>,
}

impl Plan {
    /// Candidate measurements in the plan (with the library's call at a
    /// smaller size, where a case times it too).
    pub fn measurements(&self) -> usize {
        let smaller = |c: &Case| usize::from(c.smaller.is_some() && !c.candidates.is_empty());
        self.cases
            .iter()
            .map(|c| c.candidates.len() + smaller(c))
            .sum()
    }

    /// How long measuring takes: every candidate of every case for the budget.
    pub fn expected(&self) -> Duration {
        self.settings.budget * self.measurements() as u32
    }

    /// Records in `meta` how the run measures, and when it started.
    pub fn record(&self, meta: &mut Meta) {
        let s = &self.settings;
        meta.start_time =
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        meta.budget_s = s.budget.as_secs_f64();
        meta.rounds = s.rounds;
        meta.warmup = s.warmup;
        meta.seed = s.seed;
        meta.sync = format!("{:?}", s.sync).to_lowercase();
        meta.cache = format!("{:?}", s.cache).to_lowercase();
        meta.universal = format!("{:?}", s.universal).to_lowercase();
        meta.plan_s = self.expected().as_secs_f64();
    }
}

/// What the plan needs to know about the processes.
#[derive(Clone, Debug)]
pub struct World {
    pub processes: usize,
    /// Whether lane and hier candidates can run, or why not.
    pub topology: Result<(), String>,
    /// Bytes a process may allocate for one case's buffers and scratch.
    pub max_memory: u64,
}

/// The default of `--max-memory`: a quarter of the machine's memory shared
/// by the processes on it, at most 4 GiB.
pub fn default_max_memory(processes_per_host: usize) -> u64 {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find(|l| l.starts_with("MemTotal:"))?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
        })
        .map_or(8 << 30, |kib| kib << 10);
    (total / 4 / processes_per_host.max(1) as u64).min(4 << 30)
}

/// Bytes of the harness's buffers for a case on one process, and a bound
/// on what a competitor adds as scratch: a per-process collective's
/// competitors may hold all p blocks once more, the others the vector twice.
fn memory(
    collective: Collective,
    count: usize,
    datatype: Datatype,
    processes: usize,
) -> (u64, u64) {
    let shape = crate::collective::Shape::new(collective, processes, 0, 0, count);
    let bytes = |elements: usize| (elements * datatype.size()) as u64;
    let buffers = bytes(shape.send_len() + shape.recv_len());
    let scratch = if collective.size_is_per_process() {
        bytes(processes * count)
    } else {
        bytes(2 * count)
    };
    (buffers, scratch)
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
    let mut config = config.clone();
    for check in &mut config.checks {
        if let Some(d) = datatype {
            check.datatype = d;
        }
        if let Some(o) = op {
            check.op = o;
        }
        check.validate_elements().map_err(|msg| {
            InputError(format!("{}:{}: {msg}", config.path.display(), check.line))
        })?;
    }
    Ok(config)
}

/// Expands a checked input into cases.
pub fn from_config(config: &Config, settings: Settings, world: &World) -> Result<Plan, InputError> {
    let mut cases = Vec::new();
    for check in &config.checks {
        if check.root >= world.processes {
            return Err(InputError(format!(
                "{}:{}: root {} is outside the communicator of {} processes",
                config.path.display(),
                check.line,
                check.root,
                world.processes
            )));
        }
        // A per-process size makes buffers of p blocks; MPI counts them in an int.
        if check.collective.size_is_per_process() {
            let width = check.datatype.size() as u64;
            if let Some(&s) = check
                .sizes
                .iter()
                .find(|&&s| s / width * world.processes as u64 > crate::config::MAX_COUNT)
            {
                return Err(InputError(format!(
                    "{}:{}: size {s} per process makes buffers of {} × {} elements, more than an MPI count can hold",
                    config.path.display(),
                    check.line,
                    world.processes,
                    s / width
                )));
            }
        }
        let names: Vec<&str> = match &check.competitors {
            Some(list) => candidates::select(check.collective, list),
            None => candidates::all_of(check.collective)
                .map(|c| c.name)
                .collect(),
        };
        for &size in &check.sizes {
            cases.push(case(
                check.collective,
                size,
                check.datatype,
                check.op,
                check.root,
                &names,
                check.blocks,
                world,
            ));
        }
        let first = cases.len() - check.sizes.len();
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
    Ok(Plan { settings, cases })
}

/// One case; competitors that cannot run on this world are set aside.
#[allow(clippy::too_many_arguments)]
pub fn case(
    collective: Collective,
    size_bytes: u64,
    datatype: Datatype,
    op: Op,
    root: usize,
    competitors: &[&str],
    blocks: Option<usize>,
    world: &World,
) -> Case {
    let count = (size_bytes / datatype.size() as u64) as usize;
    let (buffers, scratch) = memory(collective, count, datatype, world.processes);
    let mut candidates = vec![DEFAULT.to_string()];
    let mut skipped = Vec::new();
    let fits = buffers <= world.max_memory;
    if !fits {
        let why = format!(
            "needs {} per process, above --max-memory {}",
            mib(buffers),
            mib(world.max_memory)
        );
        skipped.push((DEFAULT.to_string(), why.clone()));
        skipped.extend(competitors.iter().map(|&n| (n.to_string(), why.clone())));
        candidates.clear();
    }
    for &name in competitors.iter().filter(|_| fits) {
        let family = candidates::find(name).map(|c| c.family);
        match (&world.topology, family) {
            (Err(why), Some(Family::Lane | Family::Hier)) => {
                skipped.push((name.to_string(), why.clone()))
            }
            _ if buffers + scratch > world.max_memory => skipped.push((
                name.to_string(),
                format!(
                    "may need {} per process with scratch, above --max-memory {}",
                    mib(buffers + scratch),
                    mib(world.max_memory)
                ),
            )),
            _ => candidates.push(name.to_string()),
        }
    }
    Case {
        key: CaseKey {
            collective,
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
    }
}

/// Why the test cannot flag a violation in some case with the plan's
/// rounds: its smallest attainable p-value is not below the correction's
/// first threshold. Says how many rounds would do.
pub fn powerless(plan: &Plan, test: Test, correction: Correction, alpha: f64) -> Option<String> {
    let rounds = plan.settings.rounds;
    plan.cases.iter().find_map(|case| {
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
            case.key.collective,
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
