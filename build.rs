//! Records the git revision the binary is built from, when there is one,
//! and which MPI library the build is for.

fn main() {
    // HEAD names the branch, whose own file (or packed-refs) moves with
    // every commit: watching HEAD alone kept an earlier commit's revision.
    println!("cargo:rerun-if-changed=.git/HEAD");
    // (A path that does not exist would rerun this script on every build.)
    let branch = std::fs::read_to_string(".git/HEAD").ok().and_then(|head| {
        head.strip_prefix("ref: ")
            .map(|r| format!(".git/{}", r.trim()))
    });
    for path in branch
        .iter()
        .map(String::as_str)
        .chain([".git/packed-refs"])
    {
        if std::path::Path::new(path).exists() {
            println!("cargo:rerun-if-changed={path}");
        }
    }
    if let Ok(out) = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
    {
        if out.status.success() {
            let rev = String::from_utf8_lossy(&out.stdout).trim().to_string();
            println!("cargo:rustc-env=PGCHECK_GIT_REVISION={rev}");
        }
    }
    // The library ci/env.sh selects (PGCHECK_MPI, Open MPI 4 by default),
    // as cfgs `mpi` and `mpi_family`: the tests of one library's own
    // files and variables are ignored, with their reason, under another,
    // instead of passing without running.
    println!("cargo:rerun-if-env-changed=PGCHECK_MPI");
    println!(
        "cargo::rustc-check-cfg=cfg(mpi, values(\"openmpi\", \"openmpi5\", \"mpich\", \"mpich5\", \"impi\"))"
    );
    println!("cargo::rustc-check-cfg=cfg(mpi_family, values(\"openmpi\", \"mpich\"))");
    let mpi = std::env::var("PGCHECK_MPI").unwrap_or_else(|_| "openmpi".into());
    // Intel MPI descends from MPICH: Hydra launches it, PMI_RANK names ranks.
    let family = if mpi.starts_with("mpich") || mpi == "impi" {
        "mpich"
    } else {
        "openmpi"
    };
    println!("cargo:rustc-cfg=mpi=\"{mpi}\"");
    println!("cargo:rustc-cfg=mpi_family=\"{family}\"");
}
