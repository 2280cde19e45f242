//! Every renderer's output from the fixtures, as two fingerprints (the
//! reports; comparisons and histories): a refactoring of the renderers must
//! leave each byte as it was.
//! Run with `PGCHECK_SNAPSHOT_PRINT=1 … -- --nocapture` to see the text
//! the fingerprint is of (and diff it against the one before a change).

use crate::analyse::Results;
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, CaseKey, Outcome, Sample};
use crate::report::compare::{self, Comparison};
use crate::report::text::Look;
use crate::report::{fixture, history, markdown, model, svg, text};

/// The fixtures' results and a few variants of them.
fn all_results() -> Vec<(&'static str, Results)> {
    let mut incomplete = fixture::results();
    incomplete.complete = false;
    let mut without_baseline = fixture::results();
    without_baseline.baseline = None;
    vec![
        ("results", fixture::results()),
        ("usual", fixture::results_with_usual()),
        ("noisy", fixture::results_noisy()),
        ("rounds", fixture::results_with_rounds()),
        ("incomplete", incomplete),
        ("without baseline", without_baseline),
    ]
}

/// Every output of one run's results.
fn results_outputs(name: &str, results: &Results, out: &mut String) {
    for width in [60, 100, 160] {
        for color in [false, true] {
            for details in [false, true] {
                let look = Look { color, width };
                *out += &format!("== {name} text {width} {color} {details}\n");
                *out += &text::render(results, details, &look);
            }
        }
    }
    *out += &format!("== {name} markdown\n{}", markdown::render(results));
    for (file, xml) in svg::render_all(results) {
        *out += &format!("== {name} {file}\n{xml}");
    }
    for check in &results.checks {
        *out += &format!(
            "== {name} to decide\n{}\n",
            model::to_decide(&results.meta, check)
        );
    }
    let mut csv = Vec::new();
    crate::report::csv::render(&mut csv, results).unwrap();
    *out += &format!("== {name} csv\n{}", String::from_utf8(csv).unwrap());
    *out += &format!("== {name} json\n{}", crate::report::json::render(results));
}

/// A verification: passes, a wrong result, a skip and an unmeasured one.
fn verification() -> Vec<CaseData> {
    let mut wrong = Sample::measured("allreduce_as_reducescatterblock_allgather");
    wrong.outcome = Outcome::Wrong("rank 1: element 3 is 4, expected 5".into());
    let mut skipped = Sample::measured("allreduce_as_allreduce_lane");
    skipped.outcome = Outcome::Skipped("needs several nodes with the same ranks per node".into());
    let mut unmeasured = Sample::measured("allreduce_as_reduce_bcast");
    unmeasured.outcome = Outcome::Unmeasured("no valid observation".into());
    let mut library_wrong = Sample::measured(DEFAULT);
    library_wrong.outcome = Outcome::Wrong("rank 0: element 0 is 1, expected 2".into());
    vec![
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(64),
            samples: vec![
                Sample::measured(DEFAULT),
                wrong.clone(),
                skipped,
                unmeasured,
            ],
            smaller: None,
        },
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(8),
            samples: vec![Sample::measured(DEFAULT), wrong],
            smaller: None,
        },
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(8192),
            samples: vec![library_wrong],
            smaller: None,
        },
    ]
}

/// The outputs of `run`, `analyze` and `verify`, one after another under a
/// heading each.
fn reports() -> String {
    let mut out = String::new();
    for (name, results) in all_results() {
        results_outputs(name, &results, &mut out);
    }
    for width in [50, 100] {
        let (verify, failures) = text::verify::render_to(
            &verification(),
            &Look {
                color: false,
                width,
            },
        );
        out += &format!("== verify {width} {failures}\n{verify}");
    }
    out
}

/// The outputs of `compare` and `history`.
fn comparisons() -> String {
    let mut out = String::new();
    let runs = [
        (
            "a".to_string(),
            compare::fixture::run("Open MPI v4.1.4", "vm", 10.0, true, 5.0),
        ),
        (
            "b".to_string(),
            compare::fixture::run("MPICH 4.0", "vm", 12.0, false, 4.0),
        ),
        (
            "c".to_string(),
            compare::fixture::wrong_at_8k("Open MPI v5.0.1"),
        ),
    ];
    for n in [2, 3] {
        let comparison = Comparison::of(&runs[..n]).unwrap();
        for look in [
            Look {
                color: false,
                width: 80,
            },
            Look {
                color: true,
                width: 160,
            },
        ] {
            out += &format!(
                "== compare {n} text\n{}",
                text::write(&compare::document::blocks(&comparison), &look)
            );
        }
        out += &format!(
            "== compare {n} markdown\n{}",
            markdown::write(&compare::document::blocks(&comparison))
        );
        out += &format!("== compare {n} svg\n{}", compare::svg::render(&comparison));
    }
    for (name, h) in [
        ("history", history::fixture::history()),
        ("under test", history::fixture::with_under_test()),
    ] {
        out += &format!(
            "== {name} text\n{}",
            text::write(
                &history::document::blocks(&h),
                &Look {
                    color: false,
                    width: 100
                }
            )
        );
        out += &format!(
            "== {name} markdown\n{}",
            markdown::write(&history::document::blocks(&h))
        );
        out += &format!("== {name} svg\n{}", history::svg::render(&h));
        out += &format!("== {name} json\n{}", history::json::render(&h));
    }
    out
}

/// FNV-1a, 64 bits: stable across Rust versions, unlike `DefaultHasher`.
fn fingerprint(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Asserts that `text` has the fingerprint `expected`; prints it when asked.
fn assert_as_before(what: &str, text: &str, expected: u64) {
    if std::env::var_os("PGCHECK_SNAPSHOT_PRINT").is_some() {
        print!("{text}");
    }
    let found = fingerprint(text);
    assert_eq!(
        found,
        expected,
        "{what}'s output changed ({} bytes, fingerprint {found}): if on purpose, \
         diff the text (module doc) and put the new fingerprint here",
        text.len()
    );
}

#[test]
fn every_report_renders_as_before() {
    let text = reports();
    for heading in [
        "text",
        "markdown",
        "check-",
        "usual-",
        "rounds-",
        "latency-",
        "overview.svg",
        "to decide",
        "verify",
    ] {
        assert!(text.contains(heading), "{heading} missing");
    }
    assert_as_before("a report", &text, 8_121_293_685_818_940_227);
}

#[test]
fn comparisons_and_histories_render_as_before() {
    let text = comparisons();
    for heading in [
        "compare 3 text",
        "compare 3 svg",
        "under test markdown",
        "under test svg",
    ] {
        assert!(text.contains(heading), "{heading} missing");
    }
    assert_as_before(
        "a comparison or a history",
        &text,
        15_218_277_505_741_333_873,
    );
}
