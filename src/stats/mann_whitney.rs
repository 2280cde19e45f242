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
use statrs::function::factorial::binomial;

/// How the p-value is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Method {
    /// Exact when `nx * ny <= EXACT_AUTO_MAX_PRODUCT` and, with ties, when
    /// `nx + ny <= PERMUTATION_AUTO_MAX_N` (the per-round medians of a run);
    /// asymptotic otherwise.
    Auto,
    /// The exact null distribution of U: without ties the classic one, with
    /// ties the permutation distribution over all C(nx + ny, nx) splits of
    /// the pooled values with average ranks (SciPy's `permutation_test` of
    /// U). Falls back to the asymptotic p-value when the computation would
    /// exceed `EXACT_MAX_WORK` steps.
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
/// exact p-value (about a second; e.g. 1 000 × 2 000 observations); with
/// ties the bound is on min(nx, ny) · (nx + ny)³ steps of the permutation
/// distribution.
pub const EXACT_MAX_WORK: u128 = 1_000_000_000;

/// Largest nx + ny for which [`Method::Auto`] computes the exact
/// permutation p-value of tied samples: 30 rounds each, about a millisecond.
/// Tied per-round medians (a coarse timer, a quantised collective) then
/// keep the smallest p-value the run's power was computed with, where the
/// normal approximation on 10 + 10 rounds is off by up to a third.
pub const PERMUTATION_AUTO_MAX_N: usize = 60;

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
    let n = (nx + ny) as u128;
    let exact_work = match ranks.has_ties {
        false => nx.min(ny) as u128 * nx as u128 * ny as u128 / 2,
        true => nx.min(ny) as u128 * n * n * n,
    };
    let exact = match method {
        Method::Auto => {
            nx.saturating_mul(ny) <= EXACT_AUTO_MAX_PRODUCT
                && (!ranks.has_ties || nx + ny <= PERMUTATION_AUTO_MAX_N)
        }
        Method::Exact => exact_work <= EXACT_MAX_WORK,
        Method::Asymptotic => false,
    };
    let p_value = match (exact, ranks.has_ties) {
        // Without ties U is a whole number of pairs.
        (true, false) => factor * exact_sf(nx, ny, u_tail as u64),
        (true, true) => {
            let groups: Vec<_> = TieGroups::new(x_sorted, y_sorted).collect();
            let pmf = cached_permutation_pmf(&groups, nx, ny);
            // 2U is whole with average ranks.
            let twice_u = (2.0 * u_x).round() as usize;
            let upper: f64 = pmf[twice_u..].iter().sum();
            let lower: f64 = pmf[..=twice_u].iter().sum();
            // As `permutation_test`: the tails of the distribution itself,
            // which ties need not leave symmetric.
            match alternative {
                Alternative::Greater => upper,
                Alternative::Less => lower,
                Alternative::TwoSided => 2.0 * upper.min(lower),
            }
        }
        (false, _) => factor * asymptotic_sf(u_tail, nx, ny, ranks.tie_term),
    };
    TestOutcome {
        statistic: u_x,
        p_value: p_value.clamp(0.0, 1.0),
        df: None,
    }
}

/// [`permutation_pmf`], computed once per thread for each sample sizes and
/// sizes of the tie groups, which are all it depends on: the round test
/// compares a few per-round medians, whose ties repeat from case to case
/// and within the sensitivity search of one, and computing the
/// distribution again each time was an eighth of rank 0's analysis.
fn cached_permutation_pmf(
    groups: &[super::ties::TieGroup],
    nx: usize,
    ny: usize,
) -> std::rc::Rc<Vec<f64>> {
    type Key = (usize, usize, Vec<usize>);
    thread_local! {
        static PMFS: std::cell::RefCell<std::collections::HashMap<Key, std::rc::Rc<Vec<f64>>>> =
            std::cell::RefCell::default();
    }
    let key = (nx, ny, groups.iter().map(|g| g.in_x + g.in_y).collect());
    PMFS.with(|pmfs| {
        let mut pmfs = pmfs.borrow_mut();
        if let Some(pmf) = pmfs.get(&key) {
            return pmf.clone();
        }
        // Bounded: the tie patterns of large samples rarely repeat.
        if pmfs.len() >= 4096 {
            pmfs.clear();
        }
        let pmf = std::rc::Rc::new(permutation_pmf(groups, nx, ny));
        pmfs.insert(key, pmf.clone());
        pmf
    })
}

/// P(2U_x = k) for k = 0..=2·nx·ny over all C(nx + ny, nx) equally likely
/// splits of the pooled values into x and y, with average ranks: the exact
/// permutation distribution under ties.
///
/// U_x = R_x − nx(nx + 1)/2 and twice an average rank is whole, so the
/// distribution of 2R_x is counted group by group: taking j of a group's t
/// tied values into x adds j times the group's doubled rank in C(t, j)
/// ways. The counts are kept for the smaller sample (its size bounds the
/// table) and mirrored for x when that is y.
fn permutation_pmf(groups: &[super::ties::TieGroup], nx: usize, ny: usize) -> Vec<f64> {
    let n = nx + ny;
    let size = nx.min(ny);
    let top = n * (n + 1);
    // counts[k][s]: ways to take k values whose doubled ranks sum to s.
    let width = top + 1;
    let mut counts = vec![0.0f64; (size + 1) * width];
    counts[0] = 1.0;
    let mut taken = 0;
    for group in groups {
        let t = group.in_x + group.in_y;
        let below = group.x_below + group.y_below;
        let twice_rank = 2 * below + t + 1;
        taken = (taken + t).min(size);
        if t == 1 {
            // A value tied with none (most groups): row k gains row k − 1
            // shifted by its doubled rank, one slice addition per row, the
            // same sums as the general loop below, which this path skips.
            for k in (1..=taken).rev() {
                let reach = k.saturating_mul(twice_rank).min(width - 1);
                if reach < twice_rank {
                    continue;
                }
                let (lower, upper) = counts.split_at_mut(k * width);
                let from = &lower[(k - 1) * width..=(k - 1) * width + reach - twice_rank];
                for (to, &add) in upper[twice_rank..=reach].iter_mut().zip(from) {
                    *to += add;
                }
            }
            continue;
        }
        let ways: Vec<f64> = (0..=t as u64).map(|j| binomial(t as u64, j)).collect();
        for k in (0..=taken).rev() {
            // Groups come in ascending rank: k values taken so far sum to
            // at most k doubled ranks of this group, and every count above
            // that is zero (skipping them adds nothing but 0.0).
            let reach = k.saturating_mul(twice_rank).min(width - 1);
            for s in (0..=reach).rev() {
                let mut sum = 0.0;
                for (j, &w) in ways.iter().enumerate().skip(1).take(k) {
                    if let Some(from) = s.checked_sub(j * twice_rank) {
                        sum += w * counts[(k - j) * width + from];
                    }
                }
                counts[k * width + s] += sum;
            }
        }
    }
    let row = &counts[size * width..];
    let total: f64 = row.iter().sum();
    let pairs = nx * ny;
    let mut pmf = vec![0.0; 2 * pairs + 1];
    let offset = size * (size + 1);
    for (s, &c) in row.iter().enumerate().filter(|(_, &c)| c > 0.0) {
        let twice_u = s - offset;
        let twice_u_x = if size == nx {
            twice_u
        } else {
            2 * pairs - twice_u
        };
        pmf[twice_u_x] += c / total;
    }
    pmf
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
    fn the_cached_distribution_is_the_one_of_these_samples() {
        // The same tie-group sizes (2, 1, 1, 2, 1) in samples of 3 and 4, then
        // of 4 and 3: the second must not be given the first's table, which
        // is the mirror image of its own.
        let x = [1.0, 1.0, 3.0];
        let y = [2.0, 4.0, 4.0, 5.0];
        for (a, b) in [(&x[..], &y[..]), (&y[..], &x[..])] {
            let groups: Vec<_> = TieGroups::new(a, b).collect();
            let cached = cached_permutation_pmf(&groups, a.len(), b.len());
            assert_eq!(*cached, permutation_pmf(&groups, a.len(), b.len()));
        }
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

    /// The permutation p-values by enumerating every split of the pooled
    /// values: (P(U_x ≥ u), P(U_x ≤ u)).
    fn enumerated_tails(x: &[f64], y: &[f64]) -> (f64, f64) {
        let pooled: Vec<f64> = x.iter().chain(y).copied().collect();
        let u_of = |xs: &[f64], ys: &[f64]| -> f64 {
            let pairs = xs.iter().flat_map(|a| ys.iter().map(move |b| (a, b)));
            pairs
                .map(|(a, b)| match a.partial_cmp(b).unwrap() {
                    std::cmp::Ordering::Greater => 1.0,
                    std::cmp::Ordering::Equal => 0.5,
                    std::cmp::Ordering::Less => 0.0,
                })
                .sum()
        };
        let observed = u_of(x, y);
        let (mut upper, mut lower, mut splits) = (0u64, 0u64, 0u64);
        for mask in 0u32..1 << pooled.len() {
            if mask.count_ones() as usize != x.len() {
                continue;
            }
            let (mut xs, mut ys) = (Vec::new(), Vec::new());
            for (i, &value) in pooled.iter().enumerate() {
                match mask & (1 << i) != 0 {
                    true => xs.push(value),
                    false => ys.push(value),
                }
            }
            let u = u_of(&xs, &ys);
            upper += u64::from(u >= observed);
            lower += u64::from(u <= observed);
            splits += 1;
        }
        (upper as f64 / splits as f64, lower as f64 / splits as f64)
    }

    #[test]
    fn tied_exact_p_is_the_permutation_distribution() {
        let samples: [(&[f64], &[f64]); 5] = [
            (&[1.0, 2.0, 2.0, 3.0, 5.0], &[0.0, 1.0, 2.0, 2.0]),
            (&[4.0, 4.0, 4.0], &[1.0, 4.0, 4.0, 2.0, 2.0, 0.0]),
            (&[1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 9.0], &[1.0, 2.0, 3.0, 3.0]),
            (&[0.0, 0.0], &[0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]),
            (
                &[7.0, 7.0, 6.0, 6.0, 5.0, 5.0],
                &[5.0, 5.0, 5.0, 4.0, 7.0, 3.0],
            ),
        ];
        for (x, y) in samples {
            let (upper, lower) = enumerated_tails(x, y);
            let p = |alternative| test(x, y, alternative, Method::Exact).p_value;
            assert!(
                (p(Alternative::Greater) - upper).abs() < 1e-12,
                "{x:?} {y:?}"
            );
            assert!((p(Alternative::Less) - lower).abs() < 1e-12, "{x:?} {y:?}");
            let two_sided = (2.0 * upper.min(lower)).min(1.0);
            assert!((p(Alternative::TwoSided) - two_sided).abs() < 1e-12);
            // The same distribution seen from y.
            let swapped = test(y, x, Alternative::Less, Method::Exact).p_value;
            assert!((swapped - upper).abs() < 1e-12, "{x:?} {y:?}");
        }
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
        // Ties: the permutation distribution up to 60 values in all.
        let tied: Vec<f64> = (0..10).map(|i| i as f64).collect();
        let auto = test(&tied, &y, Alternative::Greater, Method::Auto);
        assert_eq!(auto, test(&tied, &y, Alternative::Greater, Method::Exact));
        assert_ne!(
            auto,
            test(&tied, &y, Alternative::Greater, Method::Asymptotic)
        );
        let tied: Vec<f64> = (0..31).map(|i| (i / 2) as f64).collect();
        let tied_y: Vec<f64> = (0..30).map(|i| (i / 3) as f64).collect();
        let auto = test(&tied, &tied_y, Alternative::Greater, Method::Auto);
        assert_eq!(
            auto,
            test(&tied, &tied_y, Alternative::Greater, Method::Asymptotic)
        );
        assert_ne!(
            auto,
            test(&tied, &tied_y, Alternative::Greater, Method::Exact)
        );
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
