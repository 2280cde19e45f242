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
    /// `OMPI_MCA_*` and `MPIR_CVAR_*` variables: they select algorithms.
    pub environment: BTreeMap<String, String>,
    /// The Slurm job this ran in, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slurm: Option<Slurm>,
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
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Some(Slurm {
            job_id: var("SLURM_JOB_ID")?,
            nodelist: var("SLURM_JOB_NODELIST").unwrap_or_default(),
            partition: var("SLURM_JOB_PARTITION"),
            cluster: var("SLURM_CLUSTER_NAME"),
        })
    }
}
