//! Mann–Whitney U test (Wilcoxon rank-sum), as SciPy's `mannwhitneyu` with
//! `use_continuity=True`.
//!
//! The statistic is U of x: the number of pairs (x_i, y_j) with x_i > y_j,
//! ties counting one half. Ranking is a sort of each sample followed by a
//! merge (O(n log n)), with average ranks for ties.

use super::describe::sorted;
use super::special::normal_sf;
use super::ties::TieGroups;
use super::{Alternative, TestOutcome};

/// How the p-value is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Exact when there are no ties and `nx * ny <= EXACT_AUTO_MAX_PRODUCT`,
    /// asymptotic otherwise.
    Auto,
    /// The exact null distribution of U, which assumes no ties. Falls back to
    /// the asymptotic p-value when there are ties, or when the computation,
    /// about min(nx, ny) · nx · ny / 2 steps, would exceed `EXACT_MAX_WORK`.
    Exact,
    /// Normal approximation with tie and continuity correction.
    Asymptotic,
}

/// Largest `nx * ny` for which [`Method::Auto`] computes the exact p-value:
/// at most 100 · 5 000 floating-point steps, under a millisecond. Beyond it
/// the normal approximation is close: at 100 × 100 within 0.1 % of the exact
/// p near 0.05 and within 5 % near 0.001.
pub const EXACT_AUTO_MAX_PRODUCT: usize = 10_000;

/// Largest min(nx, ny) · nx · ny / 2 for which [`Method::Exact`] computes the
/// exact p-value (about a second; e.g. 1 000 × 2 000 observations).
pub const EXACT_MAX_WORK: u128 = 1_000_000_000;

/// Mann–Whitney U test of x against y. An empty sample gives the undefined
/// outcome (statistic NaN, p = 1); all-tied samples give p = 1.
pub fn test(x: &[f64], y: &[f64], alternative: Alternative, method: Method) -> TestOutcome {
    test_sorted(&sorted(x), &sorted(y), alternative, method)
}

/// As [`test()`], for samples already in ascending order (e.g. from
/// [`super::describe::sorted`]), so that several tests can share one sort.
pub fn test_sorted(
    x_sorted: &[f64],
    y_sorted: &[f64],
    alternative: Alternative,
    method: Method,
) -> TestOutcome {
    let (nx, ny) = (x_sorted.len(), y_sorted.len());
    if nx == 0 || ny == 0 {
        return TestOutcome::undefined();
    }
    let ranks = rank_statistics(x_sorted, y_sorted);
    let pairs = nx as f64 * ny as f64;
    let u_x = ranks.u_x;
    // Like SciPy: the p-value is always an upper tail, of U_x, of U_y, or of the larger.
    let (u_tail, factor) = match alternative {
        Alternative::Greater => (u_x, 1.0),
        Alternative::Less => (pairs - u_x, 1.0),
        Alternative::TwoSided => (u_x.max(pairs - u_x), 2.0),
    };
    let exact_work = nx.min(ny) as u128 * nx as u128 * ny as u128 / 2;
    let exact = !ranks.has_ties
        && match method {
            Method::Auto => nx.saturating_mul(ny) <= EXACT_AUTO_MAX_PRODUCT,
            Method::Exact => exact_work <= EXACT_MAX_WORK,
            Method::Asymptotic => false,
        };
    let tail = if exact {
        // Without ties U is a whole number of pairs.
        exact_sf(nx, ny, u_tail as u64)
    } else {
        asymptotic_sf(u_tail, nx, ny, ranks.tie_term)
    };
    TestOutcome {
        statistic: u_x,
        p_value: (factor * tail).clamp(0.0, 1.0),
        df: None,
    }
}

struct RankStatistics {
    /// U of x.
    u_x: f64,
    /// Sum of t³ − t over the tie groups of the merged samples.
    tie_term: f64,
    has_ties: bool,
}

fn rank_statistics(x_sorted: &[f64], y_sorted: &[f64]) -> RankStatistics {
    // Counting pairs directly equals R_x − nx(nx + 1)/2 with average ranks,
    // and stays exact in f64 up to 2^53 pairs.
    let mut twice_u = 0.0;
    let mut tie_term = 0.0;
    let mut has_ties = false;
    for group in TieGroups::new(x_sorted, y_sorted) {
        twice_u += group.in_x as f64 * (2 * group.y_below + group.in_y) as f64;
        let t = (group.in_x + group.in_y) as f64;
        if t > 1.0 {
            has_ties = true;
            tie_term += t * t * t - t;
        }
    }
    RankStatistics {
        u_x: twice_u / 2.0,
        tie_term,
        has_ties,
    }
}

/// P(U ≥ u) by the normal approximation with tie and continuity correction.
fn asymptotic_sf(u: f64, nx: usize, ny: usize, tie_term: f64) -> f64 {
    let (nx, ny) = (nx as f64, ny as f64);
    let n = nx + ny;
    let mean = nx * ny / 2.0;
    let sd = (nx * ny / 12.0 * ((n + 1.0) - tie_term / (n * (n - 1.0)))).sqrt();
    let numerator = u - mean - 0.5;
    if sd.is_nan() || sd <= 0.0 {
        // Every value tied: U equals its mean and there is no evidence either way.
        return if numerator <= 0.0 { 1.0 } else { 0.0 };
    }
    normal_sf(numerator / sd)
}

/// P(U ≥ u) under the null hypothesis without ties, for sample sizes m and n.
pub(super) fn exact_sf(m: usize, n: usize, u: u64) -> f64 {
    let pairs = m as u64 * n as u64;
    if u == 0 {
        return 1.0;
    }
    if u > pairs {
        return 0.0;
    }
    // U is symmetric about pairs / 2: sum whichever tail is the shorter one.
    let mirrored = pairs - u;
    if mirrored < u {
        let pmf = exact_pmf(m, n, mirrored as usize);
        pmf.iter().sum::<f64>().min(1.0)
    } else {
        let pmf = exact_pmf(m, n, u as usize - 1);
        (1.0 - pmf.iter().sum::<f64>()).max(0.0)
    }
}

/// P(U = k) for k = 0..=max_k without ties.
///
/// The counts are the coefficients of the Gaussian binomial
/// [m + n choose m]_q = Π_{i=1..m} (1 − q^(n+i)) / (1 − q^i), built one factor
/// at a time (Harding 1984) in O(m · max_k). Each step is divided by
/// C(n + i, i) / C(n + i − 1, i − 1), so the entries stay probabilities and
/// cannot overflow whatever the sample sizes.
fn exact_pmf(m: usize, n: usize, max_k: usize) -> Vec<f64> {
    let (small, large) = if m <= n { (m, n) } else { (n, m) };
    let len = max_k + 1;
    let mut pmf = vec![0.0; len];
    pmf[0] = 1.0;
    for i in 1..=small {
        let shift = large + i;
        for k in (shift..len).rev() {
            pmf[k] -= pmf[k - shift];
        }
        for k in i..len {
            pmf[k] += pmf[k - i];
        }
        let scale = i as f64 / shift as f64;
        pmf.iter_mut().for_each(|p| *p *= scale);
    }
    pmf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(x: &[f64], y: &[f64], alternative: Alternative, method: Method) -> (f64, f64) {
        let o = test(x, y, alternative, method);
        (o.statistic, o.p_value)
    }

    #[test]
    fn exact_pmf_matches_enumeration() {
        // m = 2, n = 3: U over the C(5, 2) = 10 placements is 0,1,2,2,3,3,4,4,5,6.
        let pmf = exact_pmf(2, 3, 6);
        let counts = [1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0];
        for (p, c) in pmf.iter().zip(counts) {
            assert!((p - c / 10.0).abs() < 1e-15);
        }
        assert_eq!(exact_pmf(3, 2, 6), pmf);
    }

    #[test]
    fn exact_tails_are_complementary_and_tiny_tails_keep_precision() {
        // P(U >= u) = P(U <= 20 - u) = 1 - P(U >= 21 - u).
        for u in 1..=20 {
            let total = exact_sf(4, 5, u) + exact_sf(4, 5, 21 - u);
            assert!((total - 1.0).abs() < 1e-14, "u = {u}");
        }
        assert_eq!(exact_sf(4, 5, 21), 0.0);
        // All of x above all of y: p = 1 / C(nx + ny, nx).
        let p = exact_sf(60, 60, 3600);
        let expected = (-statrs::function::factorial::ln_binomial(120, 60)).exp();
        assert!((p / expected - 1.0).abs() < 1e-12, "{p} vs {expected}");
    }

    #[test]
    fn empty_sample_is_undefined() {
        for method in [Method::Auto, Method::Exact, Method::Asymptotic] {
            let o = test(&[], &[1.0], Alternative::Greater, method);
            assert!(o.statistic.is_nan());
            assert_eq!(o.p_value, 1.0);
            assert_eq!(
                test(&[1.0], &[], Alternative::TwoSided, method).p_value,
                1.0
            );
        }
    }

    #[test]
    fn single_elements() {
        // One pair, x above y: U = 1, exact P(U >= 1) = 1/2.
        assert_eq!(
            outcome(&[2.0], &[1.0], Alternative::Greater, Method::Exact),
            (1.0, 0.5)
        );
        assert_eq!(
            outcome(&[2.0], &[1.0], Alternative::Less, Method::Exact),
            (1.0, 1.0)
        );
        assert_eq!(
            outcome(&[2.0], &[1.0], Alternative::TwoSided, Method::Auto),
            (1.0, 1.0)
        );
        // scipy.stats.mannwhitneyu([2], [1], method='asymptotic', alternative='greater')
        let (u, p) = outcome(&[2.0], &[1.0], Alternative::Greater, Method::Asymptotic);
        assert_eq!(u, 1.0);
        assert!((p - 0.5).abs() < 1e-15);
    }

    #[test]
    fn all_ties_give_p_one() {
        let x = [3.0; 7];
        let y = [3.0; 5];
        for alternative in [
            Alternative::Greater,
            Alternative::Less,
            Alternative::TwoSided,
        ] {
            for method in [Method::Auto, Method::Exact, Method::Asymptotic] {
                assert_eq!(outcome(&x, &y, alternative, method), (17.5, 1.0));
            }
        }
        assert_eq!(
            outcome(&[1.0], &[1.0], Alternative::Greater, Method::Auto),
            (0.5, 1.0)
        );
    }

    #[test]
    fn auto_switches_on_ties_and_size() {
        let x: Vec<f64> = (0..10).map(|i| i as f64 + 0.5).collect();
        let y: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let auto = test(&x, &y, Alternative::Greater, Method::Auto);
        assert_eq!(auto, test(&x, &y, Alternative::Greater, Method::Exact));
        assert_ne!(auto, test(&x, &y, Alternative::Greater, Method::Asymptotic));
        let tied: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let auto = test(&tied, &y, Alternative::Greater, Method::Auto);
        assert_eq!(
            auto,
            test(&tied, &y, Alternative::Greater, Method::Asymptotic)
        );
        assert_eq!(auto, test(&tied, &y, Alternative::Greater, Method::Exact));
        let huge: Vec<f64> = (0..3000).map(|i| i as f64 + 0.5).collect();
        let huge_y: Vec<f64> = (0..3000).map(|i| i as f64).collect();
        let exact = test(&huge, &huge_y, Alternative::Greater, Method::Exact);
        assert_eq!(
            exact,
            test(&huge, &huge_y, Alternative::Greater, Method::Asymptotic)
        );
        let big: Vec<f64> = (0..101).map(|i| i as f64 + 0.25).collect();
        let big_y: Vec<f64> = (0..100).map(|i| i as f64).collect();
        let auto = test(&big, &big_y, Alternative::Greater, Method::Auto);
        assert_eq!(
            auto,
            test(&big, &big_y, Alternative::Greater, Method::Asymptotic)
        );
    }
}
