//! `pgcheck tune` over launches that each ran with one Intel MPI preset
//! (`I_MPI_ADJUST_ALLREDUCE`), end to end through real launches. Known
//! truth in: the library's own choice is made 3× slower at 1 KiB by the
//! PMPI fault library, in its launches only. Out: the preset at 1 KiB, a
//! settings file that selects it there and nowhere else, and launches with
//! that setting that confirm it; a preset that computes a wrong result is
//! never selected where it did.
//!
//! On Intel MPI the presets are real. On the other libraries the launches
//! are theirs and their results.json are given Intel MPI's name: what tune
//! reads of a launch is its library's name, its recorded environment and
//! its medians, so the statistics and the files are tested on every
//! library.

mod common;

use common::faults::forward;
use common::{is_intel_mpi, scratch, Launch};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

const VARIABLE: &str = "I_MPI_ADJUST_ALLREDUCE";
const SLOWED: &str = "MPI_Allreduce:slow=300,bytes=1024";

/// One launch into `dir`, with `setting` in its ranks' environment and
/// `fault` (`PGCHECK_FAULT`) in the library; its exit status.
fn launch_with(dir: &Path, setting: Option<&str>, fault: Option<&str>) -> Option<i32> {
    let args = [
        "run",
        "--collective",
        "allreduce",
        "--sizes",
        "8,1K",
        "--competitors",
        "allreduce_as_reduce_bcast",
        "--budget",
        "40ms",
        "--fail-on",
        "none",
    ];
    let mut run = Launch::new(2, &args).output(dir);
    if let Some(setting) = setting {
        let forwarded = forward(VARIABLE, setting);
        run = run.launcher_args(&forwarded.iter().map(String::as_str).collect::<Vec<_>>());
    }
    let out = run.fault_if(fault).run();
    let path = dir.join("results.json");
    let mut results: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        results["meta"]["environment"][VARIABLE].as_str(),
        setting,
        "the launch records its setting"
    );
    if !is_intel_mpi() {
        results["meta"]["mpi_library"] = "Intel(R) MPI Library 2021.19.0 for Linux* OS\n".into();
        std::fs::write(&path, results.to_string()).unwrap();
    }
    out.code
}

/// [`launch_with`] the library's allreduce slowed 3× at 1 KiB when
/// `slowed`, measured (9: undecided, which a short budget on this machine
/// can be).
fn launch(dir: &Path, setting: Option<&str>, slowed: bool) {
    let code = launch_with(dir, setting, slowed.then_some(SLOWED));
    assert!(matches!(code, Some(0 | 9)), "{dir:?}: status {code:?}");
}

/// `pgcheck tune DIR --output FILE`: its status, standard output and error.
fn tune(dir: &Path, file: &Path) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["tune", dir.to_str().unwrap(), "--output"])
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn tune_finds_the_preset_that_beats_a_slowed_own_choice_and_confirms_it() {
    let dir = scratch("presets-tune");
    let presets = dir.join("presets");
    for l in 0..3 {
        launch(&presets.join(format!("{l}-own")), None, true);
        launch(&presets.join(format!("{l}-3")), Some("3"), false);
    }
    // Preset 5 computes a wrong result at 1 KiB: its launches stop there
    // (status 3), and tune must never select it there, however fast.
    for l in 0..3 {
        let dir = presets.join(format!("{l}-5"));
        let code = launch_with(&dir, Some("5"), Some("MPI_Allreduce:flip,bytes=1024"));
        assert_eq!(code, Some(3), "a wrong result");
    }
    let file = dir.join("presets.env");
    let (code, stdout, stderr) = tune(&presets, &file);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(
        stdout.contains("; preset 5 not selectable: a wrong result in "),
        "{stdout}"
    );
    let change = "MPI_Allreduce 1024 B (1024 × byte bor): select preset 3 (I_MPI_ADJUST_ALLREDUCE=3): preset 3 is ";
    assert!(stdout.contains(change), "{stdout}");
    assert!(stdout.contains("3 launches against 3"), "{stdout}");
    // At 8 B nothing was slowed: whatever tune decides there, the file
    // selects preset 3 at 1 KiB on 2 processes.
    let written = std::fs::read_to_string(&file).unwrap();
    let setting = written
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{VARIABLE}=\"")))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no {VARIABLE} in:\n{written}"));
    assert!(setting.contains("3:1024-2147483647@2-2"), "{setting}");
    assert!(
        stdout.contains(&format!("load it with:\n  -genv {VARIABLE} '{setting}'")),
        "{stdout}"
    );

    // The written setting against the slowed own choice, in turn.
    let confirm = dir.join("confirm");
    for l in 0..3 {
        launch(&confirm.join(format!("{l}-own")), None, true);
        launch(&confirm.join(format!("{l}-tuned")), Some(setting), false);
    }
    let (code, stdout, stderr) = tune(&confirm, &dir.join("confirmed.env"));
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(stdout.contains(change), "confirmed:\n{stdout}");

    // Launches of the library's choice alone cannot tune, and say so.
    let own = dir.join("own");
    for l in 0..3 {
        std::fs::create_dir_all(&own).unwrap();
        let from = presets.join(format!("{l}-own"));
        std::fs::rename(&from, own.join(format!("{l}-own"))).unwrap();
    }
    let (code, stdout, stderr) = tune(&own, &dir.join("none.env"));
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert!(stderr.contains("no launch selected a preset"), "{stderr}");
}
