//! Wilcoxon signed-rank test on paired differences d_i = x_i − y_i, as
//! SciPy's `wilcoxon(x, y, zero_method='wilcox')`.
//!
//! Zero differences are discarded before ranking; ties among |d| get average
//! ranks. The statistic is always R+, the sum of the ranks of the positive
//! differences (SciPy reports min(R+, R−) for the two-sided test).

use super::special::normal_sf;
use super::{Alternative, TestOutcome};

/// How the p-value is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Exact when at most [`EXACT_AUTO_MAX_N`] differences are nonzero,
    /// the normal approximation otherwise.
    Auto,
    /// The permutation distribution of R+ over all 2^n sign assignments,
    /// with the actual (possibly tied) ranks: SciPy's
    /// `method=PermutationMethod(n_resamples=np.inf)`. Falls back to the
    /// approximation beyond [`EXACT_MAX_N`] nonzero differences.
    Exact,
    /// Normal approximation with tie and continuity correction (SciPy's
    /// `method='asymptotic'`, `correction=True`).
    Approx,
}

/// Largest number of nonzero differences for which [`Method::Auto`] is
/// exact. Up to here the probabilities are multiples of 2^-24 and the
/// computation is exact in f64.
pub const EXACT_AUTO_MAX_N: usize = 24;

/// Largest number of nonzero differences for which [`Method::Exact`]
/// computes the permutation distribution (n³ steps, about 0.1 s).
pub const EXACT_MAX_N: usize = 400;

/// Signed-rank test of x against y, paired by index. Panics if the lengths
/// differ. No nonzero difference gives the undefined outcome (NaN, p = 1).
pub fn test(x: &[f64], y: &[f64], alternative: Alternative, method: Method) -> TestOutcome {
    assert_eq!(x.len(), y.len(), "paired samples must have equal lengths");
    let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
    test_differences(&d, alternative, method)
}

/// As [`test()`], on the differences x − y.
pub fn test_differences(d: &[f64], alternative: Alternative, method: Method) -> TestOutcome {
    let Some(ranks) = SignedRanks::new(d) else {
        return TestOutcome::undefined();
    };
    let n = ranks.twice_rank.len();
    let exact = match method {
        Method::Auto => n <= EXACT_AUTO_MAX_N,
        Method::Exact => n <= EXACT_MAX_N,
        Method::Approx => false,
    };
    let p = if exact {
        exact_p(&ranks, alternative)
    } else {
        approx_p(&ranks, alternative)
    };
    TestOutcome {
        statistic: ranks.twice_r_plus as f64 / 2.0,
        p_value: p.clamp(0.0, 1.0),
        df: None,
    }
}

/// Ranks of the nonzero |d|, doubled so that average ranks are integers.
struct SignedRanks {
    /// 2 × the rank of each nonzero difference (sorted by |d|).
    twice_rank: Vec<u64>,
    /// 2 × R+.
    twice_r_plus: u64,
    /// Σ (t³ − t) over the tie groups of |d|.
    tie_term: f64,
}

impl SignedRanks {
    /// None when no difference is nonzero.
    fn new(d: &[f64]) -> Option<Self> {
        let mut nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
        if nonzero.is_empty() {
            return None;
        }
        nonzero.sort_unstable_by(|a, b| a.abs().total_cmp(&b.abs()));
        let n = nonzero.len();
        let mut twice_rank = vec![0u64; n];
        let (mut twice_r_plus, mut tie_term) = (0u64, 0.0);
        let mut start = 0;
        while start < n {
            let mut end = start + 1;
            while end < n && nonzero[end].abs() == nonzero[start].abs() {
                end += 1;
            }
            // Positions start..end hold ranks start+1..=end; twice their mean is start+1+end.
            let twice = (start + 1 + end) as u64;
            for i in start..end {
                twice_rank[i] = twice;
                if nonzero[i] > 0.0 {
                    twice_r_plus += twice;
                }
            }
            let t = (end - start) as f64;
            tie_term += t * t * t - t;
            start = end;
        }
        Some(SignedRanks {
            twice_rank,
            twice_r_plus,
            tie_term,
        })
    }
}

/// P-value from the distribution of 2·R+ over all sign assignments.
fn exact_p(ranks: &SignedRanks, alternative: Alternative) -> f64 {
    let pmf = sign_flip_pmf(&ranks.twice_rank);
    let observed = ranks.twice_r_plus as usize;
    let upper = || pmf[observed..].iter().sum::<f64>();
    let lower = || pmf[..=observed].iter().sum::<f64>();
    match alternative {
        Alternative::Greater => upper(),
        Alternative::Less => lower(),
        Alternative::TwoSided => (2.0 * upper().min(lower())).min(1.0),
    }
}

/// P(Σ signs · twice_rank over positives = s) for s = 0..=Σ twice_rank,
/// one rank at a time. Halving at each step is exact in binary floating
/// point, so up to 2^53 assignments every entry is exactly count / 2^n.
fn sign_flip_pmf(twice_rank: &[u64]) -> Vec<f64> {
    let total: u64 = twice_rank.iter().sum();
    let mut pmf = vec![0.0; total as usize + 1];
    pmf[0] = 1.0;
    let mut reached = 0;
    for &r in twice_rank {
        let r = r as usize;
        reached += r;
        for s in (r..=reached).rev() {
            pmf[s] = 0.5 * (pmf[s] + pmf[s - r]);
        }
        pmf[..r.min(reached + 1)].iter_mut().for_each(|p| *p *= 0.5);
    }
    pmf
}

/// Normal approximation with tie correction and continuity correction, as SciPy.
fn approx_p(ranks: &SignedRanks, alternative: Alternative) -> f64 {
    let n = ranks.twice_rank.len() as f64;
    let mean = n * (n + 1.0) / 4.0;
    let se = ((n * (n + 1.0) * (2.0 * n + 1.0) - ranks.tie_term / 2.0) / 24.0).sqrt();
    let z = (ranks.twice_r_plus as f64 / 2.0 - mean) / se;
    // The continuity correction moves z half a rank towards the null.
    let sign = match alternative {
        Alternative::Greater => 1.0,
        Alternative::Less => -1.0,
        Alternative::TwoSided if z > 0.0 => 1.0,
        Alternative::TwoSided if z < 0.0 => -1.0,
        Alternative::TwoSided => 0.0,
    };
    let z = z - sign * 0.5 / se;
    match alternative {
        Alternative::Greater => normal_sf(z),
        Alternative::Less => normal_sf(-z),
        Alternative::TwoSided => 2.0 * normal_sf(z.abs()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALTERNATIVES: [Alternative; 3] = [
        Alternative::Greater,
        Alternative::Less,
        Alternative::TwoSided,
    ];

    #[test]
    fn pmf_matches_enumeration_with_ties() {
        // Ranks 1, 2.5, 2.5 doubled: 2, 5, 5. The 8 sums: 0, 2, 5, 5, 7, 7, 10, 12.
        let pmf = sign_flip_pmf(&[2, 5, 5]);
        let mut expected = [0.0; 13];
        for s in [0, 2, 5, 5, 7, 7, 10, 12] {
            expected[s] += 1.0 / 8.0;
        }
        assert_eq!(pmf, expected);
    }

    #[test]
    fn all_positive_is_the_smallest_p() {
        let x: Vec<f64> = (1..=10).map(|i| i as f64 + 0.5).collect();
        let y: Vec<f64> = (1..=10).map(|i| i as f64 * 0.9).collect();
        let o = test(&x, &y, Alternative::Greater, Method::Auto);
        assert_eq!(o.statistic, 55.0);
        assert_eq!(o.p_value, 1.0 / 1024.0);
        assert_eq!(
            test(&x, &y, Alternative::TwoSided, Method::Exact).p_value,
            2.0 / 1024.0
        );
        assert_eq!(test(&x, &y, Alternative::Less, Method::Exact).p_value, 1.0);
    }

    #[test]
    fn zeros_are_discarded_and_all_zero_is_undefined() {
        let with_zeros = test(
            &[1.0, 2.0, 3.0, 5.0],
            &[1.0, 1.0, 3.0, 3.0],
            Alternative::Greater,
            Method::Auto,
        );
        let without = test_differences(&[1.0, 2.0], Alternative::Greater, Method::Auto);
        assert_eq!(with_zeros, without);
        assert_eq!(without.p_value, 0.25);
        for alternative in ALTERNATIVES {
            for method in [Method::Auto, Method::Exact, Method::Approx] {
                for d in [&[][..], &[0.0, 0.0, -0.0][..]] {
                    let o = test_differences(d, alternative, method);
                    assert!(o.statistic.is_nan());
                    assert_eq!(o.p_value, 1.0);
                }
            }
        }
    }

    #[test]
    fn swapping_x_and_y_swaps_the_one_sided_alternatives() {
        let x = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let y = [2.0, 7.0, 1.0, 8.0, 2.0, 8.0, 1.0, 8.0];
        for method in [Method::Exact, Method::Approx] {
            let g = test(&x, &y, Alternative::Greater, method);
            let l = test(&y, &x, Alternative::Less, method);
            assert_eq!(g.p_value, l.p_value);
            let t1 = test(&x, &y, Alternative::TwoSided, method).p_value;
            let t2 = test(&y, &x, Alternative::TwoSided, method).p_value;
            assert!((t1 - t2).abs() < 1e-15);
        }
    }

    #[test]
    fn auto_switches_at_the_exact_limit() {
        let d: Vec<f64> = (1..=EXACT_AUTO_MAX_N + 1)
            .map(|i| if i % 3 == 0 { -(i as f64) } else { i as f64 })
            .collect();
        let n = EXACT_AUTO_MAX_N;
        let alt = Alternative::Greater;
        assert_eq!(
            test_differences(&d[..n], alt, Method::Auto),
            test_differences(&d[..n], alt, Method::Exact)
        );
        assert_eq!(
            test_differences(&d, alt, Method::Auto),
            test_differences(&d, alt, Method::Approx)
        );
        // Exact and approximate agree roughly at n = 25.
        let exact = test_differences(&d, alt, Method::Exact).p_value;
        let approx = test_differences(&d, alt, Method::Approx).p_value;
        assert!((exact / approx - 1.0).abs() < 0.05, "{exact} vs {approx}");
    }
}
