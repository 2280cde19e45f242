//! Nothing hangs, nothing is lost: a failing rank ends the job, a signal
//! stops the run with valid partial files, and many ranks still work.

mod common;
use common::*;
use std::time::{Duration, Instant};

#[test]
#[cfg_attr(not(feature = "testing"), ignore = "needs --features testing")]
fn a_panicking_rank_aborts_the_job_and_keeps_finished_checks() {
    let dir = scratch("fail-panic");
    // The first check completes; the second has a competitor that panics on
    // the last rank during measurement.
    let input = input(
        &dir,
        "panic.yaml",
        "budget: 200ms\nrounds: 2\ndatatype: int32\nop: sum\nchecks:\n  - collective: bcast\n    sizes: [64]\n  - collective: allreduce\n    sizes: [64]\n    competitors: [allreduce_as_allreduce_panics]\n",
    );
    let out_dir = dir.join("out");
    let out = Launch::new(
        3,
        &[
            "run",
            &input,
            "--output",
            out_dir.to_str().unwrap(),
            "--allow-powerless",
        ],
    )
    .timeout(Duration::from_secs(60))
    .run();
    // The panic hook aborts the job with Exit::Internal; both launchers
    // pass an MPI_Abort's code on.
    assert_eq!(out.code, Some(4), "{}", out.text());
    assert!(out.seconds < 30.0, "took {} s", out.seconds);
    out.expect_in_stderr("fails on purpose", "the panic message is shown");
    out.expect_in_stderr(
        "rank 2 failed; aborting the job",
        "the last rank panics and says so",
    );
    let raw = common::raw_text(&out_dir);
    assert!(
        raw.lines().any(|l| l.contains(",bcast,64,")),
        "the finished check is kept:\n{raw}"
    );
    let partial = results(&out_dir);
    assert_eq!(partial["complete"], false);
    assert_eq!(partial["checks"][0]["collective"], "bcast");
}

#[test]
fn sigterm_stops_the_run_with_partial_files_marked_incomplete() {
    let dir = scratch("fail-sigterm");
    let input = input(
        &dir,
        "long.yaml",
        "budget: 1s\nrounds: 4\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512, 4096]\n",
    );
    let out_dir = dir.join("out");
    let mut child = Launch::new(
        3,
        &[
            "run",
            &input,
            "--output",
            out_dir.to_str().unwrap(),
            "--allow-powerless",
        ],
    )
    .spawn();
    // Wait for the first check to finish, then interrupt.
    let start = Instant::now();
    while !std::fs::read_to_string(out_dir.join("results.json"))
        .is_ok_and(|t| t.contains("\"checks\""))
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no check finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // As a scheduler or Ctrl-C does: the signal goes to the whole job.
    let group = format!("-{}", child.id());
    assert!(std::process::Command::new("kill")
        .args(["-TERM", "--", &group])
        .status()
        .unwrap()
        .success());
    let stopped = Instant::now();
    let status = child.wait().unwrap();
    assert!(
        stopped.elapsed() < Duration::from_secs(20),
        "stopped within seconds"
    );
    // The ranks end with Exit::Interrupted (5); MPICH's launcher passes
    // it on, Open MPI's mpirun, signalled too, reports its own 1.
    let expected = if is_open_mpi() { 1 } else { 5 };
    assert_eq!(status.code(), Some(expected));
    let partial = results(&out_dir);
    assert_eq!(partial["complete"], false);
    let done = partial["checks"].as_array().unwrap().len();
    assert!((1..4).contains(&done), "{done} checks");
    let raw = common::raw_text(&out_dir);
    assert!(
        raw.lines().skip(1).all(|l| l.split(',').count() == 11),
        "raw/ rows are whole"
    );
}

/// The processes descending from `pid` (its children, theirs, …), from
/// /proc: Open MPI's mpirun starts its ranks itself, MPICH's through a proxy.
fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten();
    for task in tasks.flatten() {
        let children = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
            found.push(child);
            found.extend(descendants(child));
        }
    }
    found
}

/// SIGTERM to pgcheck itself (one rank, signalled past its launcher):
/// status 5 (Exit::Interrupted), which the launcher passes on, and the
/// message that says how far it got.
#[test]
fn sigterm_ends_pgcheck_with_status_5_and_says_how_far_it_got() {
    let dir = scratch("fail-sigterm-rank");
    let input = input(
        &dir,
        "long.yaml",
        "budget: 1s\nrounds: 4\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512, 4096]\n",
    );
    let out_dir = dir.join("out");
    let stderr = std::fs::File::create(dir.join("stderr")).unwrap();
    let args = ["run", &input, "--allow-powerless", "--output"];
    let mut child = Launch::new(1, &args)
        .arg(out_dir.to_str().unwrap())
        .spawn_to(stderr);
    let start = Instant::now();
    while !std::fs::read_to_string(out_dir.join("results.json"))
        .is_ok_and(|t| t.contains("\"checks\""))
    {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no check finished"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let rank = descendants(child.id())
        .into_iter()
        .find(|p| {
            std::fs::read_to_string(format!("/proc/{p}/comm")).is_ok_and(|c| c.trim() == "pgcheck")
        })
        .expect("the rank runs under the launcher");
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &rank.to_string()])
        .status()
        .unwrap()
        .success());
    let status = child.wait().unwrap();
    let stderr = std::fs::read_to_string(dir.join("stderr")).unwrap();
    assert_eq!(status.code(), Some(5), "{stderr}");
    let done = results(&out_dir)["checks"].as_array().unwrap().len();
    assert!(
        stderr.contains(&format!(
            "pgcheck: interrupted after {done} of 4 cases; the files hold what was measured\n"
        )),
        "{stderr}"
    );
}

#[test]
fn sixteen_and_thirty_two_ranks_complete_a_small_check() {
    // Barrier synchronisation: 32 busy-polling MPICH ranks on two cores
    // start every roundtime observation late (the run then says so and
    // exits 6); this test is about completing, not about timing.
    for np in [16, 32] {
        let dir = scratch(&format!("scale-{np}"));
        let input = input(
            &dir,
            "small.yaml",
            "budget: 50ms\nrounds: 2\nsync: barrier\nchecks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: all\n  - collective: bcast\n    sizes: [64]\n    root: 5\n    competitors: all\n",
        );
        let out_dir = dir.join("out");
        let out = Launch::new(
            np,
            &[
                "run",
                &input,
                "--output",
                out_dir.to_str().unwrap(),
                "--ppn",
                "4",
                "--allow-powerless",
            ],
        )
        .report_only()
        .timeout(Duration::from_secs(240))
        .run();
        assert_eq!(out.code, Some(0), "{}", out.text());
        // Too few rounds to flag anything: said once, in the report's answer.
        assert_eq!(
            out.text().matches("with 2 rounds").count(),
            1,
            "{}",
            out.text()
        );
        out.expect_in_stdout("WARNING: with 2 rounds", "");
        let r = results(&out_dir);
        assert_eq!(r["meta"]["processes"], np);
        assert_eq!(r["meta"]["nodes"], np / 4);
        for check in r["checks"].as_array().unwrap() {
            for c in check["candidates"].as_array().unwrap() {
                assert_ne!(c["status"], "wrong", "{c}");
            }
        }
    }
}

/// A file system that fills up while the reports are written: the error
/// names the file, the status is 4, and what was written before stays whole.
/// The full disk is `/dev/full` behind the temporary name of one file
/// (results.json is rewritten after every case, and a failed write removes
/// its temporary file: the files written once show it).
#[test]
fn a_full_disk_is_named_and_leaves_no_half_written_file() {
    let cases: [(&str, &[&str]); 2] = [
        ("report.md", &["raw", "results.json", "summary.csv"]),
        ("summary.csv", &["raw", "results.json"]),
    ];
    for (full, written) in cases {
        let dir = scratch(&format!("fail-full-{full}"));
        let input = input(
            &dir,
            "small.yaml",
            "budget: 20ms\nrounds: 6\nchecks:\n  - collective: bcast\n    sizes: [8]\n",
        );
        let out_dir = dir.join("out");
        std::fs::create_dir_all(&out_dir).unwrap();
        std::os::unix::fs::symlink("/dev/full", out_dir.join(format!(".{full}.tmp"))).unwrap();
        let out = Launch::new(2, &["run", &input, "--output", out_dir.to_str().unwrap()])
            .timeout(Duration::from_secs(60))
            .run();
        assert_eq!(out.code, Some(4), "{}", out.text());
        out.expect_in_stderr(
            &format!("cannot write {}", out_dir.join(full).display()),
            "the error names the file",
        );
        out.expect_in_stderr("No space left on device", "and says why");
        for name in written {
            let text = match *name {
                "raw" => raw_text(&out_dir),
                _ => std::fs::read_to_string(out_dir.join(name)).unwrap(),
            };
            assert!(text.contains("bcast"), "{name} is whole:\n{text}");
        }
        assert_eq!(results(&out_dir)["complete"], true);
        assert!(!out_dir.join(full).exists(), "no half-written {full}");
    }
}

/// Runs `script` (sh) in a mount namespace of its own with arguments `args`
/// and the launch of `pgcheck ARGS` on two ranks after them; None where
/// this machine does not let us mount a tmpfs there (`cannot_run_here`).
fn in_mount_namespace(script: &str, args: &[&str], pgcheck_args: &[&str]) -> Option<Outcome> {
    let probe = scratch("fail-ro-probe");
    let mountable = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "mount", "-t", "tmpfs"])
        .args(["-o", "ro,size=1m", "pgcheck-probe", probe.to_str().unwrap()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mountable {
        cannot_run_here("cannot mount a tmpfs in a mount namespace of our own here");
        return None;
    }
    let mut wrapper = vec![
        "unshare",
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        script,
        "sh",
    ];
    wrapper.extend_from_slice(args);
    Some(
        Launch::new(2, pgcheck_args)
            .under(&wrapper)
            .timeout(Duration::from_secs(120))
            .run(),
    )
}

/// The output directory's file system turns read-only in the middle of a
/// run (a small tmpfs, remounted read-only once results.json holds a case):
/// every later write is refused, the error names the file, the status is 4,
/// and the files written before stay whole. A run that starts on the
/// read-only file system stops before measuring, naming the directory, and
/// leaves a previous run's files as they were.
#[test]
fn a_read_only_disk_is_named_and_leaves_the_files_written_before() {
    let dir = scratch("fail-read-only");
    let input = input(
        &dir,
        "three.yaml",
        "budget: 500ms\nrounds: 4\nchecks:\n  - collective: allreduce\n    sizes: [8, 64, 512]\n    competitors: [allreduce_as_reduce_bcast]\n",
    );
    let (mount, after) = (dir.join("disk"), dir.join("after"));
    let (mount_s, after_s) = (mount.to_str().unwrap(), after.to_str().unwrap());
    std::fs::create_dir_all(&mount).unwrap();
    std::fs::create_dir_all(&after).unwrap();
    // Mount, run in the background, remount read-only (retried while a file
    // is open for writing), then copy what the disk holds to `after`.
    let midway = r#"disk=$1 after=$2; shift 2
mount -t tmpfs -o size=64m pgcheck-ro "$disk" || exit 97
"$@" & job=$!
until grep -q '"collective"' "$disk/results.json" 2>/dev/null; do
  kill -0 $job 2>/dev/null || break; sleep 0.05
done
tries=0
until mount -o remount,ro "$disk" 2>/dev/null; do
  tries=$((tries + 1)); [ $tries -lt 500 ] || exit 98; sleep 0.01
done
wait $job; status=$?
cp -a "$disk/." "$after/"
exit $status"#;
    let args = ["run", &input, "--output", mount_s, "--allow-powerless"];
    let Some(out) = in_mount_namespace(midway, &[mount_s, after_s], &args) else {
        return;
    };
    assert_eq!(out.code, Some(4), "{}", out.text());
    out.expect_in_stderr(
        &format!("cannot write {}/results.json", mount_s),
        "the error names the file",
    );
    out.expect_in_stderr("Read-only file system", "and says why");
    let r = results(&after);
    assert_eq!(r["complete"], false, "the last results.json written");
    let kept = r["checks"].as_array().unwrap().len();
    assert!((1..3).contains(&kept), "{kept} cases kept");
    let raw = common::raw_text(&after);
    assert!(raw.lines().skip(1).all(|l| l.split(',').count() == 11));
    assert!(
        raw.contains("allreduce,8,"),
        "the first case is kept:\n{raw}"
    );
    assert!(
        !after.join("report.md").exists(),
        "no report of a whole run"
    );

    // The same directory read-only from the start.
    let (before, again) = (after, dir.join("again"));
    std::fs::create_dir_all(&again).unwrap();
    let from_start = r#"disk=$1 before=$2 after=$3; shift 3
mount -t tmpfs -o size=64m pgcheck-ro "$disk" && cp -a "$before/." "$disk/" &&
  mount -o remount,ro "$disk" || exit 97
"$@"; status=$?
cp -a "$disk/." "$after/"
exit $status"#;
    let dirs = [mount_s, before.to_str().unwrap(), again.to_str().unwrap()];
    let out = in_mount_namespace(from_start, &dirs, &args).unwrap();
    assert_eq!(out.code, Some(2), "{}", out.text());
    out.expect_in_stderr(
        &format!("output directory {mount_s}: Read-only file system"),
        "the error names the directory and says why",
    );
    assert_eq!(
        std::fs::read(before.join("results.json")).unwrap(),
        std::fs::read(again.join("results.json")).unwrap(),
        "results.json as the previous run left it"
    );
    assert_eq!(
        common::raw_text(&before),
        common::raw_text(&again),
        "raw/ as the previous run left it"
    );
}
