//! Every case of `tests/fixtures/two_sample_tests.json` (SciPy 1.17.1,
//! written by `tests/fixtures/make_two_sample_fixtures.py`).

use serde_json::Value;

use super::mann_whitney::Method;
use super::{describe, ks, mann_whitney, welch, Alternative, TestOutcome};

const RELATIVE_TOLERANCE: f64 = 1e-9;
/// Below this p-values are compared on a log scale.
pub(super) const LOG_SCALE_BELOW: f64 = 1e-20;
/// Relative error of ln p allowed below [`LOG_SCALE_BELOW`]: for p from
/// 1e-20 down to 1e-300, 5e-11 to 7e-10 relative in p, never looser than
/// [`RELATIVE_TOLERANCE`] above; one tolerance for every magnitude.
pub(super) const LN_TOLERANCE: f64 = 1e-12;

struct Case {
    name: String,
    x: Vec<f64>,
    y: Vec<f64>,
    json: Value,
}

/// Within the fixtures' tolerance.
#[track_caller]
fn close(what: &str, actual: f64, expected: f64) {
    super::scipy::assert_close(what, actual, expected, RELATIVE_TOLERANCE);
}

fn cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/two_sample_tests.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture readable");
    let root: Value = serde_json::from_str(&text).expect("fixture is JSON");
    let numbers = |v: &Value| -> Vec<f64> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|n| n.as_f64().expect("number"))
            .collect()
    };
    let cases: Vec<Case> = root["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|case| Case {
            name: case["name"].as_str().expect("name").to_owned(),
            x: numbers(&case["x"]),
            y: numbers(&case["y"]),
            json: case.clone(),
        })
        .collect();
    assert!(!cases.is_empty());
    cases
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// SciPy's p-value: relative to p, or below [`LOG_SCALE_BELOW`] relative
/// to ln p. SciPy's p is a normal float (the generator refuses underflow)
/// or exactly 0 where the probability is 0 (KS's P(D > 1)).
#[track_caller]
pub(super) fn assert_p_close(what: &str, actual: f64, expected: f64) {
    if expected == 0.0 {
        assert_eq!(actual, 0.0, "{what}: got {actual:e}, SciPy exactly 0");
    } else if expected < LOG_SCALE_BELOW {
        assert!(
            expected >= f64::MIN_POSITIVE,
            "{what}: SciPy's {expected:e} is subnormal: regenerate the fixture"
        );
        let error = ((actual.ln() - expected.ln()) / expected.ln()).abs();
        assert!(
            error <= LN_TOLERANCE,
            "{what}: got {actual:e}, SciPy {expected:e} (relative error of ln p {error:e})"
        );
    } else {
        close(what, actual, expected);
    }
}

/// The alternatives given for one test of one case, with SciPy's names:
/// all three.
fn alternatives(results: &Value) -> Vec<(&str, &Value)> {
    let given: Vec<(&str, &Value)> = results
        .as_object()
        .expect("results by alternative")
        .iter()
        .map(|(name, result)| (name.as_str(), result))
        .collect();
    let mut names: Vec<&str> = given.iter().map(|(name, _)| *name).collect();
    names.sort_unstable();
    assert_eq!(names, ["greater", "less", "two-sided"]);
    given
}

/// Runs `check` on every case that has `key`, returning how many did.
fn for_each(key: &str, mut check: impl FnMut(&Case, &str, Alternative, &Value)) -> usize {
    let mut checked = 0;
    for case in cases() {
        let Some(results) = case.json.get(key) else {
            continue;
        };
        for (name, expected) in alternatives(results) {
            check(&case, name, super::scipy::alternative(name), expected);
        }
        checked += 1;
    }
    checked
}

fn check_mann_whitney(key: &str, method: Method) -> usize {
    for_each(key, |case, name, alternative, expected| {
        let o: TestOutcome = mann_whitney::test(&case.x, &case.y, alternative, method);
        let what = format!("{} {key} {name}", case.name);
        close(&format!("{what} U"), o.statistic, number(&expected["u"]));
        assert_p_close(&format!("{what} p"), o.p_value, number(&expected["p"]));
    })
}

#[test]
fn mann_whitney_exact_matches_scipy() {
    assert!(check_mann_whitney("mann_whitney_exact", Method::Exact) >= 12);
}

/// Auto is exact up to `EXACT_AUTO_MAX_PRODUCT` pairs (the fixture has a
/// case at it and one beyond), asymptotic beyond.
#[test]
fn mann_whitney_auto_is_exact_on_small_untied_cases() {
    let (mut exact_cases, mut asymptotic_cases) = (0, 0);
    for_each("mann_whitney_exact", |case, name, alternative, _| {
        let auto = mann_whitney::test(&case.x, &case.y, alternative, Method::Auto);
        let product = case.x.len() * case.y.len();
        let (method, count) = match product <= mann_whitney::EXACT_AUTO_MAX_PRODUCT {
            true => (Method::Exact, &mut exact_cases),
            false => (Method::Asymptotic, &mut asymptotic_cases),
        };
        let expected = mann_whitney::test(&case.x, &case.y, alternative, method);
        assert_eq!(auto, expected, "{} {name}: {product} pairs", case.name);
        *count += 1;
    });
    assert!(exact_cases >= 3 * 12 && asymptotic_cases >= 3);
}

/// The fixture reaches the tails: every test's p-values go below 1e-250
/// (SciPy's are never subnormal; a 0 is KS's P(D > 1) = 0), and the exact
/// Mann–Whitney ones below 1e-30, and they are compared, not skipped.
#[test]
fn far_tails_are_compared() {
    for (key, method) in [
        ("mann_whitney_asymptotic", Some(Method::Asymptotic)),
        ("mann_whitney_exact", Some(Method::Exact)),
        ("welch", None),
        ("ks_asymptotic", None),
    ] {
        let mut smallest = f64::INFINITY;
        for_each(key, |case, name, _, expected| {
            let p = number(&expected["p"]);
            assert!(
                p >= f64::MIN_POSITIVE || (p == 0.0 && key == "ks_asymptotic"),
                "{} {key} {name}: {p:e}",
                case.name
            );
            if p > 0.0 {
                smallest = smallest.min(p);
            }
        });
        let bound = match method {
            Some(Method::Exact) => 1e-30,
            _ => 1e-250,
        };
        assert!(smallest < bound, "{key}: smallest p {smallest:e}");
    }
}

#[test]
fn mann_whitney_asymptotic_matches_scipy() {
    assert!(check_mann_whitney("mann_whitney_asymptotic", Method::Asymptotic) >= 10);
}

#[test]
fn welch_matches_scipy() {
    let checked = for_each("welch", |case, name, alternative, expected| {
        let o = welch::test(&case.x, &case.y, alternative);
        let what = format!("{} welch {name}", case.name);
        close(&format!("{what} t"), o.statistic, number(&expected["t"]));
        let df = o.df.expect("df defined");
        close(&format!("{what} df"), df, number(&expected["df"]));
        assert_p_close(&format!("{what} p"), o.p_value, number(&expected["p"]));
    });
    assert!(checked >= 10);
}

#[test]
fn kolmogorov_smirnov_matches_scipy() {
    let checked = for_each("ks_asymptotic", |case, name, scipy_named, expected| {
        // SciPy names KS alternatives after the CDFs: its 'less' is "x tends larger".
        let alternative = match scipy_named {
            Alternative::Greater => Alternative::Less,
            Alternative::Less => Alternative::Greater,
            Alternative::TwoSided => Alternative::TwoSided,
        };
        let o = ks::test(&case.x, &case.y, alternative);
        let what = format!("{} ks {name}", case.name);
        close(&format!("{what} D"), o.statistic, number(&expected["d"]));
        assert_p_close(&format!("{what} p"), o.p_value, number(&expected["p"]));
    });
    assert!(checked >= 10);
}

#[test]
fn medians_match_numpy() {
    for case in cases() {
        for (sample, key) in [(&case.x, "median_x"), (&case.y, "median_y")] {
            let expected = number(&case.json[key]);
            let what = format!("{} {key}", case.name);
            close(&what, describe::median(sample), expected);
            close(
                &what,
                describe::median_sorted(&describe::sorted(sample)),
                expected,
            );
        }
    }
}

#[test]
fn sorted_variants_agree() {
    for case in cases() {
        let (xs, ys) = (describe::sorted(&case.x), describe::sorted(&case.y));
        for alternative in [
            Alternative::Greater,
            Alternative::Less,
            Alternative::TwoSided,
        ] {
            assert_eq!(
                mann_whitney::test(&case.x, &case.y, alternative, Method::Auto),
                mann_whitney::test_sorted(&xs, &ys, alternative, Method::Auto)
            );
            assert_eq!(
                ks::test(&case.x, &case.y, alternative),
                ks::test_sorted(&xs, &ys, alternative)
            );
        }
    }
}

/// `tests/fixtures/rank_sum_permutation.json`: tied samples, as per-round
/// medians quantised by a timer tick, against SciPy's exact permutation
/// test of U.
#[test]
fn mann_whitney_with_ties_is_scipys_permutation_test() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/rank_sum_permutation.json"
    );
    let root: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("readable"))
        .expect("fixture is JSON");
    let numbers =
        |v: &Value| -> Vec<f64> { v.as_array().expect("array").iter().map(number).collect() };
    let mut checked = 0;
    for case in root["cases"].as_array().expect("cases") {
        let name = case["name"].as_str().expect("name");
        let (x, y) = (numbers(&case["x"]), numbers(&case["y"]));
        for (alternative_name, expected) in alternatives(&case["permutation"]) {
            let alternative = super::scipy::alternative(alternative_name);
            for method in [Method::Auto, Method::Exact] {
                let o = mann_whitney::test(&x, &y, alternative, method);
                let what = format!("{name} {alternative_name} {method:?}");
                close(&format!("{what} U"), o.statistic, number(&expected["u"]));
                close(&format!("{what} p"), o.p_value, number(&expected["p"]));
            }
        }
        checked += 1;
    }
    assert!(checked >= 10);
}
