//! `pgcheck analyze` on prepared raw data: fixture p-values for every test,
//! the gate at every `--fail-on` level, `--baseline` regressions, the
//! output formats, and `tune`'s MPICH fallback on a run's results.
//! Offline: no mpirun.

mod common;

use common::{words, REPORT_ONLY};
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

/// SciPy's p-value as `src/stats/fixture_tests.rs` compares it: relative
/// error 1e-9, below 1e-20 relative error of ln p 1e-12, and a SciPy 0
/// (KS's P(D > 1)) exactly.
#[track_caller]
fn assert_p_close(what: &str, got: f64, want: f64) {
    if want == 0.0 {
        assert_eq!(got, 0.0, "{what}: p {got:e}, SciPy exactly 0");
    } else if want < 1e-20 {
        assert!(want >= f64::MIN_POSITIVE, "{what}: SciPy's {want:e}");
        let error = ((got.ln() - want.ln()) / want.ln()).abs();
        assert!(
            error <= 1e-12,
            "{what}: p {got:e} != SciPy's {want:e} (relative error of ln p {error:e})"
        );
    } else {
        assert!(
            ((got - want) / want).abs() < 1e-9,
            "{what}: p {got:e} != SciPy's {want:e}"
        );
    }
}

#[test]
fn reports_the_fixture_p_value_for_every_test() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/two_sample_tests.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 25, "{} cases", cases.len());
    let (mut checked, mut tiny) = (0, 0);
    for case in cases {
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
        // The p-value reported is of default / margin against the
        // competitor: default at twice the fixture's x with --margin 2 is
        // the fixture's test, bit for bit (a power of two scales exactly).
        let twice_x: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        let dir = scratch(&format!("analyze-fixture-{name}"));
        write_raw(
            &dir,
            &[
                ("allreduce", 8, "default", &twice_x),
                ("allreduce", 8, "competitor", &y),
            ],
        );
        // Auto uses the exact Mann–Whitney distribution for small samples
        // without ties; every observation is its own round, so `rounds`
        // is Mann–Whitney on all of them. KS's "default slower" is SciPy's
        // `less` (SciPy names KS alternatives after the CDFs). The
        // equivalence p-value (behind `holds`) is the other side.
        let mwu = if case.get("mann_whitney_exact").is_some() && x.len() * y.len() <= 10_000 {
            &case["mann_whitney_exact"]
        } else {
            &case["mann_whitney_asymptotic"]
        };
        let expected = [
            ("mwu", &mwu["greater"], &mwu["less"]),
            ("rounds", &mwu["greater"], &mwu["less"]),
            ("welch", &case["welch"]["greater"], &case["welch"]["less"]),
            (
                "ks",
                &case["ks_asymptotic"]["less"],
                &case["ks_asymptotic"]["greater"],
            ),
        ];
        for (test, violation, equivalence) in expected {
            let args = ["--test", test, "--margin", "2", "--format", "json"];
            let out = json(&analyze(&dir, &args));
            let competitor = &out["checks"][0]["candidates"][1];
            assert_eq!(competitor["name"], "competitor", "{out}");
            for (key, want) in [("p_value", violation), ("p_equivalence", equivalence)] {
                let want = want["p"].as_f64().unwrap();
                let got = competitor[key].as_f64().unwrap();
                assert_p_close(&format!("{name} --test {test} {key}"), got, want);
                tiny += usize::from(want < 1e-250);
                checked += 1;
            }
        }
    }
    // Two p-values of four tests in every case: none skipped.
    assert_eq!(checked, cases.len() * 8);
    assert!(tiny >= 4, "only {tiny} p-values below 1e-250 checked");
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

/// Two cases of three observations each: no competitor could be shown
/// faster, so the run cannot decide; that is status 9, not a pass.
#[test]
fn a_run_that_could_not_decide_exits_9_unless_allowed() {
    let dir = scratch("analyze-undecided");
    write_raw(
        &dir,
        &[
            ("bcast", 64, "default", &timings(10e-6, 3, 1)),
            ("bcast", 64, "bcast_as_allgatherv", &timings(10e-6, 3, 2)),
            ("gather", 64, "default", &timings(10e-6, 3, 3)),
            ("gather", 64, "gather_as_gatherv", &timings(10e-6, 3, 4)),
        ],
    );
    let out = analyze(&dir, &[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(9), "{stderr}");
    assert!(
        words(&stderr)
            .contains("pgcheck: exit 9 (undecided): 2 of 2 cases inconclusive or powerless"),
        "{stderr}"
    );
    let report = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(
        report.starts_with("## pgcheck: ⚠️ exit 9 (undecided)"),
        "{report}"
    );
    let allowed = analyze(&dir, &["--allow-undecided"]);
    assert_eq!(allowed.status.code(), Some(0));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/results.json")).unwrap())
            .unwrap();
    assert_eq!(results["exit"]["status"], 0, "{}", results["exit"]);
    assert!(
        results["exit"]["reason"]
            .as_str()
            .unwrap()
            .ends_with("2 of 2 cases inconclusive or powerless (--allow-undecided)"),
        "{}",
        results["exit"]
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
    let default = analyze(&dir, &[]);
    assert_eq!(
        default.status.code(),
        Some(1),
        "no --fail-on: any violated case fails"
    );
    let stderr = String::from_utf8_lossy(&default.stderr);
    assert!(
        words(&stderr).contains(
            "pgcheck: exit 1 (guideline violation or regression): 2 cases violated, worst medium-high (--fail-on violated)"
        ),
        "{stderr}"
    );
    for (level, code) in [
        ("violated", 1),
        ("none", 0),
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
    // One case of one, inconclusive: the run could not decide (9), unless
    // that is allowed; `--fail-on inconclusive` makes it a failure (1).
    for (args, code) in [
        (&["--fail-on", "low"][..], 9),
        (&["--fail-on", "low", "--allow-undecided"], 0),
        (&["--fail-on", "inconclusive"], 1),
        (&["--fail-on", "inconclusive", "--allow-undecided"], 1),
    ] {
        let out = analyze(&dir, args);
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
}

/// One launch's observations: allreduce 8 B `default` around
/// `default_s` beside a competitor around 20 µs (a reference of the same
/// launch), and `other` 8 B.
fn launch_raw(dir: &Path, default_s: f64, other: &str, seed: u64) {
    write_raw(
        dir,
        &[
            ("allreduce", 8, "default", &timings(default_s, 300, seed)),
            ("allreduce", 8, "competitor", &timings(20e-6, 300, seed + 1)),
            (other, 8, "default", &timings(5e-6, 300, seed + 2)),
        ],
    );
}

/// A `default` 20 % slower than in three baseline launches is a
/// regression (1); against one launch it is shown, not decided (9).
#[test]
fn a_baseline_regression_fails_the_gate_and_one_launch_decides_nothing() {
    let now = scratch("analyze-baseline-now");
    launch_raw(&now, 12e-6, "alltoall", 100);
    let mut baselines = Vec::new();
    for l in 0..3 {
        let before = scratch(&format!("analyze-baseline-before-{l}"));
        launch_raw(&before, 10e-6, "bcast", 10 * l);
        analyze(&before, &REPORT_ONLY);
        baselines.push(before.join("out").to_string_lossy().into_owned());
    }
    let mut args: Vec<&str> = baselines
        .iter()
        .flat_map(|b| ["--baseline", b.as_str()])
        .collect();
    args.extend(["--format", "json"]);
    let out = analyze(&now, &args);
    let b = &json(&out)["baseline"];
    assert_eq!(out.status.code(), Some(1), "a 20 % regression fails: {b}");
    let allreduce = &b["changes"][0];
    assert_eq!(allreduce["regression"], true, "{b}");
    assert!(
        (allreduce["normalised_ratio"].as_f64().unwrap() - 1.2).abs() < 0.02,
        "{b}"
    );
    assert_eq!(b["only_in_baseline"][0]["collective"], "bcast");
    assert_eq!(b["only_in_current"][0]["collective"], "alltoall");

    // One launch is compared observation by observation: its raw file.
    let one = &baselines[0].trim_end_matches("/out").to_string();
    let out = analyze(&now, &["--baseline", one, "--format", "json"]);
    assert_eq!(out.status.code(), Some(9), "one launch decides nothing");
    let b = &json(&out)["baseline"];
    assert_eq!(b["changes"][0]["regression"], false, "{b}");
    assert_eq!(b["undecided"], "not decided: 1 baseline launch, 3 needed");
    let table = analyze(&now, &["--baseline", one]);
    // Words, not lines: the terminal report wraps at its width.
    let text = String::from_utf8_lossy(&table.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("Regressions and new violations not decided: 1 baseline launch, 3 needed")
            && text.contains("Only in the baseline: MPI_Bcast, 8 B"),
        "{text}"
    );
    assert!(
        text.contains(
            "Warning: the baseline is one launch, so the variation between launches is unknown"
        ),
        "{text}"
    );
    let allowed = analyze(&now, &["--baseline", one, "--allow-undecided"]);
    assert_eq!(
        allowed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&allowed.stderr)
    );
}

/// The terminal report, with every candidate, fits 100 columns when
/// piped and the width `COLUMNS` asks for.
#[test]
fn the_terminal_report_fits_the_width() {
    let dir = scratch("analyze-width");
    prepared(&dir);
    for (columns, width) in [(None, 100), (Some("100"), 100), (Some("72"), 72)] {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pgcheck"));
        command
            .arg("analyze")
            .arg(&dir)
            .args(["--output", dir.join("out").to_str().unwrap(), "--details"])
            .env("NO_COLOR", "1")
            .env_remove("COLUMNS");
        if let Some(columns) = columns {
            command.env("COLUMNS", columns);
        }
        let out = command.output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("MPI_Scatter") && text.contains("verdict"),
            "{text}"
        );
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(
            widest <= width,
            "COLUMNS={columns:?}: a line of {widest} > {width} columns\n{text}"
        );
    }
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
        text.contains("scatter root 0") && text.contains("medium-high"),
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
    // Under its collective's heading a competitor's name drops the prefix.
    assert!(
        details.contains(" gatherv ") && !details.contains("gather_as_gatherv"),
        "{details}"
    );
    let out = dir.join("out");
    let mut svgs = Vec::new();
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            let text = std::fs::read_to_string(&path).unwrap();
            roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            svgs.push(name.split(['-', '.']).next().unwrap().to_string());
        }
    }
    svgs.sort();
    // Three collectives at one size each; no usual times without the
    // timer's resolution (no results.json).
    assert_eq!(
        svgs,
        [
            "check", "check", "check", "latency", "latency", "latency", "overview", "rounds",
            "rounds", "rounds"
        ],
        "the overview, a latency plot per collective, a chart and the rounds per check"
    );
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
        // Three observations per round whose median is the fixture's value
        // (twice it for default, analysed with --margin 2: the p-value
        // reported is of default / margin against the competitor).
        let twice_x: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        let mut text =
            String::from("collective,size_bytes,count,datatype,op,root,candidate,round,seconds\n");
        for (candidate, medians) in [("default", &twice_x), ("competitor", &y)] {
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
            let args = ["--test", test, "--margin", "2", "--format", "json"];
            let out = json(&analyze(&dir, &args));
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

/// A small deterministic generator for the usual-time tests.
struct Lcg(u64);

impl Lcg {
    /// Uniform in [0, 1).
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An exponential time of mean `mean_ticks`, truncated to whole ticks
    /// as a timer does: a discretised exponential (geometric) error.
    fn exponential_ticks(&mut self, mean_ticks: f64) -> f64 {
        (-(1.0 - self.uniform()).ln() * mean_ticks).floor()
    }

    fn normal(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

const NS: f64 = 1e-9;

/// Writes a raw.csv of (size, candidate, per-round times) series of
/// allreduce, and a results.json that gives the timer resolution (1 ns)
/// and noise floor as a run's would.
fn write_run(dir: &Path, series: &[(u64, &str, Vec<Vec<f64>>)]) {
    let mut text =
        String::from("collective,size_bytes,count,datatype,op,root,candidate,round,seconds\n");
    for (size, candidate, rounds) in series {
        for (round, times) in rounds.iter().enumerate() {
            for s in times {
                text += &format!("allreduce,{size},{size},byte,bor,0,{candidate},{round},{s:?}\n");
            }
        }
    }
    std::fs::write(dir.join("raw.csv"), text).unwrap();
    let meta = r#"{"meta": {"timer_resolution_s": 1e-9, "noise_floor_s": 1e-6}, "complete": true, "checks": []}"#;
    std::fs::write(dir.join("results.json"), meta).unwrap();
}

/// t_max of a discretised exponential of rate λ in windows of m ticks:
/// t_min + ((k_q + 1)·m − ½)·r with k_q = min{k : 1 − e^{−λw(k+1)} ≥ q}.
fn geometric_tmax(usual: &Value, qmax: f64) -> f64 {
    let f = |key: &str| usual[key].as_f64().unwrap();
    let theta = f("lambda") * f("window_s");
    let k_q = (-(1.0 - qmax).ln() / theta).ceil() - 1.0;
    f("tmin_s") + ((k_q + 1.0) * f("window_ticks") - 0.5) * NS
}

#[test]
fn usual_times_qmax_and_the_tmax_filter_on_known_errors() {
    // default: 12 µs plus a discretised exponential error of mean 200 ns,
    // and in four rounds one call 1 ms late; the competitor: 10 µs plus a
    // mean error of 150 ns. Ten rounds of 40 calls each.
    let dir = scratch("analyze-usual");
    let mut rng = Lcg(16);
    let mut delayed = Vec::new();
    let default: Vec<Vec<f64>> = (0..10)
        .map(|round| {
            (0..40)
                .map(|i| {
                    let t = 12e-6 + rng.exponential_ticks(200.0) * NS;
                    if [1, 4, 6, 9].contains(&round) && i == 7 {
                        delayed.push(t + 1e-3);
                        t + 1e-3
                    } else {
                        t
                    }
                })
                .collect()
        })
        .collect();
    let competitor: Vec<Vec<f64>> = (0..10)
        .map(|_| {
            (0..40)
                .map(|_| 10e-6 + rng.exponential_ticks(150.0) * NS)
                .collect()
        })
        .collect();
    write_run(
        &dir,
        &[
            (8, "default", default.clone()),
            (8, "competitor", competitor),
        ],
    );
    let out = json(&analyze(&dir, &["--format", "json"]));
    assert_eq!(out["meta"]["qmax"], 0.95);
    let usual = |out: &Value, c: usize| out["checks"][0]["candidates"][c]["usual"].clone();
    let (d, c) = (usual(&out, 0), usual(&out, 1));
    for key in [
        "model",
        "lambda",
        "window_s",
        "tmin_s",
        "tmax_s",
        "qmax",
        "overhead_share",
        "fit_p",
        "empirical_tmax_s",
        "histogram",
    ] {
        assert!(d.get(key).is_some() && c.get(key).is_some(), "{key}: {d}");
    }
    // The competitor's errors: exponential, the true rate 1/(150 ns) in
    // the fit's 95 % interval, t_max the law's 0.95 quantile, a fit the
    // χ² test accepts.
    assert_eq!(c["model"], "exponential", "{c}");
    let rate = 1.0 / (150.0 * NS);
    let ci = &c["lambda_ci"];
    assert!(
        ci[0].as_f64().unwrap() <= rate && rate <= ci[1].as_f64().unwrap(),
        "{c}"
    );
    assert!(c["fit_p"].as_f64().unwrap() > 0.01, "{c}");
    assert_eq!(c["tmin_s"].as_f64().unwrap(), competitor_min(&dir));
    let tmax95 = c["tmax_s"].as_f64().unwrap();
    assert!((tmax95 - geometric_tmax(&c, 0.95)).abs() < 1e-15, "{c}");
    // The default's four late calls are overhead, and only they.
    assert_eq!(d["above_tmax"], 4, "{d}");
    let d_tmax = d["tmax_s"].as_f64().unwrap();
    for (round, times) in default.iter().enumerate() {
        for &t in times {
            assert_eq!(t > d_tmax, delayed.contains(&t), "round {round}: {t}");
        }
    }
    assert!(d["overhead_share"].as_f64().unwrap() > 0.4, "{d}");

    // --qmax 0.8 recomputes offline: a lower quantile of the same law.
    let low = json(&analyze(&dir, &["--format", "json", "--qmax", "0.8"]));
    assert_eq!(low["meta"]["qmax"], 0.8);
    let c80 = usual(&low, 1);
    assert_eq!(
        (&c80["qmax"], &c80["lambda"]),
        (&Value::from(0.8), &c["lambda"])
    );
    let tmax80 = c80["tmax_s"].as_f64().unwrap();
    assert!((tmax80 - geometric_tmax(&c80, 0.8)).abs() < 1e-15, "{c80}");
    assert!(tmax80 < tmax95 - 100.0 * NS, "{tmax80} {tmax95}");
    assert!(c80["above_tmax"].as_u64().unwrap() > c["above_tmax"].as_u64().unwrap());
    for bad in ["1", "0", "1.5", "x"] {
        assert_eq!(
            analyze(&dir, &["--qmax", bad]).status.code(),
            Some(2),
            "--qmax {bad}"
        );
    }

    // --outliers tmax drops exactly the late calls of default, and of the
    // competitor what lies above its t_max; the usual times stay those of
    // the unfiltered calls.
    let filtered = json(&analyze(&dir, &["--format", "json", "--outliers", "tmax"]));
    assert_eq!(filtered["meta"]["outliers"], "tmax");
    let (fd, fc) = (
        &filtered["checks"][0]["candidates"][0],
        &filtered["checks"][0]["candidates"][1],
    );
    assert_eq!(
        (&fd["outliers_removed"], &fd["n"]),
        (&Value::from(4), &Value::from(396))
    );
    assert_eq!(fc["outliers_removed"], c["above_tmax"]);
    assert_eq!(
        (usual(&filtered, 0), usual(&filtered, 1)),
        (d.clone(), c.clone())
    );
    let unfiltered_mean = out["checks"][0]["candidates"][0]["median_s"]
        .as_f64()
        .unwrap();
    // Dropping 4 of 400 calls moves the median by at most two order
    // statistics: a few ns where the calls lie about 1 ns apart.
    assert!(
        (fd["median_s"].as_f64().unwrap() - unfiltered_mean).abs() < 5e-9,
        "{} {unfiltered_mean}",
        fd["median_s"]
    );

    // --details and Markdown show them; the plot is well-formed.
    let details = String::from_utf8(analyze(&dir, &["--details"]).stdout).unwrap();
    // Words, not lines: the terminal report wraps at its width.
    assert!(
        words(&details).contains("usual times (Kluge et al. 2005, q_max 0.95)"),
        "{details}"
    );
    // Eleven columns of usual times wrap at 100; wide, a cell is one line.
    let wide = Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .arg("analyze")
        .arg(&dir)
        .args(["--output", dir.join("out").to_str().unwrap(), "--details"])
        .env("NO_COLOR", "1")
        .env("COLUMNS", "200")
        .output()
        .unwrap();
    let wide = String::from_utf8(wide.stdout).unwrap();
    assert!(wide.contains("4 of 400"), "{wide}");
    let md = std::fs::read_to_string(dir.join("out/report.md")).unwrap();
    assert!(md.contains("| `competitor` | exponential |"), "{md}");
    let svg = std::fs::read_to_string(dir.join("out/usual-allreduce-8B.svg")).unwrap();
    let document = roxmltree::Document::parse(&svg).unwrap();
    let texts: Vec<&str> = document.descendants().filter_map(|n| n.text()).collect();
    for word in ["default", "competitor", "t_max"] {
        assert!(
            texts.iter().any(|t| t.contains(word)),
            "{word} missing in {svg}"
        );
    }

    // Without results.json the timer resolution is unknown: no usual
    // times, and --outliers tmax says it removes nothing.
    std::fs::remove_file(dir.join("results.json")).unwrap();
    let bare = analyze(&dir, &["--format", "json", "--outliers", "tmax"]);
    let bare_json = json(&bare);
    assert!(usual(&bare_json, 0).is_null());
    assert_eq!(
        bare_json["checks"][0]["candidates"][0]["outliers_removed"],
        0
    );
    let warnings = bare_json["meta"]["warnings"].to_string();
    assert!(
        warnings.contains("--outliers tmax removes nothing"),
        "{warnings}"
    );
}

/// The smallest competitor time of the raw.csv in `dir`.
fn competitor_min(dir: &Path) -> f64 {
    std::fs::read_to_string(dir.join("raw.csv"))
        .unwrap()
        .lines()
        .filter(|l| l.contains(",competitor,"))
        .map(|l| l.rsplit(',').next().unwrap().parse::<f64>().unwrap())
        .fold(f64::INFINITY, f64::min)
}

/// Five allreduce cases whose `default` is 1.2 times slower than its
/// competitor: ten rounds of 30 calls with small exponential errors, each
/// round of each candidate shifted by a log-normal factor of spread
/// `round_sigma` (the noise the per-round test has to see through).
fn slowdown_cases(dir: &Path, round_sigma: f64, seed: u64) {
    let mut rng = Lcg(seed);
    let mut series = Vec::new();
    for size in [8u64, 16, 32, 64, 128] {
        for (candidate, center) in [("default", 12e-6), ("competitor", 10e-6)] {
            let rounds: Vec<Vec<f64>> = (0..10)
                .map(|_| {
                    let shift = (round_sigma * rng.normal()).exp();
                    (0..30)
                        .map(|_| center * shift + rng.exponential_ticks(center * 0.02 / NS) * NS)
                        .collect()
                })
                .collect();
            series.push((size, candidate, rounds));
        }
    }
    write_run(dir, &series);
}

#[test]
fn the_noise_verdict_flips_when_noise_hides_a_known_slowdown() {
    // Quiet: the known 1.2× slowdown is found everywhere, and 1.1× could
    // have been.
    let quiet = scratch("analyze-noise-quiet");
    slowdown_cases(&quiet, 0.0, 1);
    let out = json(&analyze(&quiet, &["--format", "json"]));
    let noise = &out["meta"]["noise"];
    assert_eq!(noise["verdict"], "quiet", "{noise}");
    for check in out["checks"].as_array().unwrap() {
        assert_eq!(check["verdict"], "violated", "{check}");
    }
    assert!(
        noise["sensitivity_median"].as_f64().unwrap() <= 1.1,
        "{noise}"
    );
    assert_eq!(
        (&noise["cases"], &noise["candidates"]),
        (&Value::from(5), &Value::from(10))
    );
    let text = String::from_utf8(analyze(&quiet, &["--details"]).stdout).unwrap();
    assert!(
        words(&text).contains("noise: quiet: 0 of 5 cases undecided and unable to flag 1.1×"),
        "{text}"
    );
    let text = String::from_utf8(analyze(&quiet, &[]).stdout).unwrap();
    assert!(
        words(&text).contains(
            "Nothing in the set-up limits these verdicts (a quiet run: median case sensitivity"
        ),
        "{text}"
    );
    assert!(!text.contains("noisy"), "{text}");

    // Noisy: rounds shifted by ±30 % hide the same slowdown, and the run
    // says so at the top, with the numbers.
    let noisy = scratch("analyze-noise-noisy");
    slowdown_cases(&noisy, 0.3, 2);
    let out = json(&analyze(&noisy, &["--format", "json"]));
    let noise = &out["meta"]["noise"];
    assert_eq!(noise["verdict"], "noisy", "{noise}");
    let found = out["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["verdict"] == "violated")
        .count();
    assert!(found < 5, "the slowdown hides in some case: {out}");
    let median = noise["sensitivity_median"]
        .as_f64()
        .unwrap_or(f64::INFINITY);
    assert!(median > 1.2, "{noise}");
    assert_eq!(noise["slowdown_of_interest"], 1.1);
    assert_eq!(noise["slowdown_source"], "twice the --margin's excess");
    let reason = noise["reason"].as_str().unwrap();
    assert!(
        reason.contains(" of 5 cases undecided and unable to flag 1.1× (twice the --margin's excess), more than half"),
        "{reason}"
    );
    // In the answer, with its numbers said once: there, or on the exit
    // line when the run is undecided for it.
    let out = analyze(&noisy, &[]);
    let (text, stderr) = (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    );
    assert!(
        words(&text).contains("The set-up limits these verdicts: WARNING: noisy run:")
            && words(&format!("{text}\n{stderr}"))
                .matches(&words(&format!("noisy run: {reason}")))
                .count()
                == 1,
        "{text}{stderr}"
    );
    let md = String::from_utf8(analyze(&noisy, &["--format", "markdown"]).stdout).unwrap();
    assert!(md.contains("> ⚠️ **noisy run: "), "{md}");

    // The verdict is about the slowdowns asked about: the same run is quiet
    // for a gate on very-high (5×) slowdowns, noisy for one on medium.
    for (level, verdict) in [("very-high", "quiet"), ("medium", "noisy")] {
        let out = json(&analyze(&noisy, &["--format", "json", "--fail-on", level]));
        assert_eq!(
            out["meta"]["noise"]["verdict"], verdict,
            "--fail-on {level}"
        );
        assert_eq!(
            out["meta"]["noise"]["slowdown_source"],
            format!("--fail-on {level}")
        );
    }
}

/// Round shifts within ±0.25 %: every round of a candidate takes about
/// the same time.
const TIGHT: [f64; 10] = [
    1.0, 1.0005, 0.9995, 1.001, 0.999, 1.0015, 0.9985, 1.002, 0.998, 1.0025,
];

/// Round shifts from 0.7 to 1.3: the machine's noise swamps any few per cent.
const WIDE: [f64; 10] = [0.7, 1.3, 0.9, 1.1, 0.8, 1.2, 1.0, 0.75, 1.25, 0.95];

/// A candidate's rounds around `center`: round r is shifted by
/// `shifts[r]`, and its 30 calls spread ±0.05 % around that.
fn shifted_rounds(center: f64, shifts: &[f64]) -> Vec<Vec<f64>> {
    shifts
        .iter()
        .map(|s| {
            (0..30)
                .map(|i| center * s * (1.0 + 1e-3 * (f64::from(i) / 29.0 - 0.5)))
                .collect()
        })
        .collect()
}

/// A run of one allreduce case whose `default` takes `slowdown` times the
/// competitor's 10 µs, with the given round shifts (the competitor's in
/// reverse order, so that no round of one equals a round of the other).
fn known_slowdown(name: &str, slowdown: f64, shifts: &[f64]) -> PathBuf {
    let dir = scratch(name);
    let reversed: Vec<f64> = shifts.iter().rev().copied().collect();
    write_run(
        &dir,
        &[
            (8, "default", shifted_rounds(10e-6 * slowdown, shifts)),
            (8, "competitor", shifted_rounds(10e-6, &reversed)),
        ],
    );
    dir
}

/// The case's verdict and severity, and the exit status with each
/// `--fail-on` level, from `analyze` with `args`.
fn decided(dir: &Path, args: &[&str]) -> (String, String, Vec<(&'static str, i32)>) {
    let mut json_args = vec!["--format", "json"];
    json_args.extend_from_slice(args);
    let out = json(&analyze(dir, &json_args));
    let check = &out["checks"][0];
    let slowdown = check["candidates"][1]["slowdown"].as_f64().unwrap();
    eprintln!("{}: slowdown {slowdown}, {check}", dir.display());
    let statuses = ["inconclusive", "low", "medium", "medium-high"]
        .into_iter()
        .map(|level| {
            let mut gate_args = vec!["--fail-on", level];
            gate_args.extend_from_slice(args);
            (level, analyze(dir, &gate_args).status.code().unwrap())
        })
        .collect();
    (
        check["verdict"].as_str().unwrap().to_string(),
        check["severity"].as_str().unwrap().to_string(),
        statuses,
    )
}

#[test]
fn a_competitor_as_fast_as_default_with_tight_rounds_holds() {
    let dir = known_slowdown("analyze-holds", 1.0, &TIGHT);
    let (verdict, severity, statuses) = decided(&dir, &[]);
    assert_eq!((verdict.as_str(), severity.as_str()), ("holds", "ok"));
    assert_eq!(
        statuses,
        [
            ("inconclusive", 0),
            ("low", 0),
            ("medium", 0),
            ("medium-high", 0)
        ]
    );
}

#[test]
fn a_few_per_cent_in_wide_rounds_is_inconclusive() {
    let dir = known_slowdown("analyze-inconclusive-wide", 1.04, &WIDE);
    let (verdict, severity, statuses) = decided(&dir, &[]);
    assert_eq!(
        (verdict.as_str(), severity.as_str()),
        ("inconclusive", "ok")
    );
    // Its only case open: the run could not decide.
    assert_eq!(
        statuses,
        [
            ("inconclusive", 1),
            ("low", 9),
            ("medium", 9),
            ("medium-high", 9)
        ]
    );
}

#[test]
fn a_competitor_1_3_times_faster_violates_with_severity_medium() {
    let dir = known_slowdown("analyze-violated", 1.3, &TIGHT);
    let (verdict, severity, statuses) = decided(&dir, &[]);
    assert_eq!(
        (verdict.as_str(), severity.as_str()),
        ("violated", "medium")
    );
    assert_eq!(
        statuses,
        [
            ("inconclusive", 1),
            ("low", 1),
            ("medium", 1),
            ("medium-high", 0)
        ]
    );
    // summary.csv holds the same numbers. The per-round medians are the
    // centres times the round shifts, whose median is 1.00025; every
    // round of default above every round of the competitor is the exact
    // Mann–Whitney p-value 1 / C(20, 10).
    analyze(&dir, &[]);
    let summary = std::fs::read_to_string(dir.join("out/summary.csv")).unwrap();
    let mut lines = summary.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{summary}");
    let field = |row: &[&str], name: &str| -> String {
        let column = header.iter().position(|h| *h == name).unwrap();
        row[column].to_string()
    };
    let number = |row: &[&str], name: &str| field(row, name).parse::<f64>().unwrap();
    // Plain decimals at a fixed precision: times to 0.1 ns, factors to
    // 4 decimals, p-values to 10.
    let close = |got: f64, want: f64, decimals: i32| {
        (got - want).abs() <= 0.5 * 10f64.powi(-decimals) * (1.0 + 1e-9)
    };
    let (default, competitor) = (&rows[0], &rows[1]);
    assert_eq!(field(default, "candidate"), "default");
    assert!(
        close(number(default, "round_median_ns"), 13003.25, 1),
        "{summary}"
    );
    assert_eq!(field(default, "slowdown"), "", "{summary}");
    assert_eq!(field(competitor, "candidate"), "competitor");
    for (name, want) in [("n", "300"), ("invalid", "0"), ("rounds", "10")] {
        assert_eq!(field(competitor, name), want, "{name}: {summary}");
    }
    assert_eq!(field(competitor, "round_median_ns"), "10002.5", "{summary}");
    assert_eq!(field(competitor, "slowdown"), "1.3000", "{summary}");
    assert_eq!(field(competitor, "p_value"), "0.0000054125", "{summary}");
    assert!(close(number(competitor, "p_adjusted"), 1.0 / 184756.0, 10));
    assert_eq!(number(competitor, "p_equivalence"), 1.0, "{summary}");
    for (name, want) in [
        ("significant", "true"),
        ("violates", "true"),
        ("severity", "medium"),
        ("verdict", "violated"),
    ] {
        assert_eq!(field(competitor, name), want, "{name}: {summary}");
    }
}

/// A difference of medians smaller than the noise floor (1 µs in
/// `write_run`'s results.json) is marked, a larger one is not.
#[test]
fn a_difference_below_the_noise_floor_is_marked() {
    for (name, slowdown, below) in [
        ("analyze-noise-floor-same", 1.0, true),
        ("analyze-noise-floor-close", 1.09, true),
        ("analyze-noise-floor-apart", 1.11, false),
    ] {
        let dir = known_slowdown(name, slowdown, &TIGHT);
        let out = json(&analyze(&dir, &["--format", "json"]));
        let competitor = &out["checks"][0]["candidates"][1];
        assert_eq!(competitor["below_noise"], below, "{slowdown}: {competitor}");
    }
}

/// The margin (5 %) is the boundary: 1.06× is violated, 1.04× holds, and
/// moving the margin across either slowdown flips its verdict.
/// `dir`'s results.json with another noise floor (the barrier's median).
fn with_noise_floor(dir: &Path, floor_s: f64) {
    let meta = format!(
        r#"{{"meta": {{"timer_resolution_s": 1e-9, "noise_floor_s": {floor_s:e}}}, "complete": true, "checks": []}}"#
    );
    std::fs::write(dir.join("results.json"), meta).unwrap();
}

/// A violation whose medians differ by less than the noise floor (0.6 µs
/// against 1 µs) is reported as violated but fails no `--fail-on`; with a
/// floor of 0.1 µs the same observations fail from `low` on.
#[test]
fn a_violation_within_the_noise_floor_does_not_gate() {
    let dir = known_slowdown("analyze-margin-within-floor", 1.06, &TIGHT);
    let (verdict, severity, statuses) = decided(&dir, &[]);
    assert_eq!((verdict.as_str(), severity.as_str()), ("violated", "low"));
    assert_eq!(statuses[1], ("low", 0));
    let out = analyze(&dir, &["--fail-on", "low"]);
    let text = String::from_utf8(out.stdout).unwrap() + &String::from_utf8(out.stderr).unwrap();
    assert!(
        words(&text).contains("1 case violated within the noise floor (~), not gated"),
        "{text}"
    );
    with_noise_floor(&dir, 1e-7);
    let (_, _, statuses) = decided(&dir, &[]);
    assert_eq!(statuses[1], ("low", 1));
}

#[test]
fn the_margin_separates_violated_from_holds_from_both_sides() {
    let above = known_slowdown("analyze-margin-above", 1.06, &TIGHT);
    // Differences of 0.6 µs, beyond a floor of 0.1 µs: they gate.
    with_noise_floor(&above, 1e-7);
    let (verdict, severity, statuses) = decided(&above, &[]);
    assert_eq!((verdict.as_str(), severity.as_str()), ("violated", "low"));
    assert_eq!(statuses[1], ("low", 1));
    assert_eq!(statuses[2], ("medium", 0));
    let (verdict, _, statuses) = decided(&above, &["--margin", "1.08"]);
    assert_eq!(verdict, "holds", "1.06× within a margin of 8 %");
    assert_eq!(statuses[0], ("inconclusive", 0));

    let below = known_slowdown("analyze-margin-below", 1.04, &TIGHT);
    with_noise_floor(&below, 1e-7);
    let (verdict, severity, statuses) = decided(&below, &[]);
    assert_eq!((verdict.as_str(), severity.as_str()), ("holds", "ok"));
    assert_eq!(statuses[0], ("inconclusive", 0));
    let (verdict, _, statuses) = decided(&below, &["--margin", "1.02"]);
    assert_eq!(verdict, "violated", "1.04× beyond a margin of 2 %");
    assert_eq!(statuses[1], ("low", 1));
}

/// `pgcheck tune` on a run of an MPICH that is not the one this pgcheck is
/// linked with (whichever that is): the library's selection tree cannot be
/// read, so tune falls back to MPICH's algorithm variables, says why, and
/// writes the decision (recursive doubling, 3× faster than default).
#[test]
fn tune_of_another_mpich_s_run_writes_the_algorithm_variables() {
    let dir = scratch("analyze-tune-fallback");
    write_raw(
        &dir,
        &[
            ("allreduce", 8, "default", &timings(30e-6, 40, 1)),
            (
                "allreduce",
                8,
                "allreduce_as_library_recursive_doubling",
                &timings(10e-6, 40, 2),
            ),
            ("gather", 8, "default", &timings(10e-6, 40, 3)),
            (
                "gather",
                8,
                "gather_as_library_linear",
                &timings(10e-6, 40, 4),
            ),
        ],
    );
    let out = dir.join("out");
    let reported = analyze(&dir, &REPORT_ONLY);
    assert_eq!(reported.status.code(), Some(0));
    let path = out.join("results.json");
    let mut results: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let algorithm = |collective: &str, item: &str, value: i32| {
        serde_json::json!({
            "name": format!("{collective}_as_library_{item}"),
            "library": "mpich",
            "collective": collective,
            "variable": format!("MPIR_CVAR_{}_INTRA_ALGORITHM", collective.to_uppercase()),
            "value": value,
            "item": item,
        })
    };
    results["meta"]["library_algorithms"] = serde_json::json!([
        algorithm("allreduce", "recursive_doubling", 3),
        algorithm("gather", "linear", 2)
    ]);
    results["meta"]["mpi_library"] = "MPICH Version:\t0.0 (no such build)\n".into();
    results["meta"]["processes"] = 2.into();
    std::fs::write(&path, results.to_string()).unwrap();
    let file = dir.join("tuned.env");
    let tune = Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["tune", out.to_str().unwrap(), "--output"])
        .arg(&file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&tune.stdout),
        String::from_utf8_lossy(&tune.stderr),
    );
    assert_eq!(tune.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        words(&stderr).contains(
            "pgcheck: warning: no collective-selection JSON (the run used MPICH Version: 0.0 (no such build), this pgcheck is linked with"
        ) && words(&stderr).contains("writing the algorithm variables instead"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# MPICH algorithm variables written by pgcheck tune\n\
         MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling\n"
    );
    assert!(
        stdout.contains("MPI_Allreduce 8 B (8 × byte bor): select recursive_doubling (MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=3): recursive_doubling is 3.0")
            && stdout.contains("1 of 2 cases changed")
            && stdout.contains(&format!(
                "load it with:\n  the variables of {} in each rank's environment\n",
                file.display()
            )),
        "{stdout}"
    );
    // A file that cannot be written is an I/O error (status 4, as in `run`,
    // `compare` and `history`) that names it.
    let missing = dir.join("no-such-dir").join("tuned.env");
    let tune = Command::new(env!("CARGO_BIN_EXE_pgcheck"))
        .args(["tune", out.to_str().unwrap(), "--output"])
        .arg(&missing)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&tune.stderr);
    assert_eq!(tune.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot write {}: No such file or directory",
            missing.display()
        )),
        "{stderr}"
    );
}

/// Known truth for the machine's states: rounds alternate between a fast
/// state (a calibration barrier of 0.5 µs) and a slow one (0.85 µs); the
/// competitor is 1.3× faster than `default` in the slow rounds and 0.8× in
/// the fast ones. The verdict names both slowdowns and the answer says
/// that one state reverses it; the same rounds in one state of the machine
/// say nothing of states. results.json stays valid against its schema.
#[test]
fn a_verdict_one_state_of_the_machine_reverses_is_named() {
    let slow_round = |r: usize| r.is_multiple_of(3) || r % 5 == 1;
    let rounds = 30;
    for states_differ in [true, false] {
        let dir = scratch(&format!("analyze-states-{states_differ}"));
        let per_round = |factor: &dyn Fn(usize) -> f64, seed: u64| -> Vec<Vec<f64>> {
            (0..rounds)
                .map(|r| timings(10e-6 * factor(r), 50, seed + r as u64))
                .collect()
        };
        let calibration: Vec<Vec<f64>> = (0..rounds)
            .map(|r| match states_differ && slow_round(r) {
                true => vec![0.85e-6],
                false => vec![0.5e-6],
            })
            .collect();
        write_run(
            &dir,
            &[
                (
                    8192,
                    "default",
                    per_round(&|r| if slow_round(r) { 1.3 } else { 0.8 }, 1),
                ),
                (8192, "allreduce_as_reduce_bcast", per_round(&|_| 1.0, 1000)),
                (8192, "calibration", calibration),
            ],
        );
        let r = json(&analyze(&dir, &["--format", "json", "--fail-on", "none"]));
        common::assert_valid(&dir.join("results.json"), &r);
        let check = &r["checks"][0];
        let candidates: Vec<&str> = check["candidates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap())
            .collect();
        assert!(!candidates.contains(&"calibration"), "{candidates:?}");
        let text = analyze(&dir, &["--fail-on", "none"]);
        let said = words(&String::from_utf8_lossy(&text.stdout));
        if !states_differ {
            assert!(check.get("state").is_none(), "{check}");
            assert!(!said.contains("state"), "{said}");
            continue;
        }
        let state = &check["state"];
        let slowdown = |s: &str| state[s]["slowdown"].as_f64().unwrap();
        assert!((slowdown("slow") - 1.3).abs() < 0.03, "{state}");
        assert!((slowdown("fast") - 0.8).abs() < 0.03, "{state}");
        assert_eq!(state["competitor"], "allreduce_as_reduce_bcast");
        let in_slow = (0..rounds).filter(|&r| slow_round(r)).count() as u64;
        assert_eq!(state["slow"]["rounds"], in_slow, "{state}");
        assert!(
            said.contains("one state reverses the verdict of 1 case (allreduce 8 KiB)")
                && said.contains("slowdown 1.30 against reduce_bcast"),
            "{said}"
        );
    }
}
