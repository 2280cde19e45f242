//! Faults injected below pgcheck, into the MPI library itself, with the
//! PMPI library of tests/faults/pmpi_faults.c: a wrong collective must be
//! caught by verification whether it is the library's own call (`default`)
//! or an ingredient of a mock-up, at 4, 8 and 16 (oversubscribed) ranks.

mod common;
use common::*;
use pgcheck::collective::{Collective, Shape};
use pgcheck::element::{Element, Op};
use pgcheck::reference::{self, Inputs};
use serde_json::Value;

/// Small enough for 16 ranks on two cores, large enough for every rank to
/// take part in several oversubscribed rounds.
const PROCESSES: [usize; 3] = [4, 8, 16];

/// Every launch is short: the faults are caught before measuring, and the
/// measured sizes only need to be measured at all. Barrier synchronisation:
/// with 16 oversubscribed ranks on a loaded machine roundtime can lose every
/// start of a size (exit 6, tested in run.rs), which is not what these
/// tests are about.
const SETTINGS: [&str; 8] = [
    "--budget", "30ms", "--rounds", "10", "--warmup", "1", "--sync", "barrier",
];

const ALLREDUCE: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [8, 64, 1024]
    competitors: [allreduce_as_reduce_bcast]
";

const BCAST_AS_ALLGATHERV: &str = "checks:
  - collective: bcast
    sizes: [64]
    root: 1
    competitors: [bcast_as_allgatherv]
";

const REDUCE: &str = "datatype: byte
op: bor
checks:
  - collective: reduce
    sizes: [16, 256]
    root: 0
    competitors: [reduce_as_allreduce]
";

const BCAST: &str = "checks:
  - collective: bcast
    sizes: [8, 4096]
    root: 0
    competitors: [bcast_as_scatter_allgather]
";

/// What one launch left: its outcome and its results.json.
struct Run {
    outcome: Outcome,
    results: Value,
}

impl Run {
    /// The check of `collective` at `size_bytes`.
    fn check(&self, collective: &str, size_bytes: u64) -> &Value {
        self.results["checks"]
            .as_array()
            .unwrap_or_else(|| panic!("no checks in results.json:\n{}", self.outcome.text()))
            .iter()
            .find(|c| c["collective"] == collective && c["size_bytes"] == size_bytes)
            .unwrap_or_else(|| {
                panic!(
                    "no {collective} check of {size_bytes} B:\n{}",
                    self.outcome.text()
                )
            })
    }

    /// Candidate `name` of the check of `collective` at `size_bytes`.
    fn candidate(&self, collective: &str, size_bytes: u64, name: &str) -> &Value {
        let check = self.check(collective, size_bytes);
        check["candidates"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["name"] == name))
            .unwrap_or_else(|| panic!("no candidate {name} in {check}:\n{}", self.outcome.text()))
    }

    /// Asserts candidate `name`'s status at each of `sizes`.
    fn assert_status(&self, collective: &str, sizes: &[u64], name: &str, status: &str) {
        for &size in sizes {
            // The whole check in the message: which candidate was taken
            // for wrong instead tells why this one was not.
            let check = self.check(collective, size);
            assert_eq!(
                self.candidate(collective, size, name)["status"],
                status,
                "{collective} {size} B: {name} should be {status}; the check: {check}\n{}",
                self.outcome.text()
            );
        }
    }

    /// Asserts that candidate `name` passed verification at each of
    /// `sizes`: whether it is then measured next to a wrong `default` is
    /// not for these tests to say.
    fn assert_not_wrong(&self, collective: &str, sizes: &[u64], name: &str) {
        for &size in sizes {
            let check = self.check(collective, size);
            assert_ne!(
                self.candidate(collective, size, name)["status"],
                "wrong",
                "{collective} {size} B: {name} is right; the check: {check}\n{}",
                self.outcome.text()
            );
        }
    }

    /// Asserts that `run` exited with status 3: a candidate failed
    /// verification.
    fn assert_verification_failed(&self) {
        assert_eq!(
            self.outcome.code,
            Some(3),
            "a wrong candidate must end the run with status 3:\n{}",
            self.outcome.text()
        );
    }

    /// The check's verdict, the one place that knows how results.json
    /// spells it (`violated | holds | inconclusive | library-wrong |
    /// unmeasured`).
    fn verdict(&self, collective: &str, size_bytes: u64) -> &str {
        let check = self.check(collective, size_bytes);
        check["verdict"].as_str().unwrap_or_else(|| {
            panic!(
                "{collective} {size_bytes} B has no verdict: {check}\n{}",
                self.outcome.text()
            )
        })
    }

    fn assert_library_wrong(&self, collective: &str, sizes: &[u64]) {
        for &size in sizes {
            assert_eq!(
                self.verdict(collective, size),
                "library-wrong",
                "{collective} {size} B:\n{}",
                self.outcome.text()
            );
        }
    }
}

/// `pgcheck run` of `yaml` on `np` ranks, with the fault library loaded
/// and configured by `fault` unless it is `None`.
fn run(name: &str, np: usize, yaml: &str, fault: Option<&str>) -> Run {
    run_with(name, np, yaml, fault, &SETTINGS)
}

/// [`run`] with `settings` instead of [`SETTINGS`].
fn run_with(name: &str, np: usize, yaml: &str, fault: Option<&str>, settings: &[&str]) -> Run {
    let dir = scratch(&format!("faults-{name}-np{np}"));
    let outcome = Launch::check(np, &dir, yaml)
        .args(settings)
        .fault_if(fault)
        .run();
    eprintln!(
        "{name}, {np} ranks, fault {fault:?}: status {:?} after {:.1} s",
        outcome.code, outcome.seconds
    );
    let results = outcome.results().clone();
    Run { outcome, results }
}

#[test]
fn a_wrong_library_allreduce_is_caught() {
    for np in PROCESSES {
        // One bit on one rank at one size: the smallest wrong result.
        let last = np - 1;
        let spec = format!("MPI_Allreduce:flip,rank={last},bytes=64");
        let r = run("allreduce-flip", np, ALLREDUCE, Some(&spec));
        r.assert_status("allreduce", &[64], "default", "wrong");
        let reason = r.candidate("allreduce", 64, "default")["reason"]
            .as_str()
            .unwrap_or_default();
        assert!(
            reason.contains(&format!("rank {last}")) && reason.contains("element"),
            "the reason must name rank {last} and an element: {reason:?}\n{}",
            r.outcome.text()
        );
        r.assert_library_wrong("allreduce", &[64]);
        // Checked against the reference, the mock-up is right.
        r.assert_not_wrong("allreduce", &[64], "allreduce_as_reduce_bcast");
        // The flip spares the other sizes: they are checked as usual.
        r.assert_status("allreduce", &[8, 1024], "default", "measured");
        let stderr = r.outcome.stderr.to_lowercase();
        for word in ["library", "wrong", "allreduce"] {
            assert!(
                stderr.contains(word),
                "stderr must say the library's allreduce is wrong ({word}):\n{}",
                r.outcome.text()
            );
        }
        r.assert_verification_failed();
    }
}

/// 257 int32 elements: no number of ranks from 2 to 8 divides them.
const ODD_SIZE: u64 = 1028;

/// The element a flip changes and what it holds then, on `rank` of `np`
/// processes: the flip changes the byte at the middle of the output, byte
/// 514 of 1028, the third byte of element 128.
fn flipped(collective: Collective, np: usize, rank: usize, root: usize) -> (usize, i32, i32) {
    let count = ODD_SIZE as usize / 4;
    let shape = Shape::new(collective, np, rank, root, count);
    let want = reference::expected::<i32>(&shape, &Inputs::new(collective, Op::Sum, np));
    let element = 128;
    (element, want[element], want[element] ^ (1 << 16))
}

#[test]
fn a_wrong_element_outside_the_corrupting_ranks_share_is_named_exactly() {
    // The ranks share the reference of allreduce and reduce, each folding
    // its share of the elements: a wrong element in another rank's share
    // is still named, with what it should hold and what it holds.
    for np in [3, 4] {
        for (collective, root) in [(Collective::Allreduce, 0), (Collective::Reduce, np - 1)] {
            let name = collective.name();
            let (root_line, competitor) = match collective {
                Collective::Allreduce => (String::new(), "allreduce_as_reduce_bcast"),
                _ => (format!("    root: {root}\n"), "reduce_as_allreduce"),
            };
            let yaml = format!(
                "datatype: int32\nop: sum\nchecks:\n  - collective: {name}\n    sizes: [64, {ODD_SIZE}]\n{root_line}    competitors: [{competitor}]\n"
            );
            // The last rank corrupts; element 128 lies in rank 1's share.
            let last = np - 1;
            let bounds = reference::share_bounds(ODD_SIZE as usize / 4, np);
            assert!((bounds[1]..bounds[2]).contains(&128) && last != 1);
            let mpi_name = collective.mpi_name();
            let spec = format!("{mpi_name}:flip,rank={last},bytes={ODD_SIZE}");
            let r = run(&format!("{name}-share-flip"), np, &yaml, Some(&spec));
            let (element, want, got) = flipped(collective, np, last, root);
            let reason = r.candidate(name, ODD_SIZE, "default")["reason"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            assert_eq!(
                reason,
                format!(
                    "rank {last}, element {element}: expected {}, got {}",
                    want.show(),
                    got.show()
                ),
                "{}",
                r.outcome.text()
            );
            r.assert_library_wrong(name, &[ODD_SIZE]);
            r.assert_status(name, &[64], "default", "measured");
            r.assert_verification_failed();
        }
    }
}

#[test]
fn a_wrong_mockup_ingredient_is_caught() {
    for np in PROCESSES {
        // pgcheck itself never calls MPI_Allgatherv: only the mock-up is hit.
        let r = run(
            "allgatherv-flip",
            np,
            BCAST_AS_ALLGATHERV,
            Some("MPI_Allgatherv:flip"),
        );
        r.assert_status("bcast", &[64], "bcast_as_allgatherv", "wrong");
        r.assert_status("bcast", &[64], "default", "measured");
        r.assert_verification_failed();
        assert_ne!(
            r.verdict("bcast", 64),
            "library-wrong",
            "only the mock-up is wrong:\n{}",
            r.outcome.text()
        );
    }
}

#[test]
fn a_saturating_reduce_is_caught() {
    for np in PROCESSES {
        // The reduction of the bytes of the inputs with bor is not all ones.
        let r = run("reduce-saturate", np, REDUCE, Some("MPI_Reduce:saturate"));
        r.assert_status("reduce", &[16, 256], "default", "wrong");
        // reduce_as_allreduce calls MPI_Allreduce, which is left alone.
        r.assert_not_wrong("reduce", &[16, 256], "reduce_as_allreduce");
        r.assert_library_wrong("reduce", &[16, 256]);
        r.assert_verification_failed();
    }
}

#[test]
fn a_bcast_that_does_not_write_is_caught() {
    for np in PROCESSES {
        // Only the checked sizes: pgcheck broadcasts its own decisions (1, 4,
        // 24 and 96 bytes), and ranks that never receive them would hang.
        let r = run(
            "bcast-nowrite",
            np,
            BCAST,
            Some("MPI_Bcast:nowrite,bytes=8,bytes=4096"),
        );
        r.assert_status("bcast", &[8, 4096], "default", "wrong");
        // The mock-up scatters and allgathers: it never calls MPI_Bcast.
        r.assert_not_wrong("bcast", &[8, 4096], "bcast_as_scatter_allgather");
        r.assert_library_wrong("bcast", &[8, 4096]);
        r.assert_verification_failed();
    }
}

const ALLREDUCE_BOR: &str = "datatype: byte
op: bor
checks:
  - collective: allreduce
    sizes: [64]
    competitors: [allreduce_as_reduce_bcast]
";

#[test]
fn a_rank_counted_twice_is_caught_by_the_second_check() {
    for np in PROCESSES {
        // Or-ing a rank's input in once more changes nothing an or can
        // show: only the second verification, with bxor, sees it.
        let r = run(
            "allreduce-twice",
            np,
            ALLREDUCE_BOR,
            Some("MPI_Allreduce:twice,bytes=64"),
        );
        r.assert_status("allreduce", &[64], "default", "wrong");
        let reason = r.candidate("allreduce", 64, "default")["reason"]
            .as_str()
            .unwrap_or_default();
        assert!(
            reason.contains("with op bxor on distinct data"),
            "caught by the second check: {reason:?}\n{}",
            r.outcome.text()
        );
        r.assert_not_wrong("allreduce", &[64], "allreduce_as_reduce_bcast");
        r.assert_library_wrong("allreduce", &[64]);
        r.assert_verification_failed();
    }
}

const ALLREDUCE_USER_OP: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [64]
    competitors: [allreduce_as_allreduce_user_op]
";

#[test]
fn a_fault_of_the_built_in_sum_spares_the_user_defined_one() {
    // op=sum strikes only calls whose operator is MPI_SUM itself: the
    // library's allreduce is wrong, and the same MPI_Allreduce with the
    // user-defined sum is right, so its operator is not MPI_SUM.
    for np in PROCESSES {
        let r = run(
            "allreduce-sum-flip",
            np,
            ALLREDUCE_USER_OP,
            Some("MPI_Allreduce:flip,op=sum,bytes=64"),
        );
        r.assert_status("allreduce", &[64], "default", "wrong");
        r.assert_not_wrong("allreduce", &[64], "allreduce_as_allreduce_user_op");
        r.assert_library_wrong("allreduce", &[64]);
        r.assert_verification_failed();
    }
    // Without the filter the same flip strikes both: the competitor does
    // call MPI_Allreduce, and verification would see it wrong.
    let r = run(
        "allreduce-any-op-flip",
        4,
        ALLREDUCE_USER_OP,
        Some("MPI_Allreduce:flip,bytes=64"),
    );
    r.assert_status("allreduce", &[64], "default", "wrong");
    r.assert_status(
        "allreduce",
        &[64],
        "allreduce_as_allreduce_user_op",
        "wrong",
    );
    r.assert_verification_failed();
}

/// The inputs of the scenarios above, with their sizes.
const CONTROLS: [(&str, &str, &str, &[u64]); 4] = [
    ("allreduce", ALLREDUCE, "allreduce", &[8, 64, 1024]),
    ("allgatherv", BCAST_AS_ALLGATHERV, "bcast", &[64]),
    ("reduce", REDUCE, "reduce", &[16, 256]),
    ("bcast", BCAST, "bcast", &[8, 4096]),
];

/// Every input of the scenarios verifies and is measured.
fn assert_controls(fault: Option<&str>) {
    for np in PROCESSES {
        for (name, yaml, collective, sizes) in CONTROLS {
            let r = run(&format!("control-{name}"), np, yaml, fault);
            assert!(
                matches!(r.outcome.code, Some(0 | 1 | 9)),
                "{name}: a correct library passes, violates or cannot decide, never more:\n{}",
                r.outcome.text()
            );
            r.assert_status(collective, sizes, "default", "measured");
        }
    }
}

#[test]
fn without_faults_the_same_inputs_are_measured() {
    assert_controls(None);
}

#[test]
fn the_preload_alone_changes_nothing() {
    // A fault in a function none of the inputs calls: the library is loaded
    // and interposes every collective, but must pass them all through.
    assert_controls(Some("MPI_Scan:flip"));
}

#[test]
fn a_bad_fault_spec_aborts() {
    let launch = Launch::new(2, &["verify", "--collective", "allreduce"]);
    let out = launch.fault("MPI_Allreduce:melt").run();
    // pmpi_faults.c's MPI_Abort(MPI_COMM_WORLD, 2): an input error.
    assert_eq!(
        out.code,
        Some(2),
        "a bad spec must abort with 2, not run:\n{}",
        out.text()
    );
    out.expect_in_stderr("bad PGCHECK_FAULT", "the spec's error must be on stderr");
}

/// The library's allreduce slowed at the smaller of two sizes breaks
/// monotony (more data must not be faster). Timed in the same rounds
/// (`--universal shared`) the finding counts for `--fail-on`; from cases
/// measured apart it is reported but does not gate.
#[test]
fn a_slow_smaller_size_breaks_monotony_and_gates_only_in_shared_rounds() {
    const SERIES: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [64, 128]
    competitors: []
";
    for (universal, gated) in [("shared", true), ("apart", false)] {
        let settings = [
            "--budget",
            "100ms",
            "--rounds",
            "10",
            "--sync",
            "barrier",
            "--universal",
            universal,
            "--fail-on",
            "low",
            "--allow-undecided",
        ];
        // Two ranks on this machine's two cores: with three, MPICH's
        // busy-polling ranks take a time slice (8 ms) a call, and the
        // 300 µs delay drowned in it (ratio 1.04).
        let spec = "MPI_Allreduce:delay=300,bytes=64";
        let name = format!("monotony-{universal}");
        let Run {
            outcome,
            results: r,
        } = run_with(&name, 2, SERIES, Some(spec), &settings);
        assert_eq!(r["meta"]["universal"], universal);
        let finding = &r["guidelines"]["monotony"][0];
        assert_eq!(finding["size_bytes"], 128, "{}", outcome.text());
        assert_eq!(finding["other_size_bytes"], 64);
        assert_eq!(finding["shared_rounds"], gated, "{finding}");
        // 300 µs added to a call of a few µs: far beyond any severity
        // boundary, so the verdict cannot flake.
        assert_ne!(finding["severity"], "ok", "{finding}");
        let row = outcome.stdout.lines().find(|l| l.contains("monotony"));
        assert!(
            row.is_some_and(|l| l.contains(universal)),
            "{}",
            outcome.text()
        );
        assert_eq!(outcome.code, Some(i32::from(gated)), "{}", outcome.text());
    }
}

/// A machine that stalls for most of a case's rounds: every call of rank 0
/// takes 100 µs more (20–50× a call) for 500 ms of wall time, which covers
/// over half of 20 rounds (3 candidates × 10 ms each; asked for, the
/// budget's default would cut 200 ms into 40) of allreduce
/// 4 KiB: its first chunk takes about 80 ms at the slowed pace, then every
/// slice adapts to it. The
/// rounds are named and set aside, as many as allowed are measured again,
/// and no candidate's headline is the stall's: the plain median of the
/// per-round medians would be a disturbed round's, milliseconds. Without
/// the stall no round is set aside.
#[test]
fn a_stall_of_the_machine_is_set_aside_named_and_measured_again() {
    const STALLED: &str = "datatype: int32
op: sum
checks:
  - collective: allreduce
    sizes: [4096]
    competitors: [allreduce_as_reduce_bcast, allreduce_as_reducescatterblock_allgather]
";
    let settings = [
        &["--budget", "200ms", "--rounds", "20", "--sync", "barrier"][..],
        &REPORT_ONLY,
    ]
    .concat();
    for stall in [true, false] {
        // From rank 0's 2,000th interposed call on (a few slices into the
        // case: verification and warm-up take a handful), every call of any
        // collective 100 µs longer for 500 ms; the other rank waits for it.
        let fault = stall.then_some("*:delay=100,rank=0,after=2000,for=500");
        let name = format!("stall-{stall}");
        let Run {
            outcome,
            results: r,
        } = run_with(&name, 2, STALLED, fault, &settings);
        assert_eq!(outcome.code, Some(0), "{}", outcome.text());
        let check = &r["checks"][0];
        let rounds_measured = r["meta"]["machine_state"]["rounds_s"]
            .as_array()
            .expect("a calibration per round")
            .len();
        assert_eq!(r["meta"]["rounds"], 20, "the rounds asked for");
        if !stall {
            assert!(check["disturbed"].is_null(), "{}", outcome.text());
            assert_eq!(rounds_measured, 20, "{}", outcome.text());
            continue;
        }
        let disturbed = &check["disturbed"];
        let set_aside = disturbed["rounds"].as_array().map_or(0, Vec::len);
        assert!(set_aside >= 8, "{disturbed}\n{}", outcome.text());
        assert!(disturbed["factor"].as_f64().unwrap() >= 4.0, "{disturbed}");
        // At most a fifth more rounds, all of them used.
        assert_eq!(rounds_measured, 24, "{}", outcome.text());
        outcome.expect_in_stdout(
            "disturbed rounds (every candidate far slower) set aside in 1 case (allreduce 4 KiB)",
            "named on the terminal",
        );
        let report = std::fs::read_to_string(outcome.out_dir().join("report.md")).unwrap();
        assert!(
            report.contains("4096 B: disturbed, set aside: rounds"),
            "which rounds, in report.md:\n{report}"
        );
        // The stall's observations took 100 µs and more, the others a few:
        // no headline may be of the stall's scale (no speed asserted, only
        // the headline against the observations set aside).
        let stalled =
            disturbed["seconds"].as_f64().unwrap() / disturbed["observations"].as_f64().unwrap();
        for candidate in check["candidates"].as_array().unwrap() {
            let headline = candidate["round_median_s"].as_f64().unwrap();
            assert!(
                headline < stalled / 4.0,
                "{} printed {headline} s, the stall's scale ({stalled} s)\n{}",
                candidate["name"],
                outcome.text()
            );
            // Every round not set aside is kept (barrier: no late starts);
            // how many the stall spans depends on the machine's pace.
            let kept = candidate["rounds"].as_u64().unwrap() as usize;
            assert_eq!(kept, rounds_measured - set_aside, "{candidate}");
        }
    }
}
