//! What a run ran on and how it was measured and decided: library,
//! processes, nodes, hosts, environment, settings. Plain data, filled in by
//! `measure` (the machine), `plan` (the settings) and `analyse` (the options).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The run's metadata, as `results.json` keeps it.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Meta {
    pub tool: String,
    pub tool_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_revision: Option<String>,
    pub mpi_library: String,
    pub mpi_version: String,
    pub processes: usize,
    pub nodes: usize,
    pub ppn: usize,
    pub virtual_nodes: bool,
    pub hosts: Vec<String>,
    /// The variables a user sets to choose algorithms, transports or
    /// placement (an allowlist: `measure::environment`); never the
    /// launcher's internals.
    pub environment: BTreeMap<String, String>,
    /// Where the ranks ran: shared cores and binding, which make where each
    /// rank runs a factor of the launch.
    pub placement: Placement,
    /// The Slurm job this ran in, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slurm: Option<Slurm>,
    pub timer: String,
    /// The timer's granularity as measured: the smallest positive
    /// difference of consecutive reads, the coarsest over ranks
    /// (`measure::machine`), not what `MPI_Wtick` claims.
    pub timer_resolution_s: f64,
    /// The timer's cost per read as measured, the largest over ranks.
    pub timer_read_cost_s: f64,
    /// What `MPI_Wtick` claims, for comparison.
    pub timer_wtick_s: f64,
    pub start_time: String,
    /// The run's id, the first column of its raw rows: its start time and
    /// rank 0's process id (empty in runs written before it existed).
    pub run_id: String,
    pub budget_s: f64,
    pub rounds: usize,
    pub warmup: usize,
    pub seed: u64,
    pub alpha: f64,
    pub test: String,
    pub correction: String,
    pub outliers: String,
    /// The factor within which a guideline `holds`.
    pub margin: f64,
    /// The quantile of the fitted error law that bounds each candidate's
    /// usual time (`--qmax`).
    pub qmax: f64,
    /// Warnings the report repeats at its top (e.g. a powerless test).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The synchronisation measured with: `barrier` or `roundtime`.
    pub sync: String,
    /// What was asked for (`auto`, `barrier`, `roundtime`; empty in runs
    /// from before `auto`), and why `sync` was chosen: auto's reason, or
    /// why asked-for roundtime gave way to barrier; empty otherwise.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sync_asked: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sync_reason: String,
    pub cache: String,
    /// How the universal guidelines compared sizes: `apart` or `shared` rounds.
    #[serde(default)]
    pub universal: String,
    pub plan_s: f64,
    pub wall_s: f64,
    /// Of the wall time, what preparing, verifying, warming up and writing
    /// files took outside the planned slices.
    pub outside_s: f64,
    /// Of `outside_s`, what preparing candidates (buffers,
    /// sub-communicators) and verifying them took on rank 0.
    pub prepare_s: f64,
    pub verify_s: f64,
    /// What synchronising clocks took on rank 0 (`roundtime`: at the start
    /// and at every `--resync`), and how many times it ran.
    pub clock_sync_s: f64,
    pub clock_syncs: usize,
    /// On rank 0: time in the slices (the calls, waiting for their starts,
    /// agreeing on chunks, reducing observations), of it inside the timed
    /// calls, and how many calls: (measuring − calling) / calls is the
    /// harness's cost per observation.
    pub measuring_s: f64,
    pub calling_s: f64,
    pub calls: usize,
    /// What rank 0 did between cases while the other ranks waited.
    pub between_cases: BetweenCases,
    /// Rank 0's largest resident set so far, in bytes, after the last case measured.
    pub peak_rss_bytes: u64,
    /// The largest resident set of a rank when planning, with the cold-cache
    /// buffer: what every case's memory counts besides its own.
    #[serde(default)]
    pub resident_bytes: u64,
    /// The largest peak resident set of any rank at the end of the run, in
    /// bytes: what `--max-memory` bounds.
    #[serde(default)]
    pub largest_peak_rss_bytes: u64,
    pub noise_floor_s: f64,
    /// Whether the run was too noisy for the slowdowns asked about, with
    /// the numbers (see `analyse::noise`); set by the analysis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
    /// The library's own algorithms this run could select (family
    /// `library`): what `pgcheck tune` writes into the library's tuning file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub library_algorithms: Vec<LibraryAlgorithm>,
    /// The machine's state through the run: a fixed workload timed at the
    /// start of every round, outside the timed calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<MachineState>,
}

/// The machine's state through a run: how long a fixed calibration
/// workload took at the start of each round, outside the timed calls: a
/// barrier of pgcheck's control plane (point-to-point messages of the
/// library's own transport; the mean of 8, maximum over ranks, fastest of
/// three), and a compute loop. Launches whose `calibration_s` differ ran
/// in different states of the machine, which can decide which candidate
/// is faster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineState {
    /// The launch's median barrier over its rounds.
    pub calibration_s: f64,
    /// The 10th and 90th percentiles over the rounds.
    pub low_s: f64,
    pub high_s: f64,
    /// The launch's median of the compute loop.
    #[serde(default)]
    pub compute_s: f64,
    /// Each round's barrier, in the order measured (every case's rounds in
    /// turn, disturbed rounds measured again included).
    pub rounds_s: Vec<f64>,
}

impl MachineState {
    /// Launches whose calibrations differ by this factor or more ran in
    /// different states of the machine: this VM's fast and slow states
    /// were 0.5 and 0.8–0.9 µs a barrier, while launches in one state
    /// stayed within 10 %. Within a launch the barrier alternated between
    /// the two in 10 of 12 launches (90th over 10th percentile 1.4–2.0),
    /// so only the launch's median is compared.
    pub const CHANGE: f64 = 1.2;
}

impl Meta {
    /// The synchronisation in words: `roundtime`, `auto: barrier, 3 ranks
    /// share 2 CPUs on host vm`, `barrier, not roundtime: …`.
    pub fn sync_text(&self) -> String {
        match (self.sync_asked.as_str(), self.sync_reason.as_str()) {
            ("auto", "") => format!("auto: {}", self.sync),
            ("auto", reason) => format!("auto: {}, {reason}", self.sync),
            (_, "") => self.sync.clone(),
            (asked, reason) if asked == self.sync => format!("{asked}, {reason}"),
            (asked, reason) => format!("{}, not {asked}: {reason}", self.sync),
        }
    }
}

/// What rank 0 does after each case while the other ranks wait for it:
/// appending the observations to the raw file, deciding the case,
/// rewriting `results.json`; and how long the others waited.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BetweenCases {
    /// Cases measured.
    pub cases: usize,
    /// Rank 0's time from the end of a case's measuring to the start of
    /// the next case (or the end): total, and the largest after one case.
    pub total_s: f64,
    pub largest_s: f64,
    /// Of `total_s`: appending observations, deciding, writing `results.json`.
    pub raw_s: f64,
    pub decide_s: f64,
    pub results_s: f64,
    /// How many times `results.json` was rewritten before the end.
    pub results_writes: usize,
    /// How long a rank waited for rank 0 at the start of a case (from the
    /// second case on), the most over ranks: total, and the largest once.
    pub waited_s: f64,
    pub largest_waited_s: f64,
}

impl BetweenCases {
    /// Rank 0's `seconds` after a case.
    pub fn after_case(&mut self, seconds: f64) {
        self.cases += 1;
        self.total_s += seconds;
        self.largest_s = self.largest_s.max(seconds);
    }

    /// A wait of this rank's for rank 0 at the start of a case.
    pub fn waited(&mut self, seconds: f64) {
        self.waited_s += seconds;
        self.largest_waited_s = self.largest_waited_s.max(seconds);
    }
}

/// One of the library's own algorithms, as its tuning variable selects it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LibraryAlgorithm {
    /// The candidate's name, `allreduce_as_library_ring`.
    pub name: String,
    /// `open_mpi` or `mpich`.
    pub library: String,
    /// pgcheck's name of the collective, `allreduce`.
    pub collective: String,
    /// The control variable and the value that select it.
    pub variable: String,
    pub value: i32,
    /// The library's name of the algorithm, `ring`.
    pub item: String,
}

/// How the ranks sat on the nodes' CPUs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Placement {
    /// `--pin`: `auto` (pgcheck binds unbound ranks) or `none`; empty in
    /// runs from before the option.
    pub pin: String,
    /// Ranks whose CPU affinity allows every online CPU of their node
    /// after pinning: the scheduler moves them, differently in every launch.
    pub unbound_ranks: usize,
    /// Ranks that were unbound and that pgcheck bound to a CPU of their own
    /// (`measure::pin`) before measuring.
    pub pinned_ranks: usize,
    /// Per rank, the one CPU it runs on (pgcheck's choice or the
    /// launcher's binding); null for a rank that may run on several. Empty
    /// above 256 ranks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cpu_of_rank: Vec<Option<usize>>,
    /// The most ranks on one host (by host name), and the CPUs online there.
    pub most_ranks_on_a_node: usize,
    pub cpus_on_that_node: usize,
    /// The most crowded CPUs: ranks of one host that can run on fewer
    /// CPUs between them than they are; None when every rank has a CPU of
    /// its own (or in runs from before it was recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_cpus: Option<SharedCpus>,
}

impl Placement {
    /// More ranks than CPUs on some node.
    pub fn oversubscribed(&self) -> bool {
        self.most_ranks_on_a_node > self.cpus_on_that_node && self.cpus_on_that_node > 0
    }

    /// What the report warns of: ranks that move between launches, and
    /// ranks that share CPUs.
    pub fn warnings(&self, processes: usize) -> Vec<String> {
        let mut warnings = Vec::new();
        if self.unbound_ranks > 0 {
            let remedy = match self.pin.as_str() {
                "none" => "leave out --pin none, or bind them (Open MPI: --bind-to core, MPICH: -bind-to core)",
                "auto" if self.oversubscribed() => "they outnumber the CPUs, so pgcheck left them to the scheduler (ranks bound to one CPU wait a whole time slice for each other); give each rank a CPU of its own",
                "auto" => "pgcheck could not bind them (sched_setaffinity refused); bind them (Open MPI: --bind-to core, MPICH: -bind-to core)",
                _ => "bind them (Open MPI: --bind-to core, MPICH: -bind-to core)",
            };
            warnings.push(format!(
                "{} of {processes} ranks are not bound to CPUs: the scheduler places them anew in every launch, so medians and verdicts can differ between launches; {remedy}",
                self.unbound_ranks
            ));
        }
        if self.oversubscribed() {
            warnings.push(format!(
                "{} ranks share {} CPUs on a node: ranks wait for each other's time slices, so starts are late and timings include the scheduler's",
                self.most_ranks_on_a_node, self.cpus_on_that_node
            ));
        }
        warnings
    }

    /// Where the ranks ran, in a line: who bound them and to which CPUs;
    /// None for runs from before `--pin`.
    pub fn summary(&self, processes: usize) -> Option<String> {
        if self.pin.is_empty() {
            return None;
        }
        let bound_by_launcher = processes.saturating_sub(self.pinned_ranks + self.unbound_ranks);
        let mut parts = Vec::new();
        if self.pinned_ranks > 0 {
            parts.push(format!("{} bound by pgcheck", self.pinned_ranks));
        }
        if bound_by_launcher > 0 {
            parts.push(format!("{bound_by_launcher} bound by the launcher"));
        }
        if self.unbound_ranks > 0 {
            parts.push(format!("{} unbound", self.unbound_ranks));
        }
        let cpus: Vec<String> = (self.cpu_of_rank.iter())
            .map(|cpu| cpu.map_or("-".into(), |c| c.to_string()))
            .collect();
        if !cpus.is_empty() && cpus.len() <= 16 {
            parts.push(format!("CPU of each rank: {}", cpus.join(" ")));
        }
        Some(format!("--pin {}: {}", self.pin, parts.join(", ")))
    }

    /// What pgcheck did about placement, for the plan: None when it bound
    /// no rank.
    pub fn pinned(&self, processes: usize) -> Option<String> {
        if self.pinned_ranks == 0 {
            return None;
        }
        let cpus: Vec<String> = (self.cpu_of_rank.iter())
            .map(|cpu| cpu.map_or("-".into(), |c| c.to_string()))
            .collect();
        let listed = match cpus.is_empty() || cpus.len() > 16 {
            true => String::new(),
            false => format!("; CPU of each rank: {}", cpus.join(" ")),
        };
        Some(format!(
            "placement: {} of {processes} ranks were not bound to CPUs; pgcheck bound each to a CPU of its node (--pin none leaves them unbound){listed}",
            self.pinned_ranks
        ))
    }
}

/// Ranks that share CPUs on one host: `ranks` ranks that can run on no
/// more than `cpus` CPUs between them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedCpus {
    pub host: String,
    pub ranks: usize,
    pub cpus: usize,
}

impl SharedCpus {
    /// `3 ranks share 2 CPUs on host vm`.
    pub fn describe(&self) -> String {
        let cpus = match self.cpus {
            1 => "1 CPU".to_string(),
            n => format!("{n} CPUs"),
        };
        format!("{} ranks share {cpus} on host {}", self.ranks, self.host)
    }
}

/// A Slurm job: what finds it again in the cluster's accounting.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Slurm {
    pub job_id: String,
    pub nodelist: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
}

impl Slurm {
    /// The job of this process's environment (`SLURM_JOB_ID`, …), if any.
    pub fn from_env() -> Option<Slurm> {
        let var = |name: &str| {
            let value = crate::printable::line(&std::env::var(name).ok()?);
            (!value.is_empty()).then_some(value)
        };
        Some(Slurm {
            job_id: var("SLURM_JOB_ID")?,
            nodelist: var("SLURM_JOB_NODELIST").unwrap_or_default(),
            partition: var("SLURM_JOB_PARTITION"),
            cluster: var("SLURM_CLUSTER_NAME"),
        })
    }
}

/// Quiet or noisy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseVerdict {
    Quiet,
    Noisy,
}

impl NoiseVerdict {
    pub fn label(self) -> &'static str {
        match self {
            NoiseVerdict::Quiet => "quiet",
            NoiseVerdict::Noisy => "noisy",
        }
    }
}

/// The noise verdict with the numbers behind it (`meta.noise`), decided by `analyse::noise`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Noise {
    pub verdict: NoiseVerdict,
    /// The rule's numbers in words.
    pub reason: String,
    /// s*: the smallest slowdown the run is asked about.
    pub slowdown_of_interest: f64,
    /// Where s* comes from: `--fail-on medium`, `--margin`.
    pub slowdown_source: String,
    /// Cases judged by sensitivity: with a compared competitor, not
    /// powerless for their rounds (timer-bound ones count, as `none`).
    pub cases: usize,
    /// Median and largest case sensitivity; null when no case is judged or
    /// when the value is `none` (no slowdown could have been flagged).
    pub sensitivity_median: Option<f64>,
    pub sensitivity_max: Option<f64>,
    /// Cases undecided (inconclusive) whose sensitivity is above s* or
    /// `none`: more than half of `cases` make the run noisy.
    pub cases_above: usize,
    /// Measured candidates with a usual time.
    pub candidates: usize,
    /// Median and largest overhead share over those candidates.
    pub overhead_share_median: Option<f64>,
    pub overhead_share_max: Option<f64>,
    /// The candidate with the largest share: `bcast 8 B: default`.
    pub overhead_share_max_of: Option<String>,
    /// 1 − 1/s*.
    pub overhead_share_limit: f64,
    pub qmax: f64,
    /// The barrier's median, and its share of `default`'s median of
    /// per-round medians (median and largest over cases).
    pub noise_floor_s: f64,
    pub noise_floor_share_median: Option<f64>,
    pub noise_floor_share_max: Option<f64>,
}
