//! Exact sign test on paired differences d_i = x_i − y_i: the number of
//! positive differences among the nonzero ones is Binomial(n, 1/2) under the
//! null, as SciPy's `binomtest(k_pos, n_nonzero, 0.5, alternative)`.

use statrs::function::factorial::ln_binomial;

use super::special::binomial_exact;
use super::{Alternative, TestOutcome};

/// Sign test of x against y, paired by index; the statistic is the number of
/// positive differences. Panics if the lengths differ. No nonzero difference
/// gives the undefined outcome (NaN, p = 1).
pub fn test(x: &[f64], y: &[f64], alternative: Alternative) -> TestOutcome {
    assert_eq!(x.len(), y.len(), "paired samples must have equal lengths");
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    test_differences(&d, alternative)
}

/// As [`test()`], on the differences x − y.
pub fn test_differences(d: &[f64], alternative: Alternative) -> TestOutcome {
    let positive = d.iter().filter(|&&v| v > 0.0).count();
    let negative = d.iter().filter(|&&v| v < 0.0).count();
    let n = positive + negative;
    if n == 0 {
        return TestOutcome::undefined();
    }
    TestOutcome {
        statistic: positive as f64,
        p_value: binomial_half_p(positive, n, alternative),
        df: None,
    }
}

/// P-value of k successes in n trials of probability 1/2.
pub(super) fn binomial_half_p(k: usize, n: usize, alternative: Alternative) -> f64 {
    let p = match alternative {
        Alternative::Greater => upper_tail(k, n),
        // By symmetry P(X ≤ k) = P(X ≥ n − k).
        Alternative::Less => upper_tail(n - k, n),
        // Symmetric null: SciPy's "as or less likely" two-sided p is twice the smaller tail.
        Alternative::TwoSided if 2 * k == n => 1.0,
        Alternative::TwoSided => 2.0 * upper_tail(k.max(n - k), n),
    };
    p.clamp(0.0, 1.0)
}

/// Largest n for which [`upper_tail`] counts the outcomes exactly in u128.
const EXACT_MAX_N: usize = 120;

/// P(X ≥ k) for X ~ Binomial(n, 1/2).
fn upper_tail(k: usize, n: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    if n <= EXACT_MAX_N {
        // Exact count, one rounding to f64; dividing by 2^n is exact.
        let count: u128 = (k..=n)
            .map(|j| binomial_exact(n as u64, j as u64).expect("fits for n <= 120"))
            .sum();
        return count as f64 * 0.5f64.powi(n as i32);
    }
    // Relative error about 1e-13 from ln_binomial.
    let ln_half_n = n as f64 * std::f64::consts::LN_2;
    // Sum the smaller terms first; no cancellation since every term is positive.
    (k..=n)
        .rev()
        .map(|j| (ln_binomial(n as u64, j as u64) - ln_half_n).exp())
        .sum::<f64>()
        .min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cases_by_hand() {
        // 7 of 10 positive: P(X >= 7) = (120 + 45 + 10 + 1) / 1024.
        let p = binomial_half_p(7, 10, Alternative::Greater);
        assert!((p - 176.0 / 1024.0).abs() < 1e-15);
        let p = binomial_half_p(7, 10, Alternative::TwoSided);
        assert!((p - 352.0 / 1024.0).abs() < 1e-15);
        let p = binomial_half_p(7, 10, Alternative::Less);
        assert!((p - (1024.0 - 176.0 + 120.0) / 1024.0).abs() < 1e-15);
        assert_eq!(binomial_half_p(5, 10, Alternative::TwoSided), 1.0);
        assert_eq!(binomial_half_p(0, 3, Alternative::Greater), 1.0);
        assert_eq!(binomial_half_p(3, 3, Alternative::Greater), 0.125);
    }

    #[test]
    fn zeros_discarded_and_all_zero_undefined() {
        let o = test(
            &[2.0, 1.0, 5.0, 4.0],
            &[1.0, 1.0, 3.0, 4.0],
            Alternative::Greater,
        );
        assert_eq!((o.statistic, o.p_value), (2.0, 0.25));
        for alternative in [Alternative::Greater, Alternative::TwoSided] {
            let o = test(&[1.0, 2.0], &[1.0, 2.0], alternative);
            assert!(o.statistic.is_nan());
            assert_eq!(o.p_value, 1.0);
            assert_eq!(test_differences(&[], alternative).p_value, 1.0);
        }
    }
}
