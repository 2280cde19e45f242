//! Emulated nodes (`ci/cluster`): every node a host of its own with its own
//! hostname, TCP between nodes. The topology comes from the MPI library
//! alone (no `--ppn`), and lane and hierarchical candidates run across
//! real node boundaries.

mod common;
use common::*;
use std::process::Command;
use std::time::Duration;

const INPUT: &str = "budget: 30ms\nrounds: 6\nchecks:\n  - collective: allreduce\n    sizes: [64]\n    competitors: [allreduce_as_allreduce_lane, allreduce_as_allreduce_hier]\n  - collective: bcast\n    sizes: [64]\n    root: 1\n    competitors: [bcast_as_bcast_lane, bcast_as_bcast_hier]\n";

/// `ci/cluster` with `placement` (ranks per node) running `args` on the
/// built binary; None where this machine cannot make UTS namespaces.
fn cluster(placement: &str, args: &[&str]) -> Option<Outcome> {
    let can_unshare = Command::new("unshare")
        .args(["-u", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !can_unshare {
        eprintln!("SKIPPED: `unshare -u` is not permitted here, so nodes cannot be emulated");
        return None;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/ci/cluster");
    let mut command = Command::new("bash");
    command
        .arg(script)
        .args(args)
        .env("PLACEMENT", placement)
        .env("BIN", env!("CARGO_BIN_EXE_pgcheck"))
        .env("NO_COLOR", "1");
    Some(Launch::from_command(command, Duration::from_secs(240)).run())
}

fn results(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("results.json")).unwrap()).unwrap()
}

/// 2×2, 2×3, 3×2 and 4×2 nodes × ranks: the nodes, their ranks and host
/// names are found, and lane and hier candidates are verified and measured.
#[test]
fn the_topology_of_emulated_nodes_is_found_and_lane_and_hier_run_across_them() {
    for (nodes, ppn) in [(2, 2), (2, 3), (3, 2), (4, 2)] {
        let dir = scratch(&format!("cluster-{nodes}x{ppn}"));
        let input = input(&dir, "input.yaml", INPUT);
        let out_dir = dir.join("out");
        let placement = vec![ppn.to_string(); nodes].join(",");
        let Some(out) = cluster(
            &placement,
            &["run", &input, "--output", out_dir.to_str().unwrap()],
        ) else {
            return;
        };
        assert!(matches!(out.code, Some(0 | 1)), "{}", out.text());
        let r = results(&out_dir);
        let meta = &r["meta"];
        assert_eq!(meta["nodes"], nodes, "{nodes}×{ppn}: {meta}");
        assert_eq!(meta["ppn"], ppn, "{nodes}×{ppn}: {meta}");
        assert_eq!(meta["virtual_nodes"], false);
        let hosts: Vec<String> = (1..=nodes).map(|n| format!("node{n}")).collect();
        assert_eq!(meta["hosts"], serde_json::json!(hosts));
        for check in r["checks"].as_array().unwrap() {
            for candidate in check["candidates"].as_array().unwrap() {
                assert_eq!(
                    candidate["status"],
                    "measured",
                    "{nodes}×{ppn}: {candidate}\n{}",
                    out.text()
                );
            }
        }
    }
}

/// Three ranks on one node and one on another: lane and hier cannot run,
/// and the reason names the nodes and their ranks.
#[test]
fn irregular_nodes_are_named_when_lane_and_hier_are_skipped() {
    let args = [
        "verify",
        "--collective",
        "allreduce",
        "--family",
        "lane,hier",
        "--sizes",
        "64",
    ];
    let Some(out) = cluster("3,1", &args) else {
        return;
    };
    assert_eq!(out.code, Some(0), "{}", out.text());
    for family in ["allreduce_as_allreduce_lane", "allreduce_as_allreduce_hier"] {
        let line = out
            .stdout
            .lines()
            .find(|l| l.contains(family))
            .unwrap_or_else(|| panic!("{family} missing:\n{}", out.text()));
        assert!(
            line.contains("skipped") && line.contains("node1: ranks 0, 1, 2; node2: rank 3"),
            "{line}"
        );
    }
}

/// Roundtime's clocks across nodes: every rank's offset is reported.
#[test]
fn clocks_synchronise_across_emulated_nodes() {
    let Some(out) = cluster("2,2", &["clocks", "--wait", "200ms"]) else {
        return;
    };
    assert_eq!(out.code, Some(0), "{}", out.text());
    out.expect_in_stdout("clock synchronisation of 4 processes", "the clocks report");
    assert_eq!(
        out.stdout
            .lines()
            .filter(|l| l.starts_with("|    "))
            .count(),
        4,
        "one row per rank:\n{}",
        out.text()
    );
}
