//! The environment variables a run records (`meta.environment`): an
//! allowlist of what a user sets to choose the library's algorithms,
//! transports or the ranks' placement, so that a run can be repeated.
//! Everything else stays out, above all what the launcher hands its ranks:
//! Open MPI's `mpirun` exports the job's transport key
//! (`OMPI_MCA_orte_precondition_transports`, which authenticates the
//! job's processes to each other), its daemons' URIs (host, port) and
//! session directories, which must not reach a published CI summary.

use std::collections::BTreeMap;

/// Prefixes of the variables users set to choose algorithms, transports
/// and placement: Open MPI's MCA parameters (4.x's and 5.x's launcher,
/// PRRTE), MPICH's control variables and settings, Intel MPI's, UCX's,
/// libfabric's, pgcheck's own.
const CHOSEN: [&str; 8] = [
    "OMPI_MCA_",
    "PRTE_MCA_",
    "MPIR_CVAR_",
    "MPICH_",
    "I_MPI_",
    "UCX_",
    "FI_",
    "PGCHECK_",
];

/// Whole names that tell where the run ran: the Slurm job and its nodes,
/// and how Slurm bound the tasks.
const CHOSEN_NAMES: [&str; 4] = [
    "SLURM_JOB_ID",
    "SLURM_JOB_NODELIST",
    "SLURM_JOB_NUM_NODES",
    "SLURM_CPU_BIND",
];

/// MCA parameters (after `OMPI_MCA_` or `PRTE_MCA_`) that Open MPI's
/// launcher sets for its ranks, not the user. Seen in what `mpirun -np 1
/// env` gives a rank of Open MPI 4.1: `orte_*` (among them the transport
/// key, `orte_hnp_uri`, `orte_local_daemon_uri`, session directories,
/// node and process counts), `ess`, `ess_base_jobid`, `ess_base_vpid`,
/// `pmix`, `initial_wdir`, `mpi_oversubscribe` (the launcher's finding,
/// not the user's `rmaps_base_oversubscribe`) and
/// `shmem_RUNTIME_QUERY_hint`; PRRTE's own are `prte_*`.
const LAUNCHERS_OWN: [&str; 8] = [
    "orte_",
    "prte_",
    "ess",
    "pmix",
    "initial_wdir",
    "mpi_oversubscribe",
    "shmem_RUNTIME_QUERY_hint",
    "schizo",
];

/// Variables a launcher gives every process it starts: Open MPI's
/// `mpirun` (4.x and 5.x), MPICH's Hydra and other PMI launchers, PMIx
/// servers, Slurm's `srun`. Without any of them MPI starts a singleton,
/// one process alone, which is never what a check of collectives means.
pub const LAUNCHERS_MARKS: [&str; 10] = [
    "OMPI_COMM_WORLD_SIZE",
    "OMPI_COMM_WORLD_RANK",
    "PMI_SIZE",
    "PMI_RANK",
    "PMI_FD",
    "PMI_PORT",
    "PMIX_RANK",
    "PMIX_NAMESPACE",
    "SLURM_PROCID",
    "MPI_LOCALNRANKS",
];

/// Whether a launcher started this process: one of [`LAUNCHERS_MARKS`]
/// is set, as `var` reads the environment.
pub fn launched(var: impl Fn(&str) -> Option<String>) -> bool {
    LAUNCHERS_MARKS.iter().any(|name| var(name).is_some())
}

/// Whether `name=value` is recorded: chosen by the user (allowlist), not
/// the launcher's own, and never an address or a key whatever its name
/// (a `://` value, a name with a word URI, the transport key).
pub fn recorded(name: &str, value: &str) -> bool {
    let chosen = CHOSEN.iter().any(|p| name.starts_with(p)) || CHOSEN_NAMES.contains(&name);
    let mca = ["OMPI_MCA_", "PRTE_MCA_"]
        .iter()
        .find_map(|p| name.strip_prefix(p));
    let launchers = mca.is_some_and(|param| LAUNCHERS_OWN.iter().any(|p| param.starts_with(p)));
    let lower = name.to_ascii_lowercase();
    // `orte_hnp_uri`, `PMIX_SERVER_URI41`; not `security`.
    let secret = lower.split('_').any(|word| word.starts_with("uri"))
        || lower.contains("precondition_transports")
        || value.contains("://");
    chosen && !launchers && !secret
}

/// A value as a published report may show it: every absolute path in it
/// (alone, or in a `:` or `,` list) shortened to its last component
/// (`PGCHECK_PYTHON=/home/ci/…/bin/python` → `python`): reports are
/// published, and this machine's directories are nobody's business.
pub fn publishable(value: &str) -> String {
    let shorten = |part: &str| match part.starts_with('/') || part.starts_with('~') {
        true => part
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        false => part.to_string(),
    };
    value
        .split(':')
        .map(|list| list.split(',').map(shorten).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>()
        .join(":")
}

/// The recorded variables of `vars`, names and values cleaned of control
/// characters ([`crate::printable`]) and of absolute paths.
pub fn recorded_of(vars: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    vars.filter(|(k, v)| recorded(k, v))
        .map(|(k, v)| {
            (
                crate::printable::line(&k),
                publishable(&crate::printable::line(&v)),
            )
        })
        .collect()
}

/// This process's recorded variables.
pub fn recorded_here() -> BTreeMap<String, String> {
    // Variables that are not UTF-8 are no setting pgcheck could name.
    recorded_of(
        std::env::vars_os()
            .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `mpirun -np 1 env` gave a rank of Open MPI 4.1.4 here (the
    /// `OMPI_MCA_` and `PMIX_` lines), with the user's own settings first.
    const OPEN_MPI_4: &str = "OMPI_MCA_rmaps_base_oversubscribe=1
OMPI_MCA_mpi_yield_when_idle=1
OMPI_MCA_btl=self,vader
OMPI_MCA_hwloc_base_binding_policy=core
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_MCA_pmix=^s1,s2,cray,isolated
PMIX_MCA_mca_base_component_show_load_errors=1
OMPI_COMMAND=env
OMPI_MCA_orte_precondition_transports=589da5df00ae16dc-ae39a60ed4bd4deb
OMPI_MCA_orte_local_daemon_uri=661716992.0;tcp://192.0.2.2:43447;tcp6://[fd00::2]:46669
OMPI_MCA_orte_hnp_uri=661716992.0;tcp://192.0.2.2:43447;tcp6://[fd00::2]:46669
OMPI_MCA_mpi_oversubscribe=0
OMPI_MCA_orte_app_num=0
OMPI_UNIVERSE_SIZE=2
OMPI_MCA_orte_num_nodes=1
OMPI_MCA_shmem_RUNTIME_QUERY_hint=mmap
OMPI_MCA_orte_bound_at_launch=1
OMPI_MCA_ess=^singleton
OMPI_MCA_orte_ess_num_procs=1
OMPI_COMM_WORLD_SIZE=1
OMPI_MCA_orte_tmpdir_base=/tmp
OMPI_MCA_orte_top_session_dir=/tmp/ompi.vm.0
OMPI_MCA_orte_jobfam_session_dir=/tmp/ompi.vm.0/pid.19343
OMPI_MCA_initial_wdir=/work/wt-pin
OMPI_MCA_orte_launch=1
PMIX_NAMESPACE=661716993
PMIX_RANK=0
PMIX_SERVER_URI41=661716992.0;tcp4://127.0.0.1:49139
PMIX_SECURITY_MODE=native
PMIX_SERVER_TMPDIR=/tmp/ompi.vm.0/pid.19343
OMPI_MCA_ess_base_jobid=661716993
OMPI_MCA_ess_base_vpid=0
OMPI_COMM_WORLD_RANK=0
OMPI_FILE_LOCATION=/tmp/ompi.vm.0/pid.19343/0/0
MPIR_CVAR_CH3_INTERFACE_HOSTNAME=vm
PMI_RANK=0
PMI_FD=6
UCX_TLS=sm,self
FI_PROVIDER=tcp
I_MPI_PIN_DOMAIN=core
MPICH_ASYNC_PROGRESS=1
PGCHECK_TEST_SLOW_DEFAULT=2
PGCHECK_PYTHON=/home/ci/pgcheck/target/python-readers/bin/python
UCX_MODULE_DIR=/opt/ucx/lib/ucx:/usr/lib/ucx/
SLURM_JOB_ID=42
SLURM_JOB_NODELIST=n[1-2]
SLURM_STEP_ID=0
HOME=/root
UCX_SOCKADDR=tcp://10.0.0.1:1234";

    #[test]
    fn a_launchers_process_is_told_from_a_singleton() {
        let of = |text: &'static str| {
            move |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(name)?.strip_prefix('='))
                    .map(str::to_string)
            }
        };
        assert!(launched(of(OPEN_MPI_4)));
        // What a user's shell has without a launcher: the user's choices
        // of the library, nothing of a launcher.
        assert!(!launched(of(
            "OMPI_MCA_btl=self,vader\nOMPI_ALLOW_RUN_AS_ROOT=1\nPMIX_MCA_x=1\nSLURM_JOB_ID=7"
        )));
        // MPICH's Hydra, and srun.
        assert!(launched(of("PMI_RANK=0\nPMI_SIZE=2")));
        assert!(launched(of("SLURM_PROCID=3")));
    }

    #[test]
    fn the_users_choices_stay_and_the_launchers_internals_go() {
        let vars = OPEN_MPI_4.lines().map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        });
        let kept: Vec<String> = recorded_of(vars).into_keys().collect();
        assert_eq!(
            kept,
            [
                "FI_PROVIDER",
                "I_MPI_PIN_DOMAIN",
                "MPICH_ASYNC_PROGRESS",
                "MPIR_CVAR_CH3_INTERFACE_HOSTNAME",
                "OMPI_MCA_btl",
                "OMPI_MCA_hwloc_base_binding_policy",
                "OMPI_MCA_mpi_yield_when_idle",
                "OMPI_MCA_rmaps_base_oversubscribe",
                "PGCHECK_PYTHON",
                "PGCHECK_TEST_SLOW_DEFAULT",
                "SLURM_JOB_ID",
                "SLURM_JOB_NODELIST",
                "UCX_MODULE_DIR",
                "UCX_TLS",
            ]
        );
    }

    #[test]
    fn paths_are_published_by_their_last_component() {
        let vars = OPEN_MPI_4.lines().map(|l| {
            let (k, v) = l.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        });
        let kept = recorded_of(vars);
        assert_eq!(kept["PGCHECK_PYTHON"], "python");
        assert_eq!(kept["UCX_MODULE_DIR"], "ucx:ucx");
        assert_eq!(kept["OMPI_MCA_btl"], "self,vader", "no path: as it was");
        assert_eq!(publishable("a,/x/y/libz.so,b"), "a,libz.so,b");
        assert_eq!(publishable("0.5"), "0.5");
    }

    #[test]
    fn recorded_values_carry_no_control_characters() {
        let vars = [("UCX_TLS".to_string(), "sm,\u{1b}[2Jself\n".to_string())];
        assert_eq!(recorded_of(vars.into_iter())["UCX_TLS"], "sm,[2Jself");
    }
}
