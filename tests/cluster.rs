//! Emulated nodes (`ci/cluster`): every node a host of its own with its own
//! hostname, TCP between nodes. The topology comes from the MPI library
//! alone (no `--ppn`), and lane and hierarchical candidates run across
//! real node boundaries.

mod common;
use common::*;
use std::process::Command;
use std::time::Duration;

const INPUT: &str = "budget: 30ms\nrounds: 6\nchecks:\n  - collective: allreduce\n    sizes: [64]\n    competitors: [allreduce_as_allreduce_lane, allreduce_as_allreduce_hier]\n  - collective: bcast\n    sizes: [64]\n    root: 1\n    competitors: [bcast_as_bcast_lane, bcast_as_bcast_hier]\n";

/// Whether this machine lets us unshare a UTS namespace; says SKIPPED if not.
fn can_emulate() -> bool {
    let can = Command::new("unshare")
        .args(["-u", "true"])
        .status()
        .is_ok_and(|s| s.success());
    if !can {
        eprintln!("SKIPPED: `unshare -u` is not permitted here, so nodes cannot be emulated");
    }
    can
}

/// `ci/cluster` with `placement` (ranks per node) running `args` on the
/// built binary; None where this machine cannot make UTS namespaces.
fn cluster(placement: &str, args: &[&str]) -> Option<Outcome> {
    if !can_emulate() {
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

/// A process of this machine: its pid, UTS namespace and MPI rank (from the
/// launcher's environment), for pgcheck's ranks.
struct Rank {
    pid: u32,
    uts: String,
    rank: usize,
}

/// Every process of this machine: its pid, /proc directory and UTS namespace.
fn processes() -> impl Iterator<Item = (u32, std::path::PathBuf, String)> {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_string_lossy().parse::<u32>().ok()?;
            let uts = std::fs::read_link(e.path().join("ns/uts")).ok()?;
            Some((pid, e.path(), uts.to_string_lossy().into_owned()))
        })
}

/// pgcheck's ranks, with their rank from the launcher's environment.
fn ranks() -> Vec<Rank> {
    processes()
        .filter(|(_, proc, _)| {
            std::fs::read_to_string(proc.join("comm")).is_ok_and(|c| c.trim() == "pgcheck")
        })
        .filter_map(|(pid, proc, uts)| {
            let environ = std::fs::read(proc.join("environ")).ok()?;
            let rank = String::from_utf8_lossy(&environ)
                .split('\0')
                .find_map(|v| {
                    v.strip_prefix("OMPI_COMM_WORLD_RANK=")
                        .or_else(|| v.strip_prefix("PMI_RANK="))?
                        .parse()
                        .ok()
                })?;
            Some(Rank { pid, uts, rank })
        })
        .collect()
}

/// Every process in the UTS namespace `uts`: an emulated node's daemon, its
/// shell and its ranks.
fn processes_of_node(uts: &str) -> Vec<u32> {
    processes()
        .filter(|(_, _, ns)| ns == uts)
        .map(|(pid, _, _)| pid)
        .collect()
}

/// Kills the last rank, alone or with its whole node (SIGKILL), once the
/// run has finished two cases: the job ends by itself within seconds, and
/// the finished cases are in raw.csv and a results.json marked incomplete.
fn kill_during_a_run(name: &str, whole_node: bool) {
    if !can_emulate() {
        return;
    }
    let dir = scratch(name);
    let input = input(
        &dir,
        "long.yaml",
        "budget: 1s\nrounds: 4\nsync: barrier\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512, 4096, 32768]\n    competitors: [allreduce_as_reduce_bcast]\n",
    );
    let out_dir = dir.join("out");
    let mut command = Command::new("bash");
    command
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/ci/cluster"))
        .args(["run", &input, "--output", out_dir.to_str().unwrap()])
        .env("PLACEMENT", "2,2")
        .env("BIN", env!("CARGO_BIN_EXE_pgcheck"));
    let mut child = Launch::from_command(command, Duration::from_secs(120)).spawn();
    let two_cases_done = || {
        std::fs::read_to_string(out_dir.join("results.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|r| r["checks"].as_array().is_some_and(|c| c.len() >= 2))
    };
    let start = std::time::Instant::now();
    while !two_cases_done() {
        assert!(start.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(50));
    }
    let victim = ranks()
        .into_iter()
        .find(|r| r.rank == 3)
        .expect("rank 3 runs");
    let ours = std::fs::read_link("/proc/self/ns/uts").unwrap();
    assert_ne!(
        victim.uts,
        ours.to_string_lossy(),
        "rank 3 runs on an emulated node"
    );
    let pids = match whole_node {
        true => processes_of_node(&victim.uts),
        false => vec![victim.pid],
    };
    let killed = std::time::Instant::now();
    for pid in &pids {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(30),
            "the job hangs after the kill"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        !status.success(),
        "a killed rank is a failed job: {status:?}"
    );
    let r = results(&out_dir);
    assert_eq!(r["complete"], false);
    let finished = r["checks"].as_array().unwrap().len();
    assert!(
        (2..5).contains(&finished),
        "{finished} cases in results.json"
    );
    let raw = std::fs::read_to_string(out_dir.join("raw.csv")).unwrap();
    let rows: Vec<&str> = raw.lines().skip(1).collect();
    assert!(rows.iter().all(|l| l.split(',').count() == 9), "whole rows");
    for size in ["8", "64"] {
        let prefix = format!("allreduce,{size},");
        assert!(rows.iter().any(|l| l.starts_with(&prefix)), "{size} B kept");
    }
}

#[test]
fn a_killed_node_ends_the_job_and_keeps_finished_checks() {
    kill_during_a_run("cluster-kill-node", true);
}

#[test]
fn a_killed_rank_ends_the_job_and_keeps_finished_checks() {
    kill_during_a_run("cluster-kill-rank", false);
}
