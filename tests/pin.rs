//! Ranks the launcher leaves unbound are bound by pgcheck before it
//! measures, one CPU each, distinct physical cores first (`measure::pin`);
//! `--pin none` leaves them to the scheduler; ranks the launcher bound
//! stay where it put them. What each rank ends up on is what the kernel
//! says of its threads after pinning (`Cpus_allowed_list` of every task,
//! gathered into `meta.placement.cpu_of_rank`), not what pgcheck meant to
//! do.

mod common;
use common::*;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8]
    competitors: [allreduce_as_reduce_bcast]
";

/// The launcher's options that leave every rank unbound.
fn unbound_options() -> &'static [&'static str] {
    match (is_open_mpi(), is_intel_mpi()) {
        (true, _) => &["--bind-to", "none"],
        // Intel MPI pins unless I_MPI_PIN is off, whatever -bind-to says.
        (false, true) => &["-genv", "I_MPI_PIN", "0"],
        (false, false) => &["-bind-to", "none"],
    }
}

/// The online CPUs of this host, each with its (socket, core).
fn cpus() -> BTreeMap<usize, (usize, usize)> {
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    let mut cpus = BTreeMap::new();
    for part in online.trim().split(',') {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        for cpu in a.parse::<usize>().unwrap()..=b.parse().unwrap() {
            let read = |file: &str| {
                std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{cpu}/topology/{file}"))
                    .ok()
                    .and_then(|t| t.trim().parse::<usize>().ok())
            };
            let place = read("physical_package_id").zip(read("core_id"));
            cpus.insert(cpu, place.unwrap_or((0, 1 << 20 | cpu)));
        }
    }
    cpus
}

/// `pgcheck run` of [`ALLREDUCE`] on `np` ranks with the launcher's
/// `launcher` options and pgcheck's `extra`: its outcome and
/// `meta.placement`.
fn run(name: &str, np: usize, launcher: &[&str], extra: &[&str]) -> (Outcome, Value) {
    let out = Launch::check(np, &scratch(&format!("pin-{name}")), ALLREDUCE)
        .args(&["--budget", "100ms", "--rounds", "10", "--sync", "barrier"])
        .report_only()
        .args(extra)
        .launcher_args(launcher)
        .run();
    eprintln!("{name}: status {:?} after {:.1} s", out.code, out.seconds);
    out.expect_status(0);
    let placement = out.results()["meta"]["placement"].clone();
    (out, placement)
}

/// Every rank's CPU in `placement`, asserting that each has exactly one.
fn cpu_of_each_rank(placement: &Value, np: usize, out: &Outcome) -> Vec<usize> {
    let list = placement["cpu_of_rank"].as_array().unwrap_or_else(|| {
        panic!("no cpu_of_rank: {placement}\n{}", out.text());
    });
    assert_eq!(list.len(), np, "{placement}");
    list.iter()
        .map(|cpu| {
            cpu.as_u64()
                .unwrap_or_else(|| panic!("a rank on several CPUs: {placement}\n{}", out.text()))
                as usize
        })
        .collect()
}

/// As many ranks as the host has CPUs, at most 4; None (skipped) on a
/// host of one CPU, where every rank is bound.
fn ranks_for_cpus() -> Option<usize> {
    let online = cpus().len();
    if online < 2 {
        cannot_run_here("one CPU: a rank allowed on it is bound already");
        return None;
    }
    Some(online.min(4))
}

#[test]
fn unbound_ranks_end_up_on_distinct_cores() {
    let Some(np) = ranks_for_cpus() else { return };
    let (out, placement) = run("auto", np, unbound_options(), &[]);
    assert_eq!(placement["pin"], "auto", "{placement}");
    assert_eq!(placement["pinned_ranks"], np, "{placement}\n{}", out.text());
    assert_eq!(placement["unbound_ranks"], 0, "{placement}\n{}", out.text());
    let chosen = cpu_of_each_rank(&placement, np, &out);
    let distinct: BTreeSet<usize> = chosen.iter().copied().collect();
    assert_eq!(distinct.len(), np, "no two ranks share a CPU: {chosen:?}");
    // Distinct physical cores, while there are cores.
    let topology = cpus();
    let cores: BTreeSet<(usize, usize)> = chosen.iter().map(|c| topology[c]).collect();
    let all_cores: BTreeSet<&(usize, usize)> = topology.values().collect();
    assert_eq!(
        cores.len(),
        np.min(all_cores.len()),
        "CPUs {chosen:?} on cores {cores:?} of {all_cores:?}"
    );
    out.expect_in_stderr(
        &format!("placement: {np} of {np} ranks were not bound to CPUs; pgcheck bound each"),
        "the plan says what pgcheck did",
    );
    assert!(
        !out.text().contains("ranks are not bound to CPUs"),
        "pinned ranks are not warned of as unbound:\n{}",
        out.text()
    );
}

#[test]
fn pin_none_leaves_unbound_ranks_unbound_and_warns() {
    let Some(np) = ranks_for_cpus() else { return };
    let (out, placement) = run("none", np, unbound_options(), &["--pin", "none"]);
    assert_eq!(placement["pin"], "none", "{placement}");
    assert_eq!(placement["pinned_ranks"], 0, "{placement}");
    assert_eq!(
        placement["unbound_ranks"],
        np,
        "{placement}\n{}",
        out.text()
    );
    let list = placement["cpu_of_rank"].as_array().unwrap();
    assert!(list.iter().all(Value::is_null), "{placement}");
    out.expect_in_stdout(
        &format!("WARNING: {np} of {np} ranks are not bound to CPUs"),
        "unbound ranks are warned of",
    );
    out.expect_in_stdout("leave out --pin none", "the warning names the remedy");
}

#[test]
fn more_ranks_than_cpus_are_left_to_the_scheduler_and_warned_of() {
    let cpus = cpus().len();
    let np = (cpus + 2).max(4);
    let (out, placement) = run("crowded", np, unbound_options(), &[]);
    assert_eq!(placement["pinned_ranks"], 0, "{placement}\n{}", out.text());
    assert_eq!(placement["unbound_ranks"], np, "{placement}");
    out.expect_in_stdout(
        &format!("WARNING: {np} ranks share {cpus} CPUs on a node"),
        "sharing CPUs is still warned of",
    );
    out.expect_in_stdout(
        "they outnumber the CPUs, so pgcheck left them to the scheduler",
        "why they were not pinned",
    );
}

#[test]
fn ranks_started_bound_stay_where_they_were_put() {
    let Some(np) = ranks_for_cpus() else { return };
    // Every rank starts on the last CPU alone (mpirun inherits taskset's
    // affinity and passes it on): bound, though not where pgcheck would
    // have put rank 0.
    let last = *cpus().keys().last().unwrap();
    let out = Launch::check(np, &scratch("pin-taskset"), ALLREDUCE)
        .args(&["--budget", "100ms"])
        .report_only()
        .launcher_args(unbound_options())
        .under(&["taskset", "-c", &last.to_string()])
        .run();
    out.expect_status(0);
    let placement = &out.results()["meta"]["placement"];
    assert_eq!(placement["pinned_ranks"], 0, "{placement}\n{}", out.text());
    assert_eq!(placement["unbound_ranks"], 0, "{placement}");
    let chosen = cpu_of_each_rank(placement, np, &out);
    assert_eq!(chosen, vec![last; np], "{placement}");
    assert!(!out.stderr.contains("placement:"), "{}", out.text());
}
