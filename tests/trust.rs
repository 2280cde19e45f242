//! pgcheck never trusts the library under test. Faults injected with the
//! PMPI library (tests/faults/pmpi_faults.c) whose truth is known, and the
//! exact outcome each must have:
//!
//! - a library right in verification and wrong later (after N calls, in 1
//!   call of M, or writing nothing after N calls): status 3, naming the
//!   case, the rank and the call;
//! - a call that never returns on one rank: status 7, every stuck rank
//!   says where, results.json keeps the finished cases and the failure;
//! - a rank that exits or aborts inside a collective: status 8, never 1;
//! - a collective that no check names, broken on every datatype: pgcheck's
//!   own bookkeeping runs on point-to-point trees and the verdicts stay.
//!
//! Also the trees themselves (`algorithms::tree`), on 1 to 8 processes.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 1024]
    competitors: [allreduce_as_reduce_bcast]
";

/// Short launches: the faults strike within the first few hundred calls.
const SETTINGS: [&str; 6] = ["--budget", "100ms", "--rounds", "10", "--warmup", "3"];

/// What one launch left.
struct Run {
    outcome: Outcome,
    results: Option<Value>,
    dir: PathBuf,
}

impl Run {
    fn results(&self) -> &Value {
        self.results
            .as_ref()
            .unwrap_or_else(|| panic!("no readable results.json:\n{}", self.outcome.text()))
    }

    fn assert_status(&self, code: i32, why: &str) {
        assert_eq!(
            self.outcome.code,
            Some(code),
            "{why}: status {code} is due:\n{}",
            self.outcome.text()
        );
    }

    fn candidate(&self, collective: &str, size: u64, name: &str) -> &Value {
        self.results()["checks"]
            .as_array()
            .and_then(|checks| {
                checks
                    .iter()
                    .find(|c| c["collective"] == collective && c["size_bytes"] == size)
            })
            .and_then(|check| {
                check["candidates"]
                    .as_array()?
                    .iter()
                    .find(|c| c["name"] == name)
            })
            .unwrap_or_else(|| {
                panic!(
                    "no {name} in {collective} {size} B:\n{}",
                    self.outcome.text()
                )
            })
    }

    /// The ranks results.json names in its failure of `kind`.
    fn failure_ranks(&self, kind: &str) -> Vec<u64> {
        let results = self.results();
        assert_eq!(
            results["complete"],
            false,
            "a failed run is incomplete:\n{}",
            self.outcome.text()
        );
        let failure = &results["failure"];
        assert_eq!(failure["kind"], kind, "{failure}\n{}", self.outcome.text());
        failure["ranks"]
            .as_array()
            .unwrap_or_else(|| panic!("no ranks in {failure}"))
            .iter()
            .map(|r| r["rank"].as_u64().unwrap())
            .collect()
    }
}

fn run(name: &str, np: usize, yaml: &str, extra: &[&str], fault: Option<&str>) -> Run {
    let mut args = SETTINGS.to_vec();
    args.extend(extra);
    run_launch(name, np, yaml, &args, fault, |launch| launch)
}

/// `pgcheck run` of `yaml` with `args` on `np` ranks, the launch shaped by
/// `shape`, with the fault library configured by `fault` unless `None`.
fn run_launch(
    name: &str,
    np: usize,
    yaml: &str,
    args: &[&str],
    fault: Option<&str>,
    shape: impl FnOnce(Launch) -> Launch,
) -> Run {
    let dir = scratch(&format!("trust-{name}-np{np}"));
    let launch = Launch::check(np, &dir, yaml)
        .args(args)
        .timeout(Duration::from_secs(240));
    let outcome = shape(launch).fault_if(fault).run();
    eprintln!(
        "{name}, {np} ranks, fault {fault:?}: status {:?} after {:.1} s",
        outcome.code, outcome.seconds
    );
    let results = outcome.results.clone();
    let out = outcome.out_dir().to_path_buf();
    Run {
        outcome,
        results,
        dir: out,
    }
}

/// Asserts the wrong result of the library's allreduce at 8 B, found in
/// the timed calls on `rank`, in a call of one of `call_kinds`.
fn assert_wrong_after_verification(r: &Run, rank: usize, call_kinds: &[&str]) {
    r.assert_status(3, "a wrong result in the timed calls");
    let default = r.candidate("allreduce", 8, "default");
    assert_eq!(default["status"], "wrong", "{default}");
    let reason = default["reason"].as_str().unwrap_or_default();
    for needle in [
        &format!("rank {rank}, ") as &str,
        "verification had passed",
        "expected",
    ] {
        assert!(
            reason.contains(needle),
            "the reason must say {needle:?}: {reason:?}\n{}",
            r.outcome.text()
        );
    }
    assert!(
        call_kinds.iter().any(|kind| reason.contains(kind)),
        "the reason must name one of {call_kinds:?}: {reason:?}\n{}",
        r.outcome.text()
    );
    r.outcome.expect_in_stdout(
        "! allreduce 8 B: the library's collective is wrong:",
        "the report says it under the table",
    );
    r.outcome.expect_in_stderr(
        "wrong results in 1 case: the library's MPI_Allreduce 8 B",
        "the exit line names the case",
    );
    // The run stops at the wrong result: the 1024 B case is not measured.
    assert_eq!(r.results()["complete"], false);
}

#[test]
fn a_library_wrong_after_its_verification_is_caught_in_the_timed_calls() {
    // Right in verification (call 1) and warm-up (2–4), wrong from call 21
    // on, on rank 1 only. Its first wrong call is a timed one, or the
    // check after a chunk: where a barrier takes milliseconds (MPICH's
    // busy-polling ranks on shared CPUs), every chunk is one timed call
    // and one check.
    let r = run(
        "wrong-after",
        3,
        ALLREDUCE,
        &[],
        Some("MPI_Allreduce:flip,rank=1,bytes=8,after=20"),
    );
    assert_wrong_after_verification(
        &r,
        1,
        &[
            "timed call ",
            "a check between timed calls on refilled buffers",
        ],
    );
}

#[test]
fn a_library_wrong_in_one_call_of_fifty_is_caught() {
    // Only every 50th call from the 11th on, on rank 0. At 8 B a check of
    // the output costs far less than 2 % of a call, so nearly every timed
    // call is checked.
    let r = run(
        "wrong-sometimes",
        2,
        ALLREDUCE,
        &[],
        Some("MPI_Allreduce:flip,rank=0,bytes=8,after=10,every=50"),
    );
    r.assert_status(3, "a result wrong in 1 call of 50");
    let reason = r.candidate("allreduce", 8, "default")["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains("rank 0, ") && reason.contains("verification had passed"),
        "{reason}"
    );
}

#[test]
fn a_library_that_stops_writing_is_caught_on_refilled_buffers() {
    // From call 11 on, the output buffer is never written: every timed
    // call leaves the right result of call 10 in place. Only a call on
    // refilled buffers can tell.
    let r = run(
        "stops-writing",
        2,
        ALLREDUCE,
        &[],
        Some("MPI_Allreduce:nowrite,bytes=8,after=10"),
    );
    assert_wrong_after_verification(&r, 0, &["a check between timed calls on refilled buffers"]);
}

#[test]
fn without_a_fault_the_timed_calls_pass_their_checks() {
    // Reported only: a right library's run may still be undecided (9) on
    // 3 ranks sharing 2 cores, which is not what this test is about.
    let r = run("no-fault", 3, ALLREDUCE, &REPORT_ONLY, None);
    r.assert_status(0, "a right library");
    assert_eq!(r.results()["complete"], true);
    for size in [8, 1024] {
        assert_eq!(
            r.candidate("allreduce", size, "default")["status"],
            "measured"
        );
    }
}

#[test]
fn a_call_that_never_returns_ends_the_job_with_status_7() {
    // Rank 1 never returns from its 11th allreduce of 1024 B, a timed one
    // (verification, in place included, and warm-up take 7): the 8 B case
    // is finished and kept.
    let r = run(
        "hang",
        3,
        ALLREDUCE,
        &["--timeout", "2s"],
        Some("MPI_Allreduce:hang,rank=1,bytes=1024,after=10"),
    );
    r.assert_status(7, "a hang");
    // Every rank still in the collective says so; rank 1 is one of them.
    let ranks = r.failure_ranks("hang");
    assert!(ranks.contains(&1), "{ranks:?}\n{}", r.outcome.text());
    let what = r.results()["failure"]["ranks"][0]["what"]
        .as_str()
        .unwrap_or_default();
    assert!(
        what.contains("has not returned") && what.contains("MPI_Allreduce 1024 B"),
        "{what}"
    );
    // The call's number counts pgcheck's calls of the candidate; the
    // fault counts the process's calls of MPI_Allreduce, in-place
    // verification included.
    r.outcome.expect_in_stderr(
        "rank 1 has not returned within 2.0 s of its expected end: call ",
        "rank 1 names its call",
    );
    r.outcome.expect_in_stderr(
        "of `default` in MPI_Allreduce 1024 B (256 × int32 sum)",
        "and the case",
    );
    r.outcome
        .expect_in_stderr("ending the job with status 7 (hang)", "");
    // Rank 1 sleeps in the call; the others busy-poll for it inside the
    // library: only rank 1 is named as the one that never returned.
    let named: Vec<String> = messages(&r.outcome.stderr)
        .into_iter()
        .filter(|m| m.contains("the rank that never returned"))
        .collect();
    assert!(
        !named.is_empty() && named.iter().all(|m| m.contains("rank 1 has not returned")),
        "{named:?}\n{}",
        r.outcome.text()
    );
    assert_eq!(
        r.candidate("allreduce", 8, "default")["status"],
        "measured",
        "the finished case stays in results.json"
    );
}

#[test]
fn a_rank_that_exits_inside_a_collective_ends_the_job_with_status_8() {
    // exit(1) inside the library: mpirun alone would exit 1, pgcheck's
    // status for a violation.
    let r = run(
        "exit",
        3,
        ALLREDUCE,
        &[],
        Some("MPI_Allreduce:exit=1,rank=2,bytes=8,after=10"),
    );
    r.assert_status(8, "a lost rank");
    assert_eq!(r.failure_ranks("lost rank"), [2]);
    r.outcome.expect_in_stderr("rank 2 exited during call ", "");
    r.outcome.expect_in_stderr(
        "of `default` in MPI_Allreduce 8 B (2 × int32 sum); ending the job with status 8 (lost rank)",
        "",
    );
}

#[test]
fn a_rank_that_aborts_inside_a_collective_ends_the_job_with_status_8() {
    let r = run(
        "abort",
        3,
        ALLREDUCE,
        &[],
        Some("MPI_Allreduce:abort,rank=1,bytes=1024,after=5"),
    );
    r.assert_status(8, "a crashed rank");
    assert_eq!(r.failure_ranks("lost rank"), [1]);
    r.outcome
        .expect_in_stderr("rank 1 died of signal 6 during call ", "");
    r.outcome
        .expect_in_stderr("of `default` in MPI_Allreduce 1024 B (256 × int32 sum)", "");
}

/// A gather check whose `default` is slowed 20×: violated very-high
/// whatever the machine does.
const GATHER: &str = "datatype: int32
checks:
  - collective: gather
    sizes: [64]
    root: 0
    competitors: [gather_as_gatherv]
";

/// The verdict of every check of a run (the severity moves with the
/// launch's noise; the verdict of a 20× slowdown does not).
fn verdicts(r: &Run) -> Vec<String> {
    r.results()["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["verdict"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn collectives_no_check_names_cannot_reach_the_bookkeeping() {
    let slow = |fault: Option<&str>, name: &str| {
        let args = [
            "--budget",
            "400ms",
            "--rounds",
            "20",
            "--fail-on",
            "low",
            "--resync",
            "50ms",
        ];
        run_launch(
            &format!("bookkeeping-{name}"),
            2,
            GATHER,
            &args,
            fault,
            |l| l.bound().env("PGCHECK_TEST_SLOW_DEFAULT", "20"),
        )
    };
    let control = slow(None, "control");
    control.assert_status(1, "default 20× slower than its mock-up");
    let expected = verdicts(&control);
    assert_eq!(expected, ["violated"], "{}", control.outcome.text());
    // Each of these would hang pgcheck at its first use if its bookkeeping
    // (clock synchronisation every 50 ms, start decisions, late flags,
    // agreement on verification, topology) still used it.
    for (name, spec) in [
        ("barrier", "MPI_Barrier:hang"),
        ("bcast", "MPI_Bcast:hang"),
        ("allreduce-double", "MPI_Allreduce:hang,type=double"),
        ("allgather", "MPI_Allgather:hang"),
    ] {
        let r = slow(Some(spec), name);
        r.assert_status(1, spec);
        assert_eq!(verdicts(&r), expected, "{spec}:\n{}", r.outcome.text());
        assert_eq!(r.results()["complete"], true, "{}", r.dir.display());
    }
}

/// `algorithms/examples/tree_check.rs`, which cargo builds with the tests.
fn tree_check() -> PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_pgcheck"));
    bin.parent().unwrap().join("examples").join("tree_check")
}

#[test]
fn point_to_point_trees_agree_with_their_definition() {
    let program = tree_check();
    assert!(
        program.exists(),
        "{} is built by `cargo test` (an example of algorithms)",
        program.display()
    );
    for np in [1, 2, 3, 5, 7, 8] {
        let mut command = Command::new(mpirun());
        if is_open_mpi() {
            command.args(["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]);
        }
        command.args(["-np", &np.to_string()]).arg(&program);
        let outcome = Launch::from_command(command, Duration::from_secs(120)).run();
        assert_eq!(outcome.code, Some(0), "{np} processes:\n{}", outcome.text());
        outcome.expect_in_stdout(&format!("tree collectives: ok on {np} processes"), "");
    }
}
