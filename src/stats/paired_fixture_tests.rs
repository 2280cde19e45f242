//! Every case of `tests/fixtures/paired_tests.json`, written by
//! `tests/fixtures/make_paired_fixtures.py` with SciPy.

use serde_json::Value;

use super::scipy::assert_close;
use super::wilcoxon::Method;
use super::{sign, wilcoxon, Alternative, TestOutcome};

const EXACT_TOLERANCE: f64 = 1e-9;
const APPROX_TOLERANCE: f64 = 1e-6;

fn fixture() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/paired_tests.json"
    );
    let text = std::fs::read_to_string(path).expect("fixture readable");
    serde_json::from_str(&text).expect("fixture is JSON")
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array().expect("array").iter().map(number).collect()
}

/// A sample from its IEEE bit patterns: serde_json (without the
/// float_roundtrip feature) may parse a decimal 1 ulp off, which can make or
/// break a tie among the differences.
fn sample(case: &Value, key: &str) -> Vec<f64> {
    let values: Vec<f64> = case[format!("{key}_bits")]
        .as_array()
        .expect("bit patterns")
        .iter()
        .map(|b| f64::from_bits(b.as_u64().expect("u64")))
        .collect();
    let decimal = numbers(&case[key]);
    assert_eq!(values.len(), decimal.len());
    for (v, d) in values.iter().zip(&decimal) {
        assert!((v - d).abs() <= 2.0 * f64::EPSILON * v.abs(), "{v} vs {d}");
    }
    values
}

/// Runs `check(name, x, y, alternative name, alternative, expected)` on every
/// alternative of every case that has `key`; returns how many cases did.
fn for_each(
    key: &str,
    mut check: impl FnMut(&str, &[f64], &[f64], &str, Alternative, &Value),
) -> usize {
    let root = fixture();
    let mut checked = 0;
    for case in root["cases"].as_array().expect("cases") {
        let Some(results) = case.get(key) else {
            continue;
        };
        let name = case["name"].as_str().expect("name");
        let (x, y) = (sample(case, "x"), sample(case, "y"));
        let results = results.as_object().expect("results by alternative");
        assert_eq!(results.len(), 3, "{name}");
        for (alternative, expected) in results {
            check(
                name,
                &x,
                &y,
                alternative,
                super::scipy::alternative(alternative),
                expected,
            );
        }
        checked += 1;
    }
    checked
}

/// An exact test's statistic (named, exactly) and p-value match SciPy's.
#[track_caller]
fn assert_exact(what: &str, o: &TestOutcome, (name, statistic): (&str, &Value), expected: &Value) {
    assert_close(
        &format!("{what} {name}"),
        o.statistic,
        number(statistic),
        0.0,
    );
    assert_close(
        &format!("{what} p"),
        o.p_value,
        number(&expected["p"]),
        EXACT_TOLERANCE,
    );
}

#[test]
fn wilcoxon_exact_matches_scipy_permutations() {
    let checked = for_each(
        "wilcoxon_exact",
        |name, x, y, alt_name, alternative, expected| {
            let what = format!("{name} exact {alt_name}");
            for method in [Method::Exact, Method::Auto] {
                let o = wilcoxon::test(x, y, alternative, method);
                assert_exact(&what, &o, ("R+", &expected["r_plus"]), expected);
            }
        },
    );
    assert!(checked >= 80, "{checked}");
}

#[test]
fn wilcoxon_approx_matches_scipy_asymptotic() {
    let checked = for_each(
        "wilcoxon_approx",
        |name, x, y, alt_name, alternative, expected| {
            let what = format!("{name} approx {alt_name}");
            let o = wilcoxon::test(x, y, alternative, Method::Approx);
            let r_plus = number(&expected["r_plus"]);
            assert_close(&format!("{what} R+"), o.statistic, r_plus, 0.0);
            if alternative == Alternative::TwoSided {
                // SciPy reports min(R+, R−) for the two-sided test.
                let n = x.iter().zip(y).filter(|(a, b)| a != b).count() as f64;
                let r_minus = n * (n + 1.0) / 2.0 - r_plus;
                assert_close(
                    &what,
                    r_plus.min(r_minus),
                    number(&expected["statistic"]),
                    0.0,
                );
            }
            assert_close(
                &format!("{what} p"),
                o.p_value,
                number(&expected["p"]),
                APPROX_TOLERANCE,
            );
            if x.iter().zip(y).filter(|(a, b)| a != b).count() > wilcoxon::EXACT_AUTO_MAX_N {
                assert_eq!(o, wilcoxon::test(x, y, alternative, Method::Auto), "{what}");
            }
        },
    );
    assert!(checked >= 40, "{checked}");
}

#[test]
fn sign_test_matches_scipy_binomtest() {
    let checked = for_each("sign", |name, x, y, alt_name, alternative, expected| {
        let what = format!("{name} sign {alt_name}");
        let o = sign::test(x, y, alternative);
        assert_exact(&what, &o, ("k", &expected["k"]), expected);
    });
    assert!(checked >= 80, "{checked}");
    let root = fixture();
    let counts = root["sign_counts"].as_array().expect("sign_counts");
    assert!(counts.len() >= 40);
    for case in counts {
        for (alt_name, expected) in case.as_object().expect("by alternative") {
            let (k, n) = (
                number(&expected["k"]) as usize,
                number(&expected["n"]) as usize,
            );
            let p = sign::binomial_half_p(k, n, super::scipy::alternative(alt_name));
            let what = format!("binomtest({k}, {n}, {alt_name})");
            assert_close(&what, p, number(&expected["p"]), EXACT_TOLERANCE);
        }
    }
}

#[test]
fn cases_without_nonzero_differences_have_no_results() {
    let root = fixture();
    let case = root["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .find(|c| c["name"] == "all_zero_n4")
        .expect("all-zero case");
    assert!(case.get("wilcoxon_exact").is_none() && case.get("sign").is_none());
    let (x, y) = (sample(case, "x"), sample(case, "y"));
    assert_eq!(
        wilcoxon::test(&x, &y, Alternative::Greater, Method::Auto).p_value,
        1.0
    );
    assert_eq!(sign::test(&x, &y, Alternative::TwoSided).p_value, 1.0);
}
