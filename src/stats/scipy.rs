//! What the fixture tests share: reading SciPy's names, comparing with its
//! values.

use super::Alternative;

/// SciPy's name of an alternative.
pub fn alternative(name: &str) -> Alternative {
    match name {
        "greater" => Alternative::Greater,
        "less" => Alternative::Less,
        "two-sided" => Alternative::TwoSided,
        other => panic!("unknown alternative {other}"),
    }
}

/// Asserts `actual` is `expected` within the relative `tolerance`.
#[track_caller]
pub fn assert_close(what: &str, actual: f64, expected: f64, tolerance: f64) {
    let ok = actual == expected
        || (actual - expected).abs() <= tolerance * expected.abs().max(f64::MIN_POSITIVE);
    assert!(ok, "{what}: got {actual:e}, SciPy {expected:e}");
}
