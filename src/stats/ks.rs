//! Two-sample Kolmogorov–Smirnov test, asymptotic, as SciPy's
//! `ks_2samp(x, y, method='asymp')`.
//!
//! Direction: SciPy names the one-sided KS alternatives after the empirical
//! CDFs (its 'greater' means F_x > F_y somewhere, i.e. x tends to be
//! *smaller*). Here, as in every test of [`super`], [`Alternative::Greater`]
//! means x tends to be larger than y, so:
//! - `Greater` = SciPy's 'less': D = max(F_y − F_x), clipped at 0;
//! - `Less` = SciPy's 'greater': D = max(F_x − F_y);
//! - `TwoSided`: D = max |F_x − F_y|.
//!
//! p-values: two-sided, SciPy's `kstwo.sf(D, round(n·m / (n + m)))`; one-sided,
//! Hodges' approximation exp(−2z² − 2z(m + 2n) / (3√(mn(m + n)))) with
//! z = D·√(mn / (m + n)) and m ≥ n.

use super::describe::sorted;
use super::kolmogorov::kstwo_sf;
use super::ties::TieGroups;
use super::{Alternative, TestOutcome};

/// Kolmogorov–Smirnov test of x against y. An empty sample gives the
/// undefined outcome (statistic NaN, p = 1).
pub fn test(x: &[f64], y: &[f64], alternative: Alternative) -> TestOutcome {
    test_sorted(&sorted(x), &sorted(y), alternative)
}

/// As [`test()`], for samples already in ascending order.
pub fn test_sorted(x_sorted: &[f64], y_sorted: &[f64], alternative: Alternative) -> TestOutcome {
    let (nx, ny) = (x_sorted.len(), y_sorted.len());
    if nx == 0 || ny == 0 {
        return TestOutcome::undefined();
    }
    let (x_cdf_above, y_cdf_above) = cdf_extremes(x_sorted, y_sorted);
    let statistic = match alternative {
        Alternative::Greater => y_cdf_above,
        Alternative::Less => x_cdf_above,
        Alternative::TwoSided => x_cdf_above.max(y_cdf_above),
    };
    let (m, n) = (nx.max(ny) as f64, nx.min(ny) as f64);
    let effective_n = m * n / (m + n);
    let p_value = match alternative {
        Alternative::TwoSided => match effective_n.round_ties_even() as u64 {
            // One observation each (SciPy gives NaN): D is 1 whenever they differ.
            0 => 1.0,
            rounded => kstwo_sf(rounded, statistic),
        },
        Alternative::Greater | Alternative::Less => {
            let z = effective_n.sqrt() * statistic;
            let exponent = -2.0 * z * z - 2.0 * z * (m + 2.0 * n) / (m * n * (m + n)).sqrt() / 3.0;
            exponent.exp()
        }
    };
    TestOutcome {
        statistic,
        p_value: p_value.clamp(0.0, 1.0),
        df: None,
    }
}

/// (max(F_x − F_y), max(F_y − F_x)) over the merged sample, both at least 0.
fn cdf_extremes(x_sorted: &[f64], y_sorted: &[f64]) -> (f64, f64) {
    let (nx, ny) = (x_sorted.len() as f64, y_sorted.len() as f64);
    let (mut most, mut least) = (0.0f64, 0.0f64);
    for group in TieGroups::new(x_sorted, y_sorted) {
        // Evaluated after the whole tie group, as SciPy's searchsorted(side='right').
        let x_cdf = (group.x_below + group.in_x) as f64 / nx;
        let y_cdf = (group.y_below + group.in_y) as f64 / ny;
        let difference = x_cdf - y_cdf;
        most = most.max(difference);
        least = least.min(difference);
    }
    (most, (-least).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_sample_is_undefined() {
        let o = test(&[], &[1.0], Alternative::TwoSided);
        assert!(o.statistic.is_nan());
        assert_eq!(o.p_value, 1.0);
    }

    #[test]
    fn identical_samples_have_p_one() {
        for alternative in [
            Alternative::Greater,
            Alternative::Less,
            Alternative::TwoSided,
        ] {
            let o = test(&[2.0; 5], &[2.0; 3], alternative);
            assert_eq!((o.statistic, o.p_value), (0.0, 1.0));
            let o = test(&[1.0], &[1.0], alternative);
            assert_eq!((o.statistic, o.p_value), (0.0, 1.0));
        }
    }

    #[test]
    fn direction_follows_the_shared_convention() {
        let x = [5.0, 6.0, 7.0, 8.0];
        let y = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(test(&x, &y, Alternative::Greater).statistic, 1.0);
        assert_eq!(test(&x, &y, Alternative::Less).statistic, 0.0);
        assert_eq!(test(&x, &y, Alternative::Less).p_value, 1.0);
        assert!(test(&x, &y, Alternative::Greater).p_value < 0.05);
    }

    #[test]
    fn single_elements() {
        // SciPy's p is NaN here (kstwo with n = round(0.5) = 0); D = 1 is certain.
        let o = test(&[2.0], &[1.0], Alternative::TwoSided);
        assert_eq!((o.statistic, o.p_value), (1.0, 1.0));
        // scipy.stats.ks_2samp([2], [1], method='asymp', alternative='less')
        let o = test(&[2.0], &[1.0], Alternative::Greater);
        assert_eq!(o.statistic, 1.0);
        assert!((o.p_value - (-2.0f64).exp()).abs() < 1e-15);
    }
}
