//! The point-to-point and one-sided operations (`send`, `put`, `get`, in a
//! ping-pong and a halo): every candidate verified on 2 to 9 processes, a
//! fault in `MPI_Put` or `MPI_Ssend` caught where it is used and only
//! there, a slowed send found violated, every window freed.

mod common;
use common::*;

const OPERATIONS: [&str; 6] = ["send", "send_halo", "put", "put_halo", "get", "get_halo"];

/// Every transfer's `default` and competitors against the reference, at
/// verify's sizes (0 and 1 element, sizes not divisible by anything), with
/// datatypes rotated over the process counts.
#[test]
fn transfers_match_on_two_to_nine_processes() {
    const DATATYPES: [&str; 5] = ["byte", "int32", "float64", "int64", "float32"];
    for (i, np) in [2, 3, 4, 5, 7, 8, 9].into_iter().enumerate() {
        let datatype = DATATYPES[i % DATATYPES.len()];
        // The operator means nothing to a transfer; sum applies to all.
        let args = [
            "--family",
            "transfer",
            "--datatype",
            datatype,
            "--op",
            "sum",
        ];
        let out = assert_verifies(np, &args);
        let counts = VerifyCounts::of(&out);
        for operation in OPERATIONS {
            let row = counts.rows[&(operation.to_string(), "default".to_string())];
            assert!(
                row.0 > 0 && row.1 == 0,
                "{operation}: {row:?}\n{}",
                out.text()
            );
        }
        for name in [
            "send_as_split",
            "puthalo_as_lock",
            "gethalo_as_send",
            "get_as_flush",
        ] {
            assert!(
                counts.rows.keys().any(|(_, c)| c == name),
                "{name} verified\n{}",
                out.text()
            );
        }
    }
}

/// One process has no one to send to: `run` refuses before measuring,
/// `verify` leaves the transfers out unless they are asked for.
#[test]
fn one_process_is_refused_for_a_transfer() {
    let out = Launch::new(1, &["run", "--operation", "send", "--sizes", "8"]).run();
    assert_eq!(out.code, Some(2), "{}", out.text());
    out.expect_in_stderr("send needs two processes or more", "why");
    let out = Launch::new(1, &["verify", "--family", "transfer"]).run();
    assert_eq!(VerifyCounts::of(&out).cases, 0, "{}", out.text());
    let out = Launch::new(1, &["verify", "--collective", "put"]).run();
    assert_eq!(out.code, Some(2), "{}", out.text());
}

/// `MPI_Put` sends a corrupted copy of its data: the library's fence
/// ping-pong and halo are wrong, and so are the passive-target competitors
/// built from the same put (lock, flush); the competitors built from sends are right.
/// `MPI_Ssend` corrupted: only the competitors that use it are wrong.
#[test]
fn a_corrupted_put_or_ssend_fails_only_what_uses_it() {
    let verify = |collectives: &str, fault: &str| {
        let args = ["verify", "--collective", collectives, "--sizes", "8,1000"];
        let out = Launch::new(3, &args).fault(fault).run();
        assert_eq!(out.code, Some(3), "{}", out.text());
        out
    };
    let out = verify("put,put_halo", "MPI_Put:flip");
    let counts = VerifyCounts::of(&out);
    let row = |operation: &str, name: &str| counts.rows[&(operation.into(), name.into())];
    for (operation, prefix) in [("put", "put"), ("put_halo", "puthalo")] {
        assert_eq!(row(operation, "default"), (0, 2, 0), "{}", out.text());
        for sync in ["lock", "flush"] {
            let passive = format!("{prefix}_as_{sync}");
            assert_eq!(row(operation, &passive), (0, 2, 0), "{}", out.text());
        }
        let send = format!("{prefix}_as_send");
        assert_eq!(row(operation, &send), (2, 0, 0), "{}", out.text());
    }
    out.expect_in_stdout("the library's", "the library's call is named wrong");

    let out = verify("send,send_halo", "MPI_Ssend:saturate");
    let counts = VerifyCounts::of(&out);
    let failed: Vec<_> = counts
        .rows
        .iter()
        .filter(|(_, &(_, failed, _))| failed > 0)
        .map(|((_, name), _)| name.as_str())
        .collect();
    assert_eq!(
        failed,
        ["send_as_ssend", "sendhalo_as_ssend"],
        "{}",
        out.text()
    );
}

/// Known truth: the library's send made 4 times slower (a test-only
/// slowdown of `default`) is violated by `MPI_Isend` + `MPI_Wait`.
#[test]
fn a_slowed_send_is_violated_by_isend_and_wait() {
    let dir = scratch("transfer-slowed");
    let out = Launch::new(
        2,
        &[
            "run",
            "--operation",
            "send",
            "--sizes",
            "1KiB",
            "--competitors",
            "send_as_isend_wait",
            "--budget",
            "300ms",
        ],
    )
    .output(&dir)
    .env("PGCHECK_TEST_SLOW_DEFAULT", "4")
    .run();
    assert_eq!(out.code, Some(1), "{}", out.text());
    let check = &out.results()["checks"][0];
    assert_eq!(check["verdict"], "violated", "{check}");
    assert_eq!(check["violated_by"], "send_as_isend_wait", "{check}");
    let slowdown = check["slowdown"].as_f64().unwrap();
    assert!(slowdown > 1.5, "a 4× slower send read {slowdown}×");
}

/// The input: send at 8 B, 4 KiB and 64 KiB, put at 8 B and
/// 64 KiB, on 2 ranks: every case measured with at least two verified
/// candidates, each with a verdict; `list` names the operations.
#[test]
fn send_and_put_cases_are_measured_and_decided() {
    let dir = scratch("transfer-run");
    let input = dir.join("transfer.yaml");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        &input,
        "budget: 60ms\nchecks:\n  - operation: send\n    sizes: [8, 4KiB, 64KiB]\n  \
         - operation: put\n    sizes: [8, 64KiB]\n",
    )
    .unwrap();
    let out = Launch::new(2, &["run", input.to_str().unwrap()])
        .output(&dir)
        .report_only()
        .run();
    assert!(matches!(out.code, Some(0 | 9)), "{}", out.text());
    let results = out.results();
    let checks = results["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 5, "{results}");
    for check in checks {
        let measured = check["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["verified"] == true && c["median_s"].as_f64().is_some_and(|m| m > 0.0))
            .count();
        assert!(measured >= 2, "{check}");
        assert!(check["verdict"].is_string(), "{check}");
    }
    let list = Launch::new(1, &["list"]).run();
    for name in [
        "send_as_ssend",
        "put_as_lock",
        "(23)",
        "MPI_Send ⪯ MPI_Ssend",
    ] {
        list.expect_in_stdout(name, "list names the transfers");
    }
}

/// 100 cases of put and get (each candidate's window created again every
/// round where the harness moves the buffers): every window created is
/// freed, on every rank.
#[test]
fn every_window_is_freed() {
    let sizes: Vec<String> = (1..=50).map(|s| s.to_string()).collect();
    let dir = scratch("transfer-windows");
    let input = dir.join("windows.yaml");
    std::fs::create_dir_all(&dir).unwrap();
    let sizes = sizes.join(", ");
    std::fs::write(
        &input,
        format!(
            "budget: 2ms\nchecks:\n  - operation: put\n    sizes: [{sizes}]\n  \
             - operation: get_halo\n    sizes: [{sizes}]\n"
        ),
    )
    .unwrap();
    let out = Launch::new(2, &["run", input.to_str().unwrap()])
        .output(&dir)
        .report_only()
        .env("PGCHECK_COUNT_WINDOWS", "1")
        .fault("")
        .run();
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    assert_eq!(out.results()["checks"].as_array().unwrap().len(), 100);
    let counts: Vec<(u64, u64)> = out
        .stderr
        .lines()
        .filter_map(|l| l.split("pmpi_faults: rank ").nth(1))
        .map(|l| {
            let numbers: Vec<u64> = l
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            (numbers[1], numbers[2])
        })
        .collect();
    assert_eq!(counts.len(), 2, "{}", out.text());
    for (created, freed) in counts {
        assert!(created >= 200, "{created} windows for 100 cases");
        assert_eq!(created, freed, "{}", out.text());
    }
}
