//! The tests' launch helper (`tests/common`): a launch killed at its
//! timeout leaves no process of it behind.

mod common;
use common::*;
use std::time::{Duration, Instant};

/// A run far longer than its timeout is killed whole: the launcher and
/// every rank it started (a process group of their own), not only the
/// launcher, whose ranks would otherwise poll on.
#[test]
fn a_launch_killed_at_its_timeout_leaves_no_process_of_its_group() {
    let dir = scratch("launch-timeout");
    let yaml = "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [allreduce_as_reduce_bcast]\n";
    let out = Launch::check(2, &dir, yaml)
        .args(&["--budget", "120s", "--rounds", "100000"])
        .report_only()
        .timeout(Duration::from_secs(6))
        .run();
    assert_eq!(
        out.code,
        None,
        "the run ended before its timeout\n{}",
        out.text()
    );
    // The launcher and its ranks (Open MPI puts each rank into a process
    // group of its own: killing the launcher's group alone leaves them).
    assert!(
        out.killed.len() > 2,
        "the launcher and 2 ranks were running: {:?}",
        out.killed
    );
    // SIGKILL takes effect at once; a moment for the kernel to let go.
    // Open MPI's ranks left alone notice their launcher gone only after
    // about a second.
    let start = Instant::now();
    let mut left = alive(&out.killed);
    while !left.is_empty() && start.elapsed() < Duration::from_millis(200) {
        std::thread::sleep(Duration::from_millis(10));
        left = alive(&out.killed);
    }
    let described: Vec<String> = left
        .iter()
        .map(|pid| {
            let cmd = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            format!("{pid}: {}", cmd.replace('\0', " "))
        })
        .collect();
    assert!(
        described.is_empty(),
        "alive after the timeout (launcher group {}):\n{}",
        out.pgid,
        described.join("\n")
    );
    assert!(alive_in_group(out.pgid).is_empty());
}
