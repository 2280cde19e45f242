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
