//! The PMPI fault-injection library (`tests/faults/pmpi_faults.c`), the
//! library-algorithm probe (`tests/faults/mpit_probe.c`) and the host-lie
//! library (`tests/faults/pmpi_host.c`): built once per test process,
//! preloaded into the ranks of a `Launch`.

use super::{is_open_mpi, Launch};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// The fault library, compiled with the MPI compiler wrapper (`$MPICC`, set
/// by ci/env.sh, or `mpicc`) on the first call: it must link against the
/// same MPI as `pgcheck`, which the wrapper of the launcher's MPI does.
pub fn library() -> PathBuf {
    static LIBRARY: OnceLock<PathBuf> = OnceLock::new();
    LIBRARY.get_or_init(|| build("pmpi_faults")).clone()
}

/// The probe (`tests/faults/mpit_probe.c`), built like [`library`].
pub fn probe() -> PathBuf {
    static PROBE: OnceLock<PathBuf> = OnceLock::new();
    PROBE.get_or_init(|| build("mpit_probe")).clone()
}

/// `tests/faults/<name>.c` as `lib<name>.so`.
fn build(name: &str) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/faults/{name}.c"));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    let library = dir.join(format!("lib{name}.so"));
    // Written under a name of this process's own, then renamed: another
    // test process building at the same time never sees half a library.
    let partial = dir.join(format!("lib{name}.so.{}", std::process::id()));
    let compiler = std::env::var("MPICC").unwrap_or_else(|_| "mpicc".into());
    let out = Command::new(&compiler)
        .args(["-shared", "-fPIC", "-O2", "-o"])
        .arg(&partial)
        .arg(&source)
        .arg("-ldl")
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{compiler} does not start: {e}"));
    assert!(
        out.status.success(),
        "{compiler} failed to build {}:\n{}{}",
        source.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&partial, &library).unwrap();
    library
}

/// The launcher arguments that set `key=value` in every rank's environment
/// and nowhere else: Open MPI's `-x`, MPICH hydra's `-genv`. Setting it on
/// the launcher's own environment instead would preload the library into
/// mpirun (and, under hydra, its proxies) too.
pub fn forward(key: &str, value: &str) -> Vec<String> {
    if is_open_mpi() {
        vec!["-x".into(), format!("{key}={value}")]
    } else {
        vec!["-genv".into(), key.into(), value.into()]
    }
}

/// `launch` with the fault library preloaded into its ranks and configured
/// by `spec` (`PGCHECK_FAULT`, e.g. `MPI_Allreduce:flip,rank=3,bytes=64`;
/// the syntax is described at the top of pmpi_faults.c).
pub fn with_fault(launch: Launch, spec: &str) -> Launch {
    let library = library();
    let mut args = forward("LD_PRELOAD", library.to_str().expect("a UTF-8 path"));
    args.extend(forward("PGCHECK_FAULT", spec));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    launch.launcher_args(&args)
}

/// `launch` with the probe preloaded into its ranks.
pub fn with_probe(launch: Launch) -> Launch {
    let args = forward("LD_PRELOAD", probe().to_str().expect("a UTF-8 path"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    launch.launcher_args(&args)
}

/// The host-lie library (`tests/faults/pmpi_host.c`), built like [`library`].
pub fn host_library() -> PathBuf {
    static HOST: OnceLock<PathBuf> = OnceLock::new();
    HOST.get_or_init(|| build("pmpi_host")).clone()
}

/// `launch` with the host-lie library preloaded into its ranks and
/// configured by `settings` (`PGCHECK_WTIME_ROUND_S`,
/// `PGCHECK_WTIME_OFFSET_S`, `PGCHECK_WTIME_DRIFT`, `PGCHECK_SPLIT_ALONE`;
/// described at the top of pmpi_host.c).
pub fn with_host_lie(launch: Launch, settings: &[(&str, &str)]) -> Launch {
    let library = host_library();
    let mut args = forward("LD_PRELOAD", library.to_str().expect("a UTF-8 path"));
    for (key, value) in settings {
        args.extend(forward(key, value));
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    launch.launcher_args(&args)
}
