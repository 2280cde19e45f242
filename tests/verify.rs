//! `pgcheck verify`: every competitor against the library's own collective,
//! for many process counts, sizes (0 and 1 element, below p, not divisible
//! by p, above 1 MiB), roots (first, middle, last), datatypes and operators.

mod common;
use common::*;

/// (datatype, op) classes, rotated over the process counts so that each
/// is covered without running every combination everywhere.
const CLASSES: [(&str, &str); 7] = [
    ("byte", "bor"),
    ("int32", "sum"),
    ("float64", "prod"),
    ("int64", "bxor"),
    ("float32", "min"),
    ("byte", "max"),
    ("int32", "band"),
];

#[test]
fn mockups_match_the_library() {
    for (i, np) in [1, 2, 3, 4, 5, 7, 8].into_iter().enumerate() {
        let (datatype, op) = CLASSES[i % CLASSES.len()];
        let out = assert_verifies_elements(np, &["--family", "mockup"], datatype, op);
        out.expect_in_stdout("allreduce_as_reduce_bcast", "");
    }
}

#[test]
fn mockups_match_with_sums_of_every_datatype() {
    for datatype in ["byte", "int64", "float32", "float64"] {
        assert_verifies(
            5,
            &[
                "--family",
                "mockup",
                "--datatype",
                datatype,
                "--op",
                "sum",
                "--roots",
                "first,last",
            ],
        );
    }
}

#[test]
fn lane_and_hier_match_on_virtual_nodes() {
    let cases = [(4, 2), (6, 2), (6, 3), (8, 2), (8, 4), (9, 3)];
    for (i, (np, ppn)) in cases.into_iter().enumerate() {
        let (datatype, op) = CLASSES[(i + 1) % CLASSES.len()];
        let ppn = ppn.to_string();
        let out = assert_verifies_elements(
            np,
            &[
                "--family",
                "lane,hier",
                "--ppn",
                &ppn,
                "--roots",
                "first,middle,last,1",
            ],
            datatype,
            op,
        );
        out.expect_in_stdout("allreduce_as_allreduce_lane", "");
        out.expect_in_stdout(", 0 skipped", "nothing skipped with --ppn");
    }
}

#[test]
fn lane_and_hier_are_skipped_with_a_reason_on_one_node() {
    let out = pgcheck(
        4,
        &[
            "verify",
            "--family",
            "lane,hier",
            "--collective",
            "allreduce",
            "--sizes",
            "8",
        ],
    );
    assert_eq!(out.code, Some(0), "{}", out.text());
    out.expect_in_stdout("one node", "the reason is given");
    // One case: the library's call verified, lane and hier skipped.
    let counts = VerifyCounts::of(&out);
    assert_eq!((counts.cases, counts.failed, counts.skipped), (1, 0, 2));
    let row = |name: &str| counts.rows[&("allreduce".to_string(), name.to_string())];
    assert_eq!(row("default"), (1, 0, 0));
    assert_eq!(row("allreduce_as_allreduce_lane"), (0, 0, 1));
    assert_eq!(row("allreduce_as_allreduce_hier"), (0, 0, 1));
}

#[test]
fn circulant_matches_on_one_to_nine_processes() {
    for np in 1..=9 {
        let (datatype, op) = CLASSES[np % CLASSES.len()];
        let out = assert_verifies_elements(np, &["--family", "circulant"], datatype, op);
        out.expect_in_stdout("allreduce_as_allreduce_circulant", "");
    }
}

/// The nonblocking collectives (`MPI_Ixxx` + `MPI_Wait`), the library's
/// own and their competitors, on 1 to 9 processes. (No byte max/min:
/// MPICH 4.0.2's own bug there is tested with the blocking ones.)
#[test]
fn nonblocking_collectives_match_on_one_to_nine_processes() {
    const CLASSES: [(&str, &str); 5] = [
        ("int32", "sum"),
        ("float64", "prod"),
        ("int64", "bxor"),
        ("float32", "min"),
        ("byte", "bor"),
    ];
    for (i, np) in [1, 2, 3, 5, 7, 8, 9].into_iter().enumerate() {
        let (datatype, op) = CLASSES[i % CLASSES.len()];
        let out = assert_verifies_elements(np, &["--family", "nonblocking"], datatype, op);
        let counts = VerifyCounts::of(&out);
        for (operation, name) in [
            ("ireduce_scatter", "default"),
            ("iallreduce", "iallreduce_as_ireduce_ibcast"),
        ] {
            let key = (operation.to_string(), name.to_string());
            assert!(counts.rows[&key].0 > 0, "{key:?}\n{}", out.text());
        }
    }
}

/// The nonblocking `default` is the library's `MPI_Iallreduce`, not its
/// `MPI_Allreduce`: a fault in the blocking call makes the competitor that
/// uses it wrong, and only it.
#[test]
fn a_fault_in_the_blocking_call_fails_only_the_blocking_competitor() {
    let out = Launch::new(
        3,
        &[
            "verify",
            "--collective",
            "iallreduce",
            "--sizes",
            "8,1K,4000",
            "--datatype",
            "int32",
            "--op",
            "sum",
        ],
    )
    .fault("MPI_Allreduce:flip")
    .run();
    assert_eq!(out.code, Some(3), "{}", out.text());
    let counts = VerifyCounts::of(&out);
    let row = |name: &str| counts.rows[&("iallreduce".to_string(), name.to_string())];
    assert_eq!(row("iallreduce_as_allreduce"), (0, 3, 0), "{}", out.text());
    assert_eq!(row("default"), (3, 0, 0), "{}", out.text());
    assert_eq!(
        row("iallreduce_as_ireduce_ibcast"),
        (3, 0, 0),
        "{}",
        out.text()
    );
}

/// The permuted and duplicated communicators' competitors on 1 to 9
/// processes, their output mapped back to the reference's order.
#[test]
fn communicator_family_matches_on_one_to_nine_processes() {
    for (i, np) in [1, 2, 3, 4, 5, 7, 8, 9].into_iter().enumerate() {
        let (datatype, op) = CLASSES[(i + 2) % CLASSES.len()];
        let out = assert_verifies_elements(np, &["--family", "communicator"], datatype, op);
        out.expect_in_stdout("alltoall_as_permuted_comm", "");
        out.expect_in_stdout("allreduce_as_dup_comm", "");
    }
}

/// A library wrong only on a communicator whose ranks are permuted: the
/// permuted competitor is reported wrong, and neither the library's call
/// on the original nor on its copy is.
#[test]
fn a_fault_on_the_permuted_communicator_fails_only_its_competitor() {
    let args = [
        "verify",
        "--family",
        "communicator",
        "--collective",
        "allgather",
        "--sizes",
        "8,1K,4000",
    ];
    for np in [3, 4] {
        let out =
            common::faults::with_fault(Launch::new(np, &args), "MPI_Allgather:flip,comm=permuted")
                .run();
        assert_eq!(out.code, Some(3), "{}", out.text());
        let counts = VerifyCounts::of(&out);
        let row = |name: &str| counts.rows[&("allgather".to_string(), name.to_string())];
        assert_eq!(
            row("allgather_as_permuted_comm"),
            (0, 3, 0),
            "{}",
            out.text()
        );
        assert_eq!(row("default"), (3, 0, 0), "{}", out.text());
        assert_eq!(row("allgather_as_dup_comm"), (3, 0, 0), "{}", out.text());
    }
}

/// The minimal point-to-point implementations on 1 to 9 processes, at
/// roots on both sides of the middle.
#[test]
fn p2p_matches_on_one_to_nine_processes() {
    for (i, np) in [1, 2, 3, 4, 5, 7, 8, 9].into_iter().enumerate() {
        let (datatype, op) = CLASSES[(i + 2) % CLASSES.len()];
        // Roots on either side of the middle too: the binomial tree keeps
        // every subtree's ranks consecutive on both sides of its root.
        let roots = match np {
            1..=3 => "first,middle,last".to_string(),
            _ => format!("first,1,middle,{},last", np - 2),
        };
        let out =
            assert_verifies_elements(np, &["--family", "p2p", "--roots", &roots], datatype, op);
        out.expect_in_stdout("reduce_as_binomial_p2p", "");
        out.expect_in_stdout(", 0 skipped", "every process count and root");
    }
}

#[test]
fn the_p2p_reduction_matches_with_floating_point_sums() {
    for (np, datatype) in [(6, "float64"), (7, "float32")] {
        assert_verifies(
            np,
            &[
                "--family",
                "p2p",
                "--collective",
                "reduce",
                "--datatype",
                datatype,
                "--op",
                "sum",
                "--roots",
                "first,2,middle,last",
            ],
        );
    }
}

/// The persistent collectives (`MPI_Xxx_init` once, `MPI_Start` +
/// `MPI_Wait` per call; `MPIX_` on Open MPI 4.1), the library's own and
/// their competitors, on 1 to 9 processes.
#[test]
fn persistent_collectives_match_on_one_to_nine_processes() {
    const CLASSES: [(&str, &str); 4] = [
        ("int64", "sum"),
        ("float64", "max"),
        ("int32", "bxor"),
        ("float32", "prod"),
    ];
    for (i, np) in [1, 2, 3, 5, 7, 8, 9].into_iter().enumerate() {
        let (datatype, op) = CLASSES[i % CLASSES.len()];
        let out = assert_verifies_elements(np, &["--family", "persistent"], datatype, op);
        let counts = VerifyCounts::of(&out);
        for (operation, name) in [
            ("reduce_scatter_init", "default"),
            ("gather_init", "default"),
            ("allreduce_init", "allreduceinit_as_iallreduce"),
        ] {
            let key = (operation.to_string(), name.to_string());
            assert!(counts.rows[&key].0 > 0, "{key:?}\n{}", out.text());
        }
    }
}

/// The persistent `default` is the library's `MPI_Allreduce_init`, and
/// its output is checked: a request bound to another buffer than the
/// caller's (never writing the output) is wrong, and only `default` is.
#[test]
fn a_persistent_request_that_never_writes_the_output_is_caught() {
    let out = Launch::new(
        3,
        &[
            "verify",
            "--collective",
            "allreduce_init",
            "--sizes",
            "8,1K,4000",
            "--datatype",
            "int32",
            "--op",
            "sum",
        ],
    )
    .fault("MPI_Allreduce_init:nowrite")
    .run();
    assert_eq!(out.code, Some(3), "{}", out.text());
    let counts = VerifyCounts::of(&out);
    let row = |name: &str| counts.rows[&("allreduce_init".to_string(), name.to_string())];
    assert_eq!(row("default"), (0, 3, 0), "{}", out.text());
    assert_eq!(
        row("allreduceinit_as_allreduce"),
        (3, 0, 0),
        "{}",
        out.text()
    );
    assert_eq!(
        row("allreduceinit_as_iallreduce"),
        (3, 0, 0),
        "{}",
        out.text()
    );
}

/// `MPI_Barrier`, `MPI_Ibarrier` and the persistent barrier with their
/// competitors on 1 to 9 processes: the check is that no rank leaves
/// before a late one entered.
#[test]
fn barriers_match_on_one_to_nine_processes() {
    for np in [1, 2, 3, 5, 8, 9] {
        let out = assert_verifies(
            np,
            &[
                "--collective",
                "barrier,ibarrier,barrier_init",
                "--family",
                "mockup,p2p,communicator,nonblocking,persistent",
            ],
        );
        let counts = VerifyCounts::of(&out);
        for (operation, name) in [
            ("barrier", "barrier_as_dissemination_p2p"),
            ("barrier", "barrier_as_permuted_comm"),
            ("ibarrier", "default"),
            ("barrier_init", "default"),
        ] {
            let key = (operation.to_string(), name.to_string());
            assert_eq!(counts.rows[&key].0, 1, "{key:?}\n{}", out.text());
        }
    }
}

/// A barrier that returns at once (PMPI `noop`) is caught wherever
/// `MPI_Barrier` is called, and only there: the library's call, on the
/// permuted and duplicated communicators and as the nonblocking call's
/// competitor; not the dissemination barrier, the allreduce of one
/// integer nor `MPI_Ibarrier`.
#[test]
fn a_barrier_that_does_not_synchronise_is_caught() {
    let out = Launch::new(
        4,
        &[
            "verify",
            "--collective",
            "barrier,ibarrier",
            "--family",
            "mockup,p2p,communicator,nonblocking",
        ],
    )
    .fault("MPI_Barrier:noop")
    .run();
    assert_eq!(out.code, Some(3), "{}", out.text());
    let counts = VerifyCounts::of(&out);
    let row = |operation: &str, name: &str| counts.rows[&(operation.to_string(), name.to_string())];
    for name in ["default", "barrier_as_permuted_comm", "barrier_as_dup_comm"] {
        assert_eq!(row("barrier", name), (0, 1, 0), "{name}\n{}", out.text());
    }
    assert_eq!(
        row("ibarrier", "ibarrier_as_barrier"),
        (0, 1, 0),
        "{}",
        out.text()
    );
    for (operation, name) in [
        ("barrier", "barrier_as_dissemination_p2p"),
        ("barrier", "barrier_as_allreduce"),
        ("ibarrier", "default"),
    ] {
        assert_eq!(row(operation, name), (1, 0, 0), "{name}\n{}", out.text());
    }
    out.expect_in_stdout("left the barrier", "the reason names what was wrong");
}
