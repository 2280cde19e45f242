//! What a run ran on: library, processes, nodes, hosts, environment.

use crate::analyse::{Noise, Options, Outliers};
use crate::measure::Context;
use crate::plan::Plan;
use mpi::traits::*;
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
    /// `OMPI_MCA_*` and `MPIR_CVAR_*` variables: they select algorithms.
    pub environment: BTreeMap<String, String>,
    pub timer: String,
    pub timer_resolution_s: f64,
    pub start_time: String,
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
    pub sync: String,
    pub cache: String,
    pub plan_s: f64,
    pub wall_s: f64,
    /// Of the wall time, what preparing, verifying, warming up and writing
    /// files took outside the planned slices.
    pub outside_s: f64,
    pub noise_floor_s: f64,
    /// Whether the run was too noisy for the slowdowns asked about, with
    /// the numbers (see `analyse::noise`); set by the analysis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub noise: Option<Noise>,
}

impl Meta {
    /// Records how the run measures, and when it started.
    pub fn record_plan(&mut self, plan: &Plan) {
        let s = &plan.settings;
        self.start_time =
            humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
        self.budget_s = s.budget.as_secs_f64();
        self.rounds = s.rounds;
        self.warmup = s.warmup;
        self.seed = s.seed;
        self.sync = format!("{:?}", s.sync).to_lowercase();
        self.cache = format!("{:?}", s.cache).to_lowercase();
        self.plan_s = plan.expected().as_secs_f64();
    }

    /// Records how the run was analysed.
    pub fn record_analysis(&mut self, options: &Options) {
        self.alpha = options.alpha;
        self.test = format!("{:?}", options.test).to_lowercase();
        self.correction = format!("{:?}", options.correction).to_lowercase();
        self.outliers = format!("{:?}", options.outliers).to_lowercase();
        self.margin = options.margin;
        self.qmax = options.qmax;
        let resolution_known = options.timer_resolution_s > 0.0;
        if options.outliers == Outliers::Tmax && !resolution_known {
            self.warnings.push(
                "--outliers tmax removes nothing: the timer resolution is unknown (a raw.csv without its results.json), so there are no usual times"
                    .into(),
            );
        }
    }
}

/// Collects what every rank knows; collective over the context.
pub fn collect(ctx: &Context) -> Meta {
    let comm = &*ctx.comm;
    let name = mpi::environment::processor_name().unwrap_or_default();
    let mut mine = [0u8; 256];
    let n = name.len().min(mine.len());
    mine[..n].copy_from_slice(&name.as_bytes()[..n]);
    let mut all = vec![0u8; 256 * ctx.size()];
    comm.all_gather_into(&mine[..], &mut all[..]);
    let per_rank: Vec<String> = all
        .chunks(256)
        .map(|c| {
            let end = c.iter().position(|&b| b == 0).unwrap_or(c.len());
            String::from_utf8_lossy(&c[..end]).into_owned()
        })
        .collect();
    let mut hosts = per_rank.clone();
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
        timer: "MPI_Wtime".into(),
        timer_resolution_s: mpi::time_resolution(),
        ..Meta::default()
    }
}
