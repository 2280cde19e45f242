//! `default` in place (`MPI_IN_PLACE`): verified beside the usual form
//! wherever MPI defines an in-place form, timed when the input asks for it
//! (`in_place: true | both`), and a library whose in-place calls alone are
//! wrong caught with exit status 3 (the PMPI fault library's `inplace`).

mod common;
use common::*;
use serde_json::Value;

/// Status of a wrong result (`Exit::Verification`).
const WRONG: i32 = 3;
/// Status of an input error (`Exit::Input`).
const INPUT: i32 = 2;

/// Short launches: faults are caught before measuring, and timed cases
/// only need to be measured at all.
const SETTINGS: [&str; 6] = ["--budget", "30ms", "--rounds", "10", "--sync", "barrier"];

/// The collectives with an in-place form and the MPI function of each.
const IN_PLACE: [(&str, &str); 10] = [
    ("allgather", "MPI_Allgather"),
    ("allreduce", "MPI_Allreduce"),
    ("alltoall", "MPI_Alltoall"),
    ("gather", "MPI_Gather"),
    ("reduce", "MPI_Reduce"),
    ("reduce_scatter_block", "MPI_Reduce_scatter_block"),
    ("reduce_scatter", "MPI_Reduce_scatter"),
    ("scan", "MPI_Scan"),
    ("exscan", "MPI_Exscan"),
    ("scatter", "MPI_Scatter"),
];

/// `pgcheck run` of `yaml` on `np` ranks with `SETTINGS`, the fault
/// library configured by `fault` unless `None`; the outcome and
/// results.json.
fn run(name: &str, np: usize, yaml: &str, fault: Option<&str>) -> (Outcome, Value) {
    run_with(name, np, yaml, fault, &SETTINGS)
}

/// [`run`] with `settings` instead of `SETTINGS`.
fn run_with(
    name: &str,
    np: usize,
    yaml: &str,
    fault: Option<&str>,
    settings: &[&str],
) -> (Outcome, Value) {
    let dir = scratch(&format!("in-place-{name}-np{np}"));
    let out = Launch::check(np, &dir, yaml)
        .args(settings)
        .fault_if(fault)
        .run();
    let results = out.results().clone();
    (out, results)
}

/// Candidate `name` of the check of `collective` at `size_bytes`.
fn candidate<'a>(results: &'a Value, collective: &str, size_bytes: u64, name: &str) -> &'a Value {
    results["checks"]
        .as_array()
        .expect("checks in results.json")
        .iter()
        .find(|c| c["collective"] == collective && c["size_bytes"] == size_bytes)
        .and_then(|c| c["candidates"].as_array())
        .and_then(|cs| cs.iter().find(|c| c["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {collective} {size_bytes} B: {results}"))
}

/// The rows of `pgcheck verify`'s table marked FAIL: (collective, candidate).
fn failed_rows(stdout: &str) -> Vec<(String, String)> {
    stdout
        .lines()
        .filter(|l| l.starts_with('|'))
        .filter_map(|l| {
            let words: Vec<&str> = l.trim_matches('|').split_whitespace().collect();
            (words.get(2) == Some(&"FAIL")).then(|| (words[0].to_string(), words[1].to_string()))
        })
        .collect()
}

#[test]
fn default_is_right_in_place_on_one_to_five_processes() {
    // Sizes of 1 element, below p, not divisible by 2, 3 or 5, and 1 KiB
    // plus a few; every root; both element widths and a second check.
    for np in [1, 2, 3, 4, 5] {
        for (datatype, op, sizes) in [
            ("byte", "bor", "1,3,13,1031"),
            ("int32", "sum", "4,28,4108"),
        ] {
            assert_verifies(
                np,
                &[
                    "--family",
                    "mockup",
                    "--sizes",
                    sizes,
                    "--roots",
                    "first,middle,last",
                    "--datatype",
                    datatype,
                    "--op",
                    op,
                ],
            );
        }
    }
}

/// MPICH 4.0.2's in-place reduce crash at root 1 from 4 KiB on
/// (pmodels/mpich#6540) is found by verifying `default` in place: a lost
/// rank that names the case (status 8). The control: the same verification
/// without MPICH's device-level reduce passes, as it does on every other
/// library.
#[test]
fn an_in_place_reduce_at_another_root_verifies_or_its_crash_is_named() {
    let args = [
        "--collective",
        "reduce",
        "--family",
        "mockup",
        "--sizes",
        "4096",
        "--roots",
        "1",
        "--datatype",
        "int32",
        "--op",
        "sum",
    ];
    if in_place_reduce_crashes() {
        let mut verify = vec!["verify"];
        verify.extend(args);
        let out = pgcheck(2, &verify);
        assert_eq!(out.code, Some(8), "{}", out.text());
        out.expect_in_stderr(
            "pgcheck: error: rank 1 died of signal 11 during verifying `default` in MPI_Reduce 4096 B (1024 × int32 sum, root 1); ending the job with status 8 (lost rank)",
            "the crash named",
        );
    } else {
        assert_verifies_with(2, &args, &[]);
    }
    assert_verifies(2, &args);
}

#[test]
fn a_library_wrong_only_in_place_fails_verification() {
    const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 64]
    competitors: [allreduce_as_reduce_bcast]
";
    for np in [2, 3] {
        // One bit on the last rank, in in-place calls of 64 B only: the
        // usual MPI_Allreduce, which default's first check and the mock-up
        // call, is right.
        let last = np - 1;
        let spec = format!("MPI_Allreduce:flip,inplace,rank={last},bytes=64");
        let (out, results) = run("allreduce-flip", np, ALLREDUCE, Some(&spec));
        assert_eq!(out.code, Some(WRONG), "{}", out.text());
        let default = candidate(&results, "allreduce", 64, "default");
        assert_eq!(default["status"], "wrong", "{}", out.text());
        let reason = default["reason"].as_str().unwrap_or_default();
        assert!(
            reason.starts_with(&format!(
                "default in place (MPI_IN_PLACE): rank {last}, element"
            )),
            "the reason names default in place and rank {last}: {reason:?}\n{}",
            out.text()
        );
        let mockup = candidate(&results, "allreduce", 64, "allreduce_as_reduce_bcast");
        assert_ne!(mockup["status"], "wrong", "{}", out.text());
        assert_eq!(
            candidate(&results, "allreduce", 8, "default")["status"],
            "measured",
            "the fault spares 8 B:\n{}",
            out.text()
        );
        // Said once, under the table, and named on the exit line.
        let words = out.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(&format!(
                "! allreduce 64 B: the library's collective is wrong: \
                 default in place (MPI_IN_PLACE): rank {last}, element"
            )),
            "the report names the case, default in place and the rank:\n{}",
            out.text()
        );
        out.expect_in_stderr(
            "pgcheck: exit 3 (wrong result): wrong results in 1 case: the library's \
             MPI_Allreduce 64 B (16 × int32 sum)",
            "the exit line names the case",
        );
    }
}

#[test]
fn every_in_place_collective_is_checked() {
    // Scatter in place leaves the root without output: a flip has nothing
    // to corrupt there, so it is verified above but cannot be broken here.
    for (collective, function) in IN_PLACE.into_iter().filter(|(c, _)| *c != "scatter") {
        let launch = Launch::new(
            3,
            &[
                "verify",
                "--collective",
                collective,
                "--family",
                "mockup",
                "--sizes",
                "8",
                "--roots",
                "last",
            ],
        );
        let out = launch.fault(&format!("{function}:flip,inplace")).run();
        assert_eq!(out.code, Some(WRONG), "{collective}:\n{}", out.text());
        assert_eq!(
            failed_rows(&out.stdout),
            [(collective.to_string(), "default".to_string())],
            "{collective}: only default fails, in place:\n{}",
            out.text()
        );
        // In place only at the root (the last rank) for rooted collectives.
        let rank = match collective {
            "gather" | "reduce" => "rank 2",
            "exscan" => "rank 1",
            _ => "rank 0",
        };
        out.expect_in_stdout(
            &format!("default in place (MPI_IN_PLACE): {rank}, element"),
            collective,
        );
    }
}

#[test]
fn without_the_fault_the_same_verification_passes() {
    // The control of `every_in_place_collective_is_checked`: the library
    // preloaded, a fault configured for in-place calls of a function that
    // none of these cases calls (MPI_Bcast has no in-place form).
    for (collective, _) in IN_PLACE {
        let launch = Launch::new(
            3,
            &[
                "verify",
                "--collective",
                collective,
                "--family",
                "mockup",
                "--sizes",
                "8",
            ],
        );
        let out = launch.fault("MPI_Bcast:flip,inplace").run();
        assert_eq!(out.code, Some(0), "{collective}:\n{}", out.text());
    }
}

/// Every in-place collective at a size not divisible by 3, root 1 where
/// rooted, timing `in_place` as given.
fn every_collective(in_place: &str) -> String {
    let mut yaml = String::from("datatype: int32\nop: sum\nchecks:\n");
    for (collective, _) in IN_PLACE {
        let root = match collective {
            "gather" | "reduce" | "scatter" => "\n    root: 1",
            _ => "",
        };
        yaml += &format!(
            "  - collective: {collective}\n    sizes: [4, 28]\n    competitors: []{root}\n    in_place: {in_place}\n"
        );
    }
    yaml
}

#[test]
fn both_times_default_in_place_beside_default_for_every_collective() {
    let (out, results) = run("both", 3, &every_collective("both"), None);
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    for (collective, _) in IN_PLACE {
        for size in [4, 28] {
            for name in ["default", "default_in_place"] {
                let c = candidate(&results, collective, size, name);
                assert_eq!(c["status"], "measured", "{collective} {size} B {name}: {c}");
                assert!(c["n"].as_u64().unwrap_or(0) > 0, "{collective} {name}: {c}");
            }
        }
    }
}

/// `--in-place both` with an input file goes over the file's `in_place`
/// for every check with an in-place form, and leaves bcast's usual.
#[test]
fn in_place_on_the_command_line_applies_to_the_files_checks() {
    let yaml = "checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: []\n  - collective: bcast\n    sizes: [8]\n    competitors: []\n";
    let mut settings = SETTINGS.to_vec();
    settings.extend(["--in-place", "both"]);
    let (out, results) = run_with("option-over-file", 2, yaml, None, &settings);
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    let c = candidate(&results, "allreduce", 8, "default_in_place");
    assert_eq!(c["status"], "measured", "{c}");
    let bcast = results["checks"][1]["candidates"].as_array().unwrap();
    assert!(
        bcast.iter().all(|c| c["name"] != "default_in_place"),
        "{bcast:?}"
    );
}

/// The median of `name` in the allreduce check of 64 B.
fn median(results: &Value, name: &str) -> f64 {
    candidate(results, "allreduce", 64, name)["median_s"]
        .as_f64()
        .unwrap_or_else(|| panic!("no median of {name}: {results}"))
}

#[test]
fn in_place_chooses_the_form_default_times() {
    // Every in-place MPI_Allreduce of 64 B spins 20 ms after the call:
    // a form timed in place is at least that slow, whatever the machine.
    // Slices of 60 ms hold a few such calls.
    const DELAY_S: f64 = 0.02;
    const SLOW: [&str; 6] = ["--budget", "300ms", "--rounds", "5", "--sync", "barrier"];
    let spec = "MPI_Allreduce:delay=20000,inplace,bytes=64";
    let yaml = |in_place: &str| {
        format!(
            "checks:\n  - collective: allreduce\n    sizes: [64]\n    competitors: []\n    in_place: {in_place}\n"
        )
    };
    let (out, results) = run_with("true", 2, &yaml("true"), Some(spec), &SLOW);
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    assert!(median(&results, "default") >= DELAY_S, "{}", out.text());
    let (out, results) = run_with("both", 2, &yaml("both"), Some(spec), &SLOW);
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    assert!(
        median(&results, "default_in_place") >= DELAY_S,
        "{}",
        out.text()
    );
    // The usual form never meets the delay: an 8-byte allreduce of two
    // ranks takes microseconds, a thousand times less than the spin.
    assert!(median(&results, "default") < DELAY_S, "{}", out.text());
    let (out, results) = run_with("false", 2, &yaml("false"), Some(spec), &SLOW);
    assert!(matches!(out.code, Some(0 | 1 | 9)), "{}", out.text());
    assert!(median(&results, "default") < DELAY_S, "{}", out.text());
}

#[test]
fn a_bad_in_place_is_an_input_error_at_its_line() {
    let dir = scratch("in-place-input-errors");
    for (name, yaml, line, message) in [
        (
            "value",
            "checks:\n  - collective: allreduce\n    sizes: [8]\n    in_place: sometimes\n",
            4,
            "in_place must be `false`, `true` or `both`, not `sometimes`",
        ),
        (
            "bcast",
            "checks:\n  - collective: scan\n    sizes: [8]\n  - collective: bcast\n    sizes: [8]\n    in_place: true\n",
            4,
            "`in_place` applies to every blocking collective but bcast",
        ),
    ] {
        let file = input(&dir, &format!("{name}.yaml"), yaml);
        let out = Launch::new(2, &["run", &file])
            .report_only()
            .output(&dir.join(format!("out-{name}")))
            .run();
        assert_eq!(out.code, Some(INPUT), "{name}:\n{}", out.text());
        out.expect_in_stderr(&format!("{file}:{line}: "), name);
        out.expect_in_stderr(message, name);
    }
}

#[test]
fn list_shows_default_in_place_where_mpi_has_it() {
    let out = pgcheck(1, &["list"]);
    assert_eq!(out.code, Some(0), "{}", out.text());
    // A collective's candidates: the indented lines under its heading.
    let block = |collective: &str| -> String {
        out.stdout
            .lines()
            .skip_while(|l| !l.starts_with(&format!("{collective} (")))
            .skip(1)
            .take_while(|l| l.starts_with(' '))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (collective, function) in IN_PLACE {
        let want = format!("the library's own {function} with MPI_IN_PLACE");
        assert!(
            block(collective).contains(&want),
            "{collective}:\n{}",
            out.text()
        );
    }
    assert!(
        !block("bcast").contains("default_in_place"),
        "{}",
        out.text()
    );
}
