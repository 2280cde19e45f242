//! `pgcheck history` on synthetic runs: twelve results.json files with known
//! start times and `default` medians, a 1.5× step in one case from the
//! sixth launch on, the others flat. Offline: no mpirun.

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A case of a results.json whose `default` took `median_s` (median of
/// per-round medians).
fn check(collective: &str, size: u64, median_s: f64) -> Value {
    json!({
        "collective": collective,
        "size_bytes": size,
        "count": size,
        "datatype": "byte",
        "op": "bor",
        "root": 0,
        "verdict": "holds",
        "candidates": [{
            "name": "default",
            "status": "measured",
            "verified": true,
            "n": 100,
            "outliers_removed": 0,
            "median_s": median_s,
            "round_median_s": median_s,
            "q1_s": median_s * 0.98,
            "q3_s": median_s * 1.02,
            "slowdown": null,
            "p_value": null,
            "p_adjusted": null,
            "significant": false,
            "below_noise": false,
        }],
        "slowdown": null,
        "p_value": null,
        "fastest": null,
        "severity": "ok",
        "violated_by": null,
    })
}

/// Twelve runs in `dir`, named so that name order is not start order.
/// Launch `i` (0-based, in start order): allreduce 8 B takes 10 µs, 15 µs
/// from launch 5 (the sixth) on; allreduce 64 B 12 µs and bcast 8 B 5 µs
/// throughout; every median within ±1 %. Returns the runs' names in start
/// order.
fn write_runs(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for i in 0..12usize {
        // Names run backwards in time: z-00 is the last launch.
        let name = format!("z-{:02}", 11 - i);
        let wobble = 1.0 + 0.01 * (((i * 7) % 5) as f64 - 2.0) / 2.0;
        let step = if i >= 5 { 1.5 } else { 1.0 };
        let results = json!({
            "meta": {
                "start_time": format!("2025-03-{:02}T12:00:00Z", i + 1),
                "mpi_library": "Test MPI 1.0, synthetic",
            },
            "complete": true,
            "checks": [
                check("allreduce", 8, 10e-6 * step * wobble),
                check("allreduce", 64, 12e-6 * wobble),
                check("bcast", 8, 5e-6 / wobble),
            ],
        });
        let run = dir.join(&name);
        std::fs::create_dir_all(&run).unwrap();
        std::fs::write(
            run.join("results.json"),
            serde_json::to_string_pretty(&results).unwrap(),
        )
        .unwrap();
        names.push(name);
    }
    names
}

fn history(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("history")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn finds_the_step_at_its_launch_in_its_case_only() {
    let dir = scratch("history-step");
    let runs = dir.join("runs");
    let names = write_runs(&runs);
    let files = dir.join("out");
    let out = history(&[
        runs.to_str().unwrap(),
        "--format",
        "json",
        "--output",
        files.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let in_order: Vec<&str> = json["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(in_order, names, "ordered by start time, not by name");
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 3);
    for case in cases {
        let changes = case["changes"].as_array().unwrap();
        let stepped = case["collective"] == "allreduce" && case["size_bytes"] == 8;
        if !stepped {
            assert!(changes.is_empty(), "a flat case changed: {case}");
            continue;
        }
        assert_eq!(changes.len(), 1, "{case}");
        let change = &changes[0];
        assert_eq!(change["index"], 5, "{change}");
        assert_eq!(change["before"], names[4].as_str());
        assert_eq!(change["after"], names[5].as_str());
        let ratio = change["ratio"].as_f64().unwrap();
        assert!((ratio - 1.5).abs() < 0.03, "{change}");
        assert!(change["p_value"].as_f64().unwrap() < 0.05, "{change}");
    }
    for file in ["history.svg", "history.md", "history.json"] {
        let written =
            std::fs::read_to_string(files.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(written.contains("MPI_Allreduce 8 B"), "{file}");
    }
    let svg = std::fs::read_to_string(files.join("history.svg")).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("×1.5"), "{svg}");

    let table = history(&[runs.to_str().unwrap()]);
    assert_eq!(table.status.code(), Some(0), "{}", text(&table));
    let table = String::from_utf8_lossy(&table.stdout).into_owned();
    let row = table
        .lines()
        .find(|l| l.contains("MPI_Allreduce 8 B"))
        .unwrap();
    assert!(
        row.contains(&format!("after {}: ×1.5", names[4])),
        "{table}"
    );
}

#[test]
fn a_short_history_finds_nothing_and_says_why() {
    let dir = scratch("history-short");
    let names = write_runs(&dir);
    // The last five launches, from launch 5 (the step) on: flat again.
    let last: Vec<String> = names[7..]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .collect();
    let args: Vec<&str> = last.iter().map(String::as_str).collect();
    let out = history(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Words, not lines: the table wraps its cells at spaces.
    let table = text(&out);
    let words = table
        .split_whitespace()
        .filter(|w| *w != "|")
        .collect::<Vec<_>>()
        .join(" ");
    assert!(words.contains("too few launches (p ≥ 0.200)"), "{table}");
}

#[test]
fn no_run_or_an_unreadable_one_is_an_input_error() {
    let dir = scratch("history-errors");
    let out = history(&[dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains(
            "neither a run (results.json, raw/, raw.csv.gz, raw.csv) nor a directory of runs"
        ),
        "{}",
        text(&out)
    );
    write_runs(&dir);
    std::fs::write(dir.join("z-03/results.json"), "{ not json").unwrap();
    let out = history(&[dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("z-03/results.json"), "{}", text(&out));
    let out = history(&[]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
