//! What a run runs on is found out, not believed: a timer coarser than
//! `MPI_Wtick` claims, and shared-memory nodes that are not the hosts,
//! injected below pgcheck by the PMPI library of tests/faults/pmpi_host.c.

mod common;
use common::*;
use serde_json::Value;
use std::path::PathBuf;

/// Two sizes, one competitor: cases whose medians a fine timer resolves.
/// Barrier synchronisation: these tests are about the timer and the
/// nodes, not about late starts under `roundtime`.
const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 1024]
    competitors: [allreduce_as_reduce_bcast]
";

/// The start of the warning of a lying `MPI_Comm_split_type`.
const SPLIT_WARNING: &str = "MPI_Comm_split_type says";

/// The part of the timer's warning that names it (see `analyse::timer`).
const TIMER_WARNING: &str = "of the measured granularity of the timer MPI_Wtime";

/// `pgcheck run` of [`ALLREDUCE`] on `np` ranks, the host-lie library
/// preloaded with `lie` unless it is `None`; its outcome, results.json and
/// output directory.
fn run(name: &str, np: usize, lie: Option<&[(&str, &str)]>) -> (Outcome, Value, PathBuf) {
    let launch = Launch::check(np, &scratch(&format!("host-{name}")), ALLREDUCE)
        .args(&["--budget", "100ms", "--rounds", "10", "--sync", "barrier"]);
    let out = match lie {
        Some(settings) => launch.host_lie(settings),
        None => launch,
    }
    .run();
    eprintln!("{name}: status {:?} after {:.1} s", out.code, out.seconds);
    let results = out.results().clone();
    let out_dir = out.out_dir().to_path_buf();
    (out, results, out_dir)
}

/// The warnings at the top of the report (`meta.warnings`).
fn warnings(results: &Value) -> Vec<String> {
    results["meta"]["warnings"]
        .as_array()
        .map(|w| w.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

#[test]
fn a_wtime_rounded_to_a_millisecond_makes_every_case_powerless_and_the_run_noisy() {
    let (out, r, dir) = run("wtime-1ms", 2, Some(&[("PGCHECK_WTIME_ROUND_S", "0.001")]));
    // A run that cannot decide is not a pass.
    assert_eq!(out.code, Some(9), "{}", out.text());
    assert!(
        out.stderr
            .contains("pgcheck: exit 9 (undecided): noisy run:"),
        "{}",
        out.text()
    );
    let meta = &r["meta"];
    let granularity = meta["timer_resolution_s"].as_f64().unwrap();
    assert!(
        (granularity / 1e-3 - 1.0).abs() < 1e-6,
        "measured, the granularity is the rounding's 1 ms: {meta}"
    );
    // The library still claims a fine tick: the measurement did not believe it.
    assert!(meta["timer_wtick_s"].as_f64().unwrap() < 1e-6, "{meta}");
    let cost = meta["timer_read_cost_s"].as_f64().unwrap();
    assert!(
        cost > 0.0 && cost < 1e-3,
        "a read costs less than a tick: {meta}"
    );
    let checks = r["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 2, "{}", out.text());
    for check in checks {
        assert_eq!(check["verdict"], "inconclusive", "{check}");
        assert_eq!(check["powerless"], true, "{check}");
        assert_eq!(check["timer_bound"], true, "{check}");
        assert_eq!(check["severity"], "ok", "{check}");
        assert_eq!(check["sensitivity"], Value::Null, "{check}");
        let reason = check["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("timer's measured granularity"), "{check}");
    }
    let warning = "WARNING: 2 of 2 cases are powerless: their medians lie within 5 ticks (5.000 ms) of the measured granularity of the timer MPI_Wtime (1.000 ms, MPI_Wtick claims";
    out.expect_in_stdout(warning, "the timer and its granularity at the top");
    assert_eq!(meta["noise"]["verdict"], "noisy", "{meta}");
    let reason = meta["noise"]["reason"].as_str().unwrap();
    assert!(
        reason.contains("2 of 2 cases undecided and unable to flag 1.1× (twice the --margin's excess) (2 too short for the timer), more than half"),
        "{reason}"
    );
    out.expect_in_stdout("WARNING: noisy run:", "the run is noisy");
    // Nor do the universal guidelines compare medians of no ticks.
    assert_eq!(r["guidelines"]["monotony"], serde_json::json!([]), "{r}");
    assert!(!out.stdout.contains("monotony holds"), "{}", out.text());
    // Analysed again offline, the run reads back and keeps one warning.
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["analyze", dir.to_str().unwrap(), "--output"])
        .arg(dir.join("again"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert_eq!(again.status.code(), Some(9), "{stdout}");
    assert_eq!(
        common::words(&stdout)
            .matches(&common::words(warning))
            .count(),
        1,
        "{stdout}"
    );
}

#[test]
fn a_split_type_that_puts_each_rank_alone_is_named_and_ranks_are_counted_by_host() {
    let cpus = online_cpus();
    let np = (cpus + 2).max(4);
    let (out, r, _) = run("split-alone", np, Some(&[("PGCHECK_SPLIT_ALONE", "1")]));
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    let both_views =
        format!("WARNING: {SPLIT_WARNING} {np} nodes × 1 rank; host names say 1 host × {np} ranks");
    out.expect_in_stdout(&both_views, "both views of the nodes");
    // The library's view still makes the nodes of lane and hierarchical
    // candidates; the placement counts by host name.
    assert_eq!(r["meta"]["nodes"], np, "{}", r["meta"]);
    let placement = &r["meta"]["placement"];
    assert_eq!(placement["most_ranks_on_a_node"], np, "{placement}");
    assert_eq!(placement["cpus_on_that_node"], cpus, "{placement}");
    out.expect_in_stdout(
        &format!("WARNING: {np} ranks share {cpus} CPUs on a node"),
        "oversubscription counted by host name",
    );
}

#[test]
fn without_lies_neither_warning_shows() {
    let cpus = online_cpus();
    let np = (cpus + 2).max(4);
    // Unloaded, and loaded with nothing to lie about: both pass through.
    for (name, lie) in [("plain", None), ("preloaded", Some(&[][..]))] {
        let (out, r, _) = run(name, np, lie);
        assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
        let all = warnings(&r);
        assert!(
            all.iter()
                .all(|w| !w.contains(SPLIT_WARNING) && !w.contains(TIMER_WARNING)),
            "{name}: {all:?}\n{}",
            out.text()
        );
        assert!(!out.stdout.contains(SPLIT_WARNING), "{}", out.text());
        assert!(!out.stdout.contains(TIMER_WARNING), "{}", out.text());
        let meta = &r["meta"];
        let granularity = meta["timer_resolution_s"].as_f64().unwrap();
        assert!(granularity > 0.0 && granularity < 1e-5, "{name}: {meta}");
        for check in r["checks"].as_array().unwrap() {
            assert_eq!(check["timer_bound"], false, "{name}: {check}");
        }
        assert_eq!(meta["nodes"], 1, "{name}: {meta}");
        // The oversubscription warning stands with or without the lie.
        out.expect_in_stdout(
            &format!("WARNING: {np} ranks share {cpus} CPUs on a node"),
            "more ranks than CPUs",
        );
    }
}
