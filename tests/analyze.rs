//! `pgcheck analyze` on prepared raw data: fixture p-values for every test,
//! the gate at every `--fail-on` level, `--baseline` regressions, and the
//! output formats. Offline: no mpirun.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a raw.csv of (collective, size, candidate, seconds) series, each
/// observation in a round of its own.
fn write_raw(dir: &Path, series: &[(&str, u64, &str, &[f64])]) {
    let mut text =
        String::from("collective,size_bytes,count,datatype,op,root,candidate,round,seconds\n");
    for (collective, size, candidate, seconds) in series {
        for (i, s) in seconds.iter().enumerate() {
            text += &format!("{collective},{size},{size},byte,bor,0,{candidate},{i},{s:?}\n");
        }
    }
    std::fs::write(dir.join("raw.csv"), text).unwrap();
}

fn analyze(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("analyze")
        .arg(dir)
        .args(["--output", dir.join("out").to_str().unwrap()])
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json(out: &Output) -> Value {
    assert!(out.status.code().is_some(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON: {e}\n{}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Deterministic timings around `center` (a small LCG; no two equal).
fn timings(center: f64, n: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            center * (1.0 + 0.05 * ((x >> 11) as f64 / (1u64 << 53) as f64 - 0.5))
        })
        .collect()
}

#[test]
fn reports_the_fixture_p_value_for_every_test() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/two_sample_tests.json")).unwrap();
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let floats = |key: &str| -> Vec<f64> {
            case[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect()
        };
        let (x, y) = (floats("x"), floats("y"));
        let dir = scratch(&format!("analyze-fixture-{name}"));
        write_raw(
            &dir,
            &[
                ("allreduce", 8, "default", &x),
                ("allreduce", 8, "competitor", &y),
            ],
        );
        // Auto uses the exact Mann–Whitney distribution for small samples
        // without ties; every observation is its own round, so `rounds`
        // is Mann–Whitney on all of them. KS's "default slower" is SciPy's
        // `less` (SciPy names KS alternatives after the CDFs).
        let mwu = if case.get("mann_whitney_exact").is_some() && x.len() * y.len() <= 10_000 {
            &case["mann_whitney_exact"]["greater"]["p"]
        } else {
            &case["mann_whitney_asymptotic"]["greater"]["p"]
        };
        let expected = [
            ("mwu", mwu),
            ("rounds", mwu),
            ("welch", &case["welch"]["greater"]["p"]),
            ("ks", &case["ks_asymptotic"]["less"]["p"]),
        ];
        for (test, want) in expected {
            let want = want.as_f64().unwrap();
            let out = json(&analyze(&dir, &["--test", test, "--format", "json"]));
            let got = out["checks"][0]["candidates"][1]["p_value"]
                .as_f64()
                .unwrap();
            if want >= 1e-300 {
                assert!(
                    ((got - want) / want).abs() < 1e-9,
                    "{name} --test {test}: p {got} != SciPy's {want}"
                );
            }
        }
    }
}

/// Three collectives whose fastest competitor is 0.8×, 1.3× and 1.8× as fast
/// as default: severities ok, medium, medium-high.
fn prepared(dir: &Path) {
    let default = timings(10e-6, 300, 1);
    let c1 = timings(12.5e-6, 300, 2);
    let c2 = timings(10e-6 / 1.3, 300, 3);
    let c3 = timings(10e-6 / 1.8, 300, 4);
    write_raw(
        dir,
        &[
            ("bcast", 64, "default", &default),
            ("bcast", 64, "bcast_as_allgatherv", &c1),
            ("gather", 64, "default", &default),
            ("gather", 64, "gather_as_gatherv", &c2),
            ("scatter", 64, "default", &default),
            ("scatter", 64, "scatter_as_scatterv", &c3),
        ],
    );
}

#[test]
fn the_gate_fails_at_and_below_the_worst_severity() {
    let dir = scratch("analyze-gate");
    prepared(&dir);
    let out = json(&analyze(&dir, &["--format", "json"]));
    let severities: Vec<&str> = out["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["severity"].as_str().unwrap())
        .collect();
    assert_eq!(severities, ["ok", "medium", "medium-high"]);
    assert_eq!(
        analyze(&dir, &[]).status.code(),
        Some(0),
        "no --fail-on: never fails on verdicts"
    );
    for (level, code) in [
        ("low", 1),
        ("medium", 1),
        ("medium-high", 1),
        ("high", 0),
        ("very-high", 0),
    ] {
        let out = analyze(&dir, &["--fail-on", level]);
        assert_eq!(
            out.status.code(),
            Some(code),
            "--fail-on {level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn inconclusive_fails_the_gate_only_when_asked() {
    // Three rounds of one observation: no test can be significant either
    // way, so the case is neither violated nor shown to hold.
    let dir = scratch("analyze-inconclusive");
    write_raw(
        &dir,
        &[
            ("allreduce", 8, "default", &timings(10e-6, 3, 1)),
            ("allreduce", 8, "competitor", &timings(10e-6, 3, 2)),
        ],
    );
    let out = json(&analyze(&dir, &["--format", "json"]));
    assert_eq!(out["checks"][0]["verdict"], "inconclusive", "{out}");
    assert_eq!(out["checks"][0]["powerless"], true, "{out}");
    for (level, code) in [("low", 0), ("inconclusive", 1)] {
        let out = analyze(&dir, &["--fail-on", level]);
        assert_eq!(out.status.code(), Some(code), "--fail-on {level}");
    }
}

#[test]
fn a_baseline_regression_fails_the_gate() {
    let before = scratch("analyze-baseline-before");
    write_raw(
        &before,
        &[
            ("allreduce", 8, "default", &timings(10e-6, 300, 5)),
            ("bcast", 8, "default", &timings(5e-6, 300, 6)),
        ],
    );
    let now = scratch("analyze-baseline-now");
    write_raw(
        &now,
        &[
            ("allreduce", 8, "default", &timings(12e-6, 300, 7)),
            ("alltoall", 8, "default", &timings(5e-6, 300, 8)),
        ],
    );
    let baseline = before.to_str().unwrap();
    let out = analyze(&now, &["--baseline", baseline, "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "a 20 % regression fails");
    let b = &json(&out)["baseline"];
    assert_eq!(b["changes"][0]["regression"], true);
    assert_eq!(b["only_in_baseline"][0]["collective"], "bcast");
    assert_eq!(b["only_in_current"][0]["collective"], "alltoall");
    let table = analyze(&now, &["--baseline", baseline]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("regression") && text.contains("only in the baseline: bcast 8 B"),
        "{text}"
    );
    let tolerant = analyze(
        &now,
        &[
            "--baseline",
            &before.join("results.json").to_string_lossy(),
            "--tolerance",
            "30%",
        ],
    );
    assert_eq!(
        tolerant.status.code(),
        Some(0),
        "within 30 %: {}",
        String::from_utf8_lossy(&tolerant.stderr)
    );
}

#[test]
fn formats_are_plain_without_a_terminal_and_files_are_well_formed() {
    let dir = scratch("analyze-formats");
    prepared(&dir);
    let table = analyze(&dir, &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        !text.contains('\x1b'),
        "no ANSI codes without a terminal:\n{text}"
    );
    assert!(
        text.contains("MPI_Scatter") && text.contains("medium-high"),
        "{text}"
    );
    let colored = analyze(&dir, &["--color", "always"]);
    assert!(
        String::from_utf8_lossy(&colored.stdout).contains('\x1b'),
        "--color always colours"
    );
    let markdown = String::from_utf8(analyze(&dir, &["--format", "markdown"]).stdout).unwrap();
    assert!(
        markdown.contains("| ") && markdown.contains("scatter_as_scatterv"),
        "{markdown}"
    );
    let csv = String::from_utf8(analyze(&dir, &["--format", "csv"]).stdout).unwrap();
    assert!(csv.starts_with("collective,size_bytes"), "{csv}");
    let details = String::from_utf8(analyze(&dir, &["--details"]).stdout).unwrap();
    assert!(details.contains("gather_as_gatherv"), "{details}");
    let out = dir.join("out");
    let mut svgs = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let text = std::fs::read_to_string(&path).unwrap();
            roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            svgs += 1;
        }
    }
    assert_eq!(svgs, 4, "overview and one chart per check");
    for file in ["results.json", "summary.csv", "report.md"] {
        assert!(out.join(file).exists(), "{file}");
    }
}

/// Paired tests on per-round medians, with several observations per round:
/// `analyze` reproduces SciPy's Wilcoxon signed-rank and sign test p-values
/// of the fixture's medians (`tests/fixtures/make_paired_fixtures.py`).
#[test]
fn paired_tests_on_round_medians_match_scipy() {
    let fixture: Value = serde_json::from_str(include_str!("fixtures/paired_tests.json")).unwrap();
    let mut checked = 0;
    for case in fixture["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let bits = |key: &str| -> Vec<f64> {
            case[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| f64::from_bits(v.as_u64().unwrap()))
                .collect()
        };
        let (x, y) = (bits("x_bits"), bits("y_bits"));
        // Exact p-values (n ≤ 20) of positive durations only.
        if x.len() > 20
            || case.get("wilcoxon_exact").is_none()
            || x.iter().chain(&y).any(|&v| v <= 0.0)
        {
            continue;
        }
        // Three observations per round whose median is the fixture's value.
        let mut text =
            String::from("collective,size_bytes,count,datatype,op,root,candidate,round,seconds\n");
        for (candidate, medians) in [("default", &x), ("competitor", &y)] {
            for (round, &m) in medians.iter().enumerate() {
                for s in [m * 1.25, m, m * 0.75] {
                    text += &format!("allreduce,8,8,byte,bor,0,{candidate},{round},{s:?}\n");
                }
            }
        }
        let dir = scratch(&format!("analyze-paired-{name}"));
        std::fs::write(dir.join("raw.csv"), text).unwrap();
        for (test, want) in [
            ("paired", &case["wilcoxon_exact"]["greater"]["p"]),
            ("sign", &case["sign"]["greater"]["p"]),
        ] {
            let want = want.as_f64().unwrap();
            let out = json(&analyze(&dir, &["--test", test, "--format", "json"]));
            let competitor = &out["checks"][0]["candidates"][1];
            assert_eq!(competitor["rounds"], x.len(), "{name}");
            let got = competitor["p_value"].as_f64().unwrap();
            assert!(
                ((got - want) / want).abs() < 1e-9,
                "{name} --test {test}: p {got} != SciPy's {want}"
            );
        }
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} fixture cases checked");
}
