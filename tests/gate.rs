//! The CI gate with its faults injected through the PMPI library
//! (tests/faults/pmpi_faults.c): a slowed collective fails the run with no
//! option, a regression against several baseline launches is found at the
//! size that regressed, and a machine that got slower for every collective
//! is named as a shift, not as regressions.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// Barrier synchronisation: no observation is lost to a late start, so a
/// short budget still gives every round its observations.
const SETTINGS: [&str; 8] = [
    "--budget", "100ms", "--rounds", "10", "--warmup", "1", "--sync", "barrier",
];

const REDUCE: &str = "datatype: byte
op: bor
checks:
  - collective: reduce
    sizes: [16, 256]
    root: 0
    competitors: [reduce_as_allreduce]
";

/// Two of the competitors call `MPI_Allreduce` themselves, and the fault
/// slows them with `default`: the gate judges `default` against the
/// mock-up alone (against all three, whose mean moved with it, the 10×
/// fault read 1.99×, p = 0.03 after Holm, and was not found).
const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [512, 4096, 32768, 262144]
    competitors: [allreduce_as_reduce_bcast, allreduce_as_dup_comm, allreduce_as_permuted_comm]
";

/// One bound launch of `input` on 2 processes into `out`, with `extra`
/// options and the fault `spec`, if any.
fn launch(input: &str, out: &Path, extra: &[&str], fault: Option<&str>) -> Outcome {
    Launch::new(2, &["run", input])
        .output(out)
        .args(&SETTINGS)
        .args(extra)
        .bound()
        .fault_if(fault)
        .run()
}

/// pgcheck's last line on standard error: the exit status and why (the
/// launcher may add its own lines after it).
fn exit_line(out: &Outcome) -> String {
    messages(&out.stderr)
        .into_iter()
        .rfind(|l| l.starts_with("pgcheck: exit "))
        .unwrap_or_default()
}

/// A reduce 200 µs slower than it should be is violated by a mock-up built
/// from allreduce: status 1 without any option; the same run reported
/// only passes, so the status comes from the gate.
#[test]
fn a_slowed_reduce_fails_without_an_option() {
    let dir = scratch("gate-slowed-reduce");
    let input = input(&dir, "reduce.yaml", REDUCE);
    let fault = Some("MPI_Reduce:delay=200");
    let out = launch(&input, &dir.join("default"), &[], fault);
    assert_eq!(out.code, Some(1), "{}", out.text());
    assert!(
        exit_line(&out).starts_with("pgcheck: exit 1 (guideline violation or regression): ")
            && exit_line(&out).contains("violated, worst"),
        "{}",
        out.text()
    );
    let results = results(&dir.join("default"));
    assert_eq!(results["exit"]["status"], 1, "{}", results["exit"]);
    let report = std::fs::read_to_string(dir.join("default/report.md")).unwrap();
    assert!(report.starts_with("## pgcheck: ❌ exit 1"), "{report}");
    let reported = launch(&input, &dir.join("reported"), &REPORT_ONLY, fault);
    assert_eq!(reported.code, Some(0), "{}", reported.text());
}

/// `default`'s change of one case against the baseline launches.
fn change(results: &Value, size_bytes: u64) -> &Value {
    results["baseline"]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("no baseline comparison: {results}"))
        .iter()
        .find(|c| c["size_bytes"] == size_bytes)
        .unwrap_or_else(|| panic!("no change at {size_bytes} B: {}", results["baseline"]))
}

/// Six baseline launches of sizes a factor of 8 apart (each case has
/// neighbours to be measured against; from 512 B on, where launches of this
/// machine vary less than at a few microseconds); then a launch whose allreduce of 32 KiB takes
/// 10 times as long (found there, and as the largest ratio), and one where
/// every collective takes 10 times as long (a shift of the machine, no
/// regression).
#[test]
fn against_several_launches_a_regression_is_found_and_a_shift_is_named() {
    let dir = scratch("gate-launches");
    let input = input(&dir, "allreduce.yaml", ALLREDUCE);
    let baselines = dir.join("baseline");
    for l in 1..=6 {
        let out = launch(
            &input,
            &baselines.join(format!("launch-{l}")),
            &REPORT_ONLY,
            None,
        );
        assert_eq!(out.code, Some(0), "{}", out.text());
    }
    // α = 0.01: launches of this machine a second apart varied up to
    // 5.8× at 4 KiB, and the 10× fault made 32 KiB 3.5× slower (p = 0.0012
    // after Holm) in one run.
    // A tolerance of 50 %: one size of this machine can move 1.14× by
    // itself between launches a minute apart, significant against six
    // launches that did not (4 KiB, once in 14 runs here); the fault is 10×.
    let gate = [
        "--baseline",
        baselines.to_str().unwrap(),
        "--alpha",
        "0.01",
        "--tolerance",
        "50%",
    ];

    let regressed = dir.join("regressed");
    let out = launch(
        &input,
        &regressed,
        &gate,
        Some("MPI_Allreduce:scale=1000,bytes=32768,rank=0"),
    );
    assert_eq!(out.code, Some(1), "{}", out.text());
    let r = results(&regressed);
    let b = &r["baseline"];
    // Baseline launches made in another state of the machine are left out
    // when three or more were made in this one's (CI once left out 2).
    let left_out = b.get("left_out").and_then(Value::as_array);
    let left_out = left_out.map_or(0, Vec::len);
    assert_eq!(
        b["launches"].as_u64().unwrap() as usize + left_out,
        6,
        "{b}"
    );
    assert!(b["launches"].as_u64().unwrap() >= 3, "{b}");
    let method = b["method"].as_str().unwrap();
    assert_eq!(
        method.contains(&format!("{left_out} in another state left out")),
        left_out > 0,
        "{method}"
    );
    assert!(b.get("warning").is_none(), "{b}");
    let slowed = change(&r, 32768);
    assert_eq!(slowed["regression"], true, "{b}");
    let ratio = |c: &Value| c["normalised_ratio"].as_f64().unwrap();
    for size in [512, 4096, 262144] {
        assert!(ratio(change(&r, size)) < ratio(slowed), "{b}");
    }
    assert!(
        exit_line(&out).contains("1 regression against the baseline: MPI_Allreduce 32768 B"),
        "{}",
        out.text()
    );

    let shifted = dir.join("shifted");
    // The known truth: every interposed call of rank 0 spins until it has
    // taken 10 times its own time; rank 1 does not spin, so no call waits
    // for another's spin and nothing compounds (on every rank the factors
    // compounded to 17–62×). An observation is the slowest rank's
    // duration, rank 0's: every candidate of every case 10× slower.
    // Launches of one library differ by 20 % and more as a whole here, so
    // the factor named is 10× within a factor of 2.5, as far as one size's
    // state moves (7.9–14.3× in six runs here, 20.8× in one CI run);
    // six baseline launches give the shift's test 5 degrees of freedom,
    // ample for 10× at α = 0.01 (p ≤ 5e-4; a 5× fault was named 3.3× at
    // p = 0.016 once). A uniform shift moves no case against its
    // neighbours, but this machine moves one size by itself: 256 KiB ran
    // at 62 µs in one series of baseline launches and at 120 µs in
    // another, and a launch in the other state read as a 2.4× regression
    // of it (2 runs in 7). A tolerance of 200 % leaves that to the machine
    // and the status is 0. Violations do not gate here (`--fail-on none`,
    // which still fails on a regression): the spin is per call, so a
    // two-call competitor and a one-call default are not slowed alike, and
    // a close case can turn (CI once saw 32 KiB at 1.08× "new"). A noisy
    // launch is not what this is about either (`--allow-undecided`).
    let mut shift_gate = gate[..4].to_vec();
    shift_gate.extend(["--tolerance", "200%"]);
    shift_gate.extend(REPORT_ONLY);
    let out = launch(&input, &shifted, &shift_gate, Some("*:scale=1000,rank=0"));
    out.expect_status(0);
    let r = out.results();
    let b = &r["baseline"];
    // Against all six launches, even where launches in another machine
    // state were left out of the case-by-case test (CI once kept 3 of 6,
    // and a shift tested against those 3 read p = 0.027).
    assert_eq!(b["shift"]["significant"], true, "{}\n{b}", out.text());
    let factor = b["shift"]["factor"].as_f64().unwrap();
    assert!(
        (4.0..=40.0).contains(&factor),
        "a 10× shift named {factor}×: {b}"
    );
    // Nothing compounds: every case about 10× slower too (4.5–27× in six
    // runs: a size's own state moves up to 2.5× from one launch to the
    // next here, docs/statistics.md), where a 5× fault on every rank made
    // them 17–62× (×2 for 10×), hence 2.5–60× and a median of 4–40×.
    let mut ratios: Vec<f64> = b["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ratio"].as_f64().unwrap())
        .collect();
    ratios.sort_by(f64::total_cmp);
    assert!(
        ratios.iter().all(|r| (2.5..=60.0).contains(r))
            && (4.0..=40.0).contains(&ratios[ratios.len() / 2]),
        "{ratios:?}: {b}"
    );
    let reason = r["exit"]["reason"].as_str().unwrap();
    assert!(reason.contains("no regression"), "{reason}");
    let regressions: Vec<&Value> = b["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["regression"] == true)
        .collect();
    assert!(regressions.is_empty(), "{b}");
    out.expect_in_stdout("Shift of the whole machine", "the shift is named");
}

/// One baseline launch: compared and shown, with the warning that the
/// variation between launches is unknown, but nothing decided: the run
/// is undecided (9) unless --allow-undecided.
#[test]
fn one_baseline_launch_warns_that_launches_vary() {
    let dir = scratch("gate-one-launch");
    let input = input(&dir, "reduce.yaml", REDUCE);
    let report_only = REPORT_ONLY;
    let out = launch(&input, &dir.join("before"), &report_only, None);
    assert_eq!(out.code, Some(0), "{}", out.text());
    let before = dir.join("before");
    let mut args = report_only.to_vec();
    args.extend(["--baseline", before.to_str().unwrap()]);
    let out = launch(&input, &dir.join("after"), &args, None);
    let b = &results(&dir.join("after"))["baseline"];
    assert_eq!(b["launches"], 1, "{}\n{b}", out.text());
    assert!(
        b["warning"]
            .as_str()
            .is_some_and(|w| w.contains("variation between launches is unknown")),
        "{b}"
    );
    assert_eq!(
        b["undecided"], "not decided: 1 baseline launch, 3 needed",
        "{b}"
    );
    assert!(b["changes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["regression"] == false));
    let gate = ["--baseline", before.to_str().unwrap(), "--fail-on", "new"];
    let out = launch(&input, &dir.join("gated"), &gate, None);
    assert_eq!(out.code, Some(9), "{}", out.text());
    assert!(
        exit_line(&out)
            .contains("regressions and new violations not decided: 1 baseline launch, 3 needed"),
        "{}",
        out.text()
    );
}

/// `--fail-on new` without a baseline is a usage error.
#[test]
fn fail_on_new_needs_a_baseline() {
    let out = pgcheck(
        1,
        &[
            "run",
            "--collective",
            "bcast",
            "--sizes",
            "8",
            "--fail-on",
            "new",
        ],
    );
    assert_eq!(out.code, Some(2), "{}", out.text());
    out.expect_in_stderr("--baseline", "names what is missing");
}

/// A library with known violations: its reduce of 8 and 64 B is 500 µs
/// slow in every launch ([`KNOWN`]), so a mock-up from allreduce beats it;
/// allreduce is measured at three sizes a factor of 8 apart (each has a
/// neighbour to be normalised against), from 8 KiB on: calls of a few
/// microseconds were called noisy (their overhead share) whenever another
/// process ran. The sizes are far apart: a delayed call takes the same
/// time whatever the machine's state, and as a neighbour it would hide
/// the state's change.
const KNOWN_VIOLATIONS: &str = "datatype: int32
op: sum
checks:
  - collective: reduce
    sizes: [8, 64]
    root: 0
    competitors: [reduce_as_allreduce]
  - collective: allreduce
    sizes: [8192, 65536, 524288]
    competitors: [allreduce_as_reduce_bcast]
";

/// The library's known violations: its reduce at the checked sizes only
/// (allreduce's mock-up from reduce and bcast calls it at its own sizes).
const KNOWN: &str = "MPI_Reduce:delay=500,bytes=8,bytes=64";

/// The launcher options that load the PMPI library with `spec` in every rank.
fn fault_options(spec: &str) -> Vec<String> {
    let mut options =
        common::faults::forward("LD_PRELOAD", common::faults::library().to_str().unwrap());
    options.extend(common::faults::forward("PGCHECK_FAULT", spec));
    options
}

/// `ci/gate-example` as the CI examples run it, on a library that has the
/// same two violations in every launch: it fills the history with five
/// launches, gates a sixth against them with `--fail-on new`, which passes
/// (the violations are known) and joins the history, whose oldest launch
/// goes (KEEP 5), or, run in a machine state the baseline never had with a
/// violation new in it, ends undecided and stays out. Then the same library with `default` 1.5 times slower (Intel MPI: 2.5, below) at
/// one size fails with status 1, that size named on the last line (as a
/// regression, or the new violation it makes), and stays out. Nothing published names this machine's paths, and each
/// launch kept is its results.json alone, under 1 MB.
#[test]
fn the_gate_example_passes_known_violations_and_fails_a_regression() {
    let dir = scratch("gate-example");
    let input = input(&dir, "known.yaml", KNOWN_VIOLATIONS);
    let history = dir.join("history");
    let example = |launcher: &[String], env: &[(&str, &str)]| {
        let mut command =
            std::process::Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/ci/gate-example"));
        command
            // 20 rounds, so the paired test: with 10, 1 gate launch in 6
            // here left most cases inconclusive (a noisy run, 9).
            .args(["--budget", "200ms", "--warmup", "1", "--sync", "barrier"])
            // Baseline launches seconds apart understate how launches
            // vary (a 1.13× change at one size was flagged once at 5 %);
            // the known truth is 1.5×.
            .args(["--tolerance", "20%"])
            .env("PGCHECK", env!("CARGO_BIN_EXE_pgcheck"))
            .env("INPUT", &input)
            .env("NP", "2")
            .env("BASELINE", "5")
            .env("KEEP", "5")
            .env("HISTORY", &history)
            .env("LAUNCHER", launcher.join(" "))
            .envs(env.iter().copied());
        Launch::from_command(command, std::time::Duration::from_secs(600)).run()
    };
    let launches = || -> Vec<std::path::PathBuf> {
        let mut all: Vec<_> = std::fs::read_dir(history.join("launches"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        all.sort();
        all
    };
    let summary = || std::fs::read_to_string(history.join("summary.md")).unwrap_or_default();
    let last_line = |out: &Outcome| messages(&out.stderr).last().cloned().unwrap_or_default();
    let known = fault_options(KNOWN);

    let out = example(&known, &[]);
    let last = last_line(&out);
    // This machine moves between states 2× apart, minutes long, in which
    // the library's allreduce 8 KiB holds and is violated: a gate launch
    // in a state the baseline launches never had cannot tell a new
    // violation from the state, and says so (9; CI failed on it as 1).
    let other_state = out.code == Some(9)
        && last.starts_with("ci/gate-example: exit 9 (")
        && last.contains(" new violation")
        && last.contains("in a machine state the baseline launches never had (")
        && last.contains(" known violations (");
    assert!(
        out.code == Some(0) || other_state,
        "{}\n{}",
        out.text(),
        summary()
    );
    if !other_state {
        // The two known ones, and any violation that comes and goes within
        // the spread of the baseline launches (known too), or within the
        // noise floor (not gated).
        assert!(
            last.starts_with("ci/gate-example: exit 0 (pass): ")
                && last.contains(" known violations (0 new, ")
                && last.contains("removed), no regression"),
            "{}",
            out.text()
        );
        out.expect_in_stderr(
            "5 launches in the history (KEEP 5, 1 pruned); the launch joined the history",
            "the sixth joined, the oldest went",
        );
    }
    let accepted = launches();
    assert_eq!(accepted.len(), 5, "{accepted:?}");
    assert_eq!(
        accepted
            .last()
            .unwrap()
            .to_string_lossy()
            .ends_with("-gate"),
        !other_state,
        "a passing gate joins, an undecided one stays out"
    );
    for launch in &accepted {
        let kept: Vec<_> = std::fs::read_dir(launch)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(kept, ["results.json"], "{launch:?}");
        let bytes = std::fs::metadata(launch.join("results.json"))
            .unwrap()
            .len();
        assert!(bytes < 1 << 20, "{launch:?}: {bytes} B");
    }
    let summary_md = summary();
    assert!(
        summary_md.starts_with(match other_state {
            false => "## pgcheck: ✅ exit 0",
            true => "## pgcheck: ⚠️ exit 9",
        }),
        "{summary_md}"
    );
    // The gate's own launch may have been made in a state of the machine
    // that only some history launches share: those judge it (3 or more).
    assert!(
        summary_md.contains("over 5 baseline launches")
            || ["over 3 baseline launches", "over 4 baseline launches"]
                .iter()
                .any(|judged| summary_md.contains(judged))
                && summary_md.contains("in another state left out"),
        "{summary_md}"
    );
    let drawn = std::fs::read_to_string(history.join("history/history.svg")).unwrap();
    assert!(
        drawn.contains("under test (not in the history): gate"),
        "the launch under test is drawn"
    );

    // Intel MPI's allreduce at 64 KiB takes 0.6× reduce+bcast's time, so
    // 1.5× slower makes no new violation, and its ratio to reduce+bcast
    // spreads 1.22× over the baseline launches (0.59–0.72): a 1.5×
    // slower `default` read 1.25× after its launch's state, not shown
    // beyond the tolerance of 20 % (3 of 4 runs failed). The known truth
    // there is 2.5×, beyond that spread.
    let factor = if cfg!(mpi = "impi") { "2.5" } else { "1.5" };
    let regressed = [
        ("PGCHECK_TEST_SLOW_DEFAULT", factor),
        ("PGCHECK_TEST_SLOW_DEFAULT_AT", "allreduce:65536"),
    ];
    let mut launcher = known.clone();
    for (name, value) in regressed {
        launcher.extend(common::faults::forward(name, value));
    }
    let out = example(&launcher, &[]);
    assert_eq!(out.code, Some(1), "{}\n{}", out.text(), summary());
    // Found as a regression, or as the new violation it makes there
    // (`default` 1.5× slower loses to reduce+bcast), and named (first,
    // unless a larger chance finding went before it, as 524288 B at 2.0×
    // once here).
    let last = last_line(&out);
    assert!(
        last.starts_with("ci/gate-example: exit 1 (guideline violation or regression): ")
            && (last.contains("regression") || last.contains("new violation"))
            && last.contains("MPI_Allreduce 65536 B")
            && last.contains(" known violations ("),
        "{}",
        out.text()
    );
    assert_eq!(launches(), accepted, "the regressed launch stays out");
    out.expect_in_stderr("the launch stays out of the history", "said so");

    // Everything the gate publishes: no path of this machine.
    let scratch_path = dir.to_string_lossy().into_owned();
    let home = std::env::var("HOME")
        .ok()
        .filter(|h| h.len() > 1)
        .map(|h| format!("{}/", h.trim_end_matches('/')));
    let mut paths = vec![scratch_path.as_str(), "/home/", "/root/"];
    paths.extend(home.as_deref());
    for file in files_under(&history) {
        let bytes = std::fs::read(&file).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for &path in &paths {
            assert!(!text.contains(path), "{file:?} names {path}");
        }
    }
}
