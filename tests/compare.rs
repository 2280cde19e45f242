//! `pgcheck compare`: two real runs of one input side by side (offline
//! after the runs), a third run of another input that shares part of the
//! cases (its missing cells shown), and the inputs it refuses.

mod common;
use common::*;
use std::path::Path;
use std::process::{Command, Output};

const INPUT: &str = "budget: 60ms
rounds: 5
datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 64]
    competitors: [allreduce_as_reduce_bcast]
  - collective: bcast
    sizes: [8]
    root: 1
    competitors: [bcast_as_scatter_allgather]
";

/// The same input with the bcast at another root: it shares the allreduce
/// cases only.
const OTHER_ROOT: &str = "budget: 60ms
rounds: 5
datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 64]
    competitors: [allreduce_as_reduce_bcast]
  - collective: bcast
    sizes: [8]
    root: 0
    competitors: [bcast_as_scatter_allgather]
";

/// A run of `yaml` on 2 processes, written to `dir/name`.
fn run(dir: &Path, name: &str, yaml: &str) -> String {
    let file = input(dir, &format!("{name}.yaml"), yaml);
    let out = Launch::new(2, &["run", &file])
        .output(&dir.join(name))
        .run();
    assert!(
        matches!(out.code, Some(0 | 1 | 9)),
        "the run {name} failed:\n{}",
        out.text()
    );
    out.out_dir().to_string_lossy().into_owned()
}

fn compare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("compare")
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The median `default` has for `case` in a run's results.json.
fn default_median(dir: &str, collective: &str, size: u64) -> f64 {
    let results = results(Path::new(dir));
    let check = results["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["collective"] == collective && c["size_bytes"] == size)
        .unwrap();
    check["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "default")
        .unwrap()["round_median_s"]
        .as_f64()
        .unwrap()
}

#[test]
fn two_runs_side_by_side_with_the_faster_starred() {
    let dir = scratch("compare-two");
    let a = run(&dir, "a", INPUT);
    let b = run(&dir, "b", INPUT);
    let files = dir.join("cmp");
    let out = compare(&[&a, &b, "--output", files.to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    let library = results(Path::new(&a))["meta"]["mpi_library"]
        .as_str()
        .unwrap()
        .to_string();
    let short = library.split([',', '\n']).next().unwrap();
    let short: Vec<&str> = short
        .split_whitespace()
        .filter(|w| !w.eq_ignore_ascii_case("version:"))
        .collect();
    assert!(
        text.contains(&short.join(" ")),
        "no column named after {library:?}:\n{text}"
    );
    assert!(text.contains("every case: int32 sum"), "{text}");
    for case in ["allreduce 8 B", "allreduce 64 B", "bcast 8 B root 1"] {
        let line = text
            .lines()
            .find(|l| l.contains(case))
            .unwrap_or_else(|| panic!("{case} missing:\n{text}"));
        // The faster run's median carries the star.
        let (size, collective) = match case {
            "allreduce 64 B" => (64, "allreduce"),
            "allreduce 8 B" => (8, "allreduce"),
            _ => (8, "bcast"),
        };
        let (ma, mb) = (
            default_median(&a, collective, size),
            default_median(&b, collective, size),
        );
        // The two medians' units, in column order (a run may be in ms
        // while the other is in µs); the faster one's carries the star.
        let units: Vec<&str> = line
            .split_whitespace()
            .filter(|w| ["ns", "µs", "ms", "s"].contains(&w.trim_end_matches('*')))
            .collect();
        assert_eq!(units.len(), 2, "{case}: two medians in\n{line}");
        let (a_starred, b_starred) = (units[0].ends_with('*'), units[1].ends_with('*'));
        assert_eq!(
            (a_starred, b_starred),
            (ma <= mb, mb <= ma),
            "{case}: a {ma}, b {mb}, but\n{line}"
        );
    }
    let md = std::fs::read_to_string(files.join("compare.md")).unwrap();
    assert!(md.contains("| case |") && md.contains("**"), "{md}");
    assert_eq!(md.matches(&format!("`{a}`")).count(), 1, "{md}");
    let svg = std::fs::read_to_string(files.join("compare.svg")).unwrap();
    assert!(svg.starts_with("<?xml") && svg.contains("bcast 8 B root 1"));

    // A run of another root shares the allreduce cases: its bcast is
    // missing from the others, theirs from it.
    let c = run(&dir, "c", OTHER_ROOT);
    let out = compare(&[&a, &c, "--format", "markdown"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let md = stdout(&out);
    let row = |case: &str| {
        md.lines()
            .find(|l| l.starts_with(&format!("| {case} |")))
            .unwrap()
            .to_string()
    };
    assert!(row("bcast 8 B root 0").contains("| — |"), "{md}");
    assert!(row("bcast 8 B root 1").ends_with("| — |"), "{md}");
    assert!(!row("allreduce 8 B").contains('—'), "{md}");
    assert!(md.contains("1 missing"), "{md}");
}

#[test]
fn refuses_runs_without_a_common_case_and_unreadable_ones() {
    let dir = scratch("compare-refused");
    let a = run(&dir, "a", INPUT);
    let other = run(
        &dir,
        "other",
        "budget: 60ms\nrounds: 5\nchecks:\n  - collective: gather\n    sizes: [8]\n    competitors: [gather_as_gatherv]\n",
    );
    let out = compare(&[&a, &other]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("share no case"), "{}", stderr(&out));
    assert!(stdout(&out).is_empty());

    let missing = dir.join("nothing-here");
    let out = compare(&[&a, missing.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nothing-here"), "{}", stderr(&out));

    let out = compare(&[&a]);
    assert_eq!(out.status.code(), Some(2), "one run is no comparison");
}
