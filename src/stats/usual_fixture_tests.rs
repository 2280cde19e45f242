//! Every case of `tests/fixtures/usual.json`, written by
//! `tests/fixtures/make_usual_fixtures.py` with SciPy.

use serde_json::Value;

use super::scipy::assert_close;
use super::usual::{self, Model, ModelFit, Windows};

/// λ, its interval, t_max and the like: the same closed forms on both sides.
const CLOSED_FORM_TOLERANCE: f64 = 1e-12;
/// Log-likelihoods, expected counts, χ² statistics and p-values, where
/// statrs' and SciPy's special functions differ in the last digits.
const SPECIAL_TOLERANCE: f64 = 1e-9;
/// statrs' regularised incomplete gamma (behind `Poisson::cdf`) loses about
/// 5e-13·λ relative, and a bin's mass, a difference of two such values, up
/// to 20 times more: 3e-8 at λ = 55 558 windows (the case with a 10⁵-window
/// outlier), where SciPy agrees with mpmath to 1e-14. Added to the Poisson
/// bins' tolerance per window of λ.
const POISSON_BIN_TOLERANCE_PER_LAMBDA: f64 = 1e-12;
/// Below this SciPy's p-values are at or past underflow: there p is only
/// checked to be as tiny, and ln p (which mpmath gives for every case)
/// carries the comparison.
const SMALLEST_CHECKED_P: f64 = 1e-300;
/// ln p against mpmath's, relative (absolute below |ln p| = 1).
const LOG_P_TOLERANCE: f64 = 1e-10;

fn fixture() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/usual.json");
    let text = std::fs::read_to_string(path).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn integer(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not an integer: {v}"))
}

/// The sample from its IEEE bit patterns, checked against the decimals.
fn observations(case: &Value) -> Vec<f64> {
    let values: Vec<f64> = case["observations_bits"]
        .as_array()
        .expect("bit patterns")
        .iter()
        .map(|b| f64::from_bits(integer(b)))
        .collect();
    let decimal = case["observations"].as_array().expect("observations");
    assert_eq!(values.len(), decimal.len());
    for (v, d) in values.iter().zip(decimal) {
        assert!((v - number(d)).abs() <= 2.0 * f64::EPSILON * v.abs());
    }
    values
}

fn assert_p(what: &str, actual: f64, expected: f64) {
    if expected < SMALLEST_CHECKED_P {
        assert!(
            actual < 1e-290,
            "{what}: got {actual:e}, SciPy {expected:e}"
        );
    } else {
        assert_close(what, actual, expected, SPECIAL_TOLERANCE);
    }
}

fn model(name: &str) -> Model {
    match name {
        "poisson" => Model::Poisson,
        "exponential" => Model::Exponential,
        other => panic!("unknown model {other}"),
    }
}

fn check_fit(what: &str, fit: &ModelFit, expected: &Value, far_tail: &mut usize) {
    match expected["lambda"].as_f64() {
        Some(lambda) => {
            assert_close(
                &format!("{what} λ"),
                fit.lambda,
                lambda,
                CLOSED_FORM_TOLERANCE,
            );
            let ci = expected["lambda_ci"].as_array().expect("interval");
            for (side, (&got, want)) in fit.lambda_ci.iter().zip(ci).enumerate() {
                let what = format!("{what} λ interval [{side}]");
                assert_close(&what, got, number(want), CLOSED_FORM_TOLERANCE);
            }
        }
        None => assert_eq!(fit.lambda, f64::INFINITY, "{what} λ"),
    }
    assert_close(
        &format!("{what} mean"),
        fit.mean_windows,
        number(&expected["mean_windows"]),
        CLOSED_FORM_TOLERANCE,
    );
    assert_close(
        &format!("{what} log-likelihood"),
        fit.log_likelihood,
        number(&expected["log_likelihood"]),
        SPECIAL_TOLERANCE,
    );
    let bins = expected["bins"].as_array().expect("bins");
    let bin_tolerance = match fit.model {
        Model::Poisson => SPECIAL_TOLERANCE + POISSON_BIN_TOLERANCE_PER_LAMBDA * fit.lambda,
        Model::Exponential => SPECIAL_TOLERANCE,
    };
    assert_eq!(fit.bins.len(), bins.len(), "{what} bins: {:?}", fit.bins);
    for (i, (got, want)) in fit.bins.iter().zip(bins).enumerate() {
        let what = format!("{what} bin {i}");
        assert_eq!(got.first, integer(&want["first"]), "{what}");
        assert_eq!(got.last, want["last"].as_u64(), "{what}");
        assert_eq!(got.observed, integer(&want["observed"]), "{what}");
        assert_close(
            &format!("{what} expected"),
            got.expected,
            number(&want["expected"]),
            bin_tolerance,
        );
    }
    match (&fit.gof, expected["gof"].is_null()) {
        (None, true) => {}
        (Some(gof), false) => {
            let want = &expected["gof"];
            assert_eq!(gof.df as u64, integer(&want["df"]), "{what} df");
            assert_close(
                &format!("{what} χ²"),
                gof.statistic,
                number(&want["statistic"]),
                SPECIAL_TOLERANCE,
            );
            assert_p(&format!("{what} p"), gof.p_value, number(&want["p"]));
            let log_p = number(&want["log_p"]);
            assert!(
                (gof.log_p_value - log_p).abs() <= LOG_P_TOLERANCE * log_p.abs().max(1.0),
                "{what} ln p: got {}, mpmath {log_p}",
                gof.log_p_value
            );
            if number(&want["p"]) < SMALLEST_CHECKED_P {
                *far_tail += 1;
            }
        }
        (got, _) => panic!("{what}: χ² {got:?}, SciPy {}", expected["gof"]),
    }
}

#[test]
fn usual_matches_scipy() {
    let root = fixture();
    let cases = root["cases"].as_array().expect("cases");
    assert!(cases.len() >= 25, "{}", cases.len());
    let mut far_tail = 0;
    for case in cases {
        let name = case["name"].as_str().expect("name");
        let t = observations(case);
        let r = number(&case["resolution"]);
        let qmax = number(&case["qmax"]);
        let e = &case["expected"];

        let rule = usual::window_ticks(&t, r).expect("window rule");
        assert_eq!(rule, integer(&e["rule_window_ticks"]), "{name} rule");
        let m = integer(&e["window_ticks"]);
        let windows = Windows::new(&t, r, m).expect("windows");
        let sum: u64 = windows.occupied.iter().map(|&(k, c)| k * c).sum();
        assert_eq!(sum, integer(&e["sum_k"]), "{name} Σk");
        for (key, fitted) in e["fits"].as_object().expect("fits") {
            check_fit(
                &format!("{name} {key}"),
                &windows.fit(model(key)),
                fitted,
                &mut far_tail,
            );
        }

        let u = match case["forced_window_ticks"].as_u64() {
            Some(m) => usual::fit_windowed(&t, r, m, qmax),
            None => usual::fit(&t, r, qmax),
        }
        .expect("fit");
        let chosen = e["model"].as_str().expect("model");
        assert_eq!(u.model, model(chosen), "{name}");
        assert_eq!(u.window_ticks, m, "{name}");
        assert_eq!(u.tmin_s, t.iter().copied().fold(f64::INFINITY, f64::min));
        // serde_json may parse a decimal 1 ulp off.
        assert_close(
            &format!("{name} t_min"),
            u.tmin_s,
            number(&e["tmin"]),
            1e-15,
        );
        assert_eq!(u.quantile_window, integer(&e["quantile_window"]), "{name}");
        assert_close(
            &format!("{name} t_err,max"),
            u.terr_max_s,
            number(&e["terr_max"]),
            CLOSED_FORM_TOLERANCE,
        );
        assert_close(
            &format!("{name} t_max"),
            u.tmax_s,
            number(&e["tmax"]),
            CLOSED_FORM_TOLERANCE,
        );
        assert_close(
            &format!("{name} overhead share"),
            u.overhead_share,
            number(&e["overhead_share"]),
            CLOSED_FORM_TOLERANCE,
        );
        assert_eq!(u.above_tmax as u64, integer(&e["above_tmax"]), "{name}");
        assert_close(
            &format!("{name} empirical"),
            u.empirical_tmax_s,
            number(&e["empirical_tmax"]),
            CLOSED_FORM_TOLERANCE,
        );
        let chosen_fit = &e["fits"][chosen];
        match chosen_fit["gof"].get("p") {
            Some(p) => assert_p(name, u.fit_p.expect("p"), number(p)),
            None => assert_eq!(u.fit_p, None, "{name}"),
        }

        let h = u.histogram(&t, integer(&e["histogram_windows"]) as usize);
        let counts: Vec<u64> = e["histogram_counts"]
            .as_array()
            .expect("counts")
            .iter()
            .map(integer)
            .collect();
        assert_eq!(h.counts, counts, "{name} histogram");
        assert_eq!(h.beyond, integer(&e["histogram_beyond"]), "{name}");
        assert_eq!(h.edges_s.len(), counts.len() + 1, "{name}");
        let expected = e["histogram_expected"].as_array().expect("expected");
        for (i, (&got, want)) in h.expected.iter().zip(expected).enumerate() {
            // The histogram rebuilds θ = λ·w from λ = θ/w: one rounding more.
            let what = format!("{name} histogram expected {i}");
            assert_close(&what, got, number(want), SPECIAL_TOLERANCE);
        }
    }
    // The χ² tails past underflow are compared, not skipped.
    assert!(
        far_tail >= 5,
        "only {far_tail} p-values below 1e-300 checked"
    );
}
