//! What a test can detect with a given number of rounds: the smallest
//! attainable p-values of the exact rank tests, the rounds needed to beat a
//! threshold, and the sensitivity (smallest detectable slowdown) of a test on
//! measured data.

use statrs::function::factorial::ln_binomial;

use super::describe::median;
use super::special::binomial_exact;
use super::Alternative;

pub use super::correction::{holm_first_threshold, none_first_threshold};

/// Largest number of rounds [`rounds_needed`] considers.
pub const MAX_ROUNDS: usize = 1000;

/// Largest slowdown [`sensitivity`] considers.
pub const MAX_SLOWDOWN: f64 = 1000.0;

/// Relative precision of [`sensitivity`].
pub const SENSITIVITY_TOLERANCE: f64 = 1e-4;

/// Smallest exact Mann–Whitney p-value for samples of nx and ny: every x
/// above every y, 1 / C(nx + ny, nx) one-sided. An empty sample gives 1.
pub fn min_p_mann_whitney(nx: usize, ny: usize, alternative: Alternative) -> f64 {
    if nx == 0 || ny == 0 {
        return 1.0;
    }
    let (n, k) = ((nx + ny) as u64, nx as u64);
    let one_sided = match binomial_exact(n, k) {
        // Exact below 2^53 placements, so that e.g. 1/C(6, 3) is exactly 0.05.
        Some(count) => 1.0 / count as f64,
        None => (-ln_binomial(n, k)).exp(),
    };
    sided(one_sided, alternative)
}

/// Smallest exact Wilcoxon signed-rank p-value for n nonzero differences:
/// all of one sign, 1 / 2^n one-sided (ties among |d| do not change it).
pub fn min_p_wilcoxon(n: usize, alternative: Alternative) -> f64 {
    if n == 0 {
        return 1.0;
    }
    sided(0.5f64.powi(n.min(i32::MAX as usize) as i32), alternative)
}

/// Smallest exact sign-test p-value for n nonzero differences: 1 / 2^n one-sided.
pub fn min_p_sign(n: usize, alternative: Alternative) -> f64 {
    min_p_wilcoxon(n, alternative)
}

fn sided(one_sided: f64, alternative: Alternative) -> f64 {
    match alternative {
        Alternative::TwoSided => (2.0 * one_sided).min(1.0),
        Alternative::Greater | Alternative::Less => one_sided,
    }
}

/// Smallest number of rounds r in 1..=[`MAX_ROUNDS`] with `min_p(r) < threshold`;
/// None if there is none.
pub fn rounds_needed(min_p: impl Fn(usize) -> f64, threshold: f64) -> Option<usize> {
    (1..=MAX_ROUNDS).find(|&r| min_p(r) < threshold)
}

/// Smallest slowdown s in [1, [`MAX_SLOWDOWN`]] that `test` would have
/// declared significant (`test(x, y'/s) < threshold`) on these rounds, where
/// y' is y rescaled to x's median: the competitor keeps its spread but is
/// made s times faster than the default. x and y are the per-round medians
/// (positive seconds; paired by index if the test is paired) and `test`
/// returns the p-value of "x is larger than y". None when even
/// [`MAX_SLOWDOWN`] is not significant, or when a median is not positive.
///
/// Found by bisection on ln s to a relative precision of
/// [`SENSITIVITY_TOLERANCE`], which is valid because for the rank tests p
/// is non-increasing in s: a larger s lowers every y'/s, so the counts behind
/// the statistics can only grow (Mann–Whitney: pairs x_i > y'_j/s; sign:
/// positive d_i = x_i − y'_i/s; Wilcoxon: Walsh averages (d_i + d_j)/2 > 0).
/// Ties that appear or vanish along the way can break exact monotony; the
/// returned s is then still significant, but a smaller significant s may exist.
pub fn sensitivity(
    test: impl Fn(&[f64], &[f64]) -> f64,
    x: &[f64],
    y: &[f64],
    threshold: f64,
) -> Option<f64> {
    let (mx, my) = (median(x), median(y));
    if !(mx > 0.0 && my > 0.0 && mx.is_finite() && my.is_finite()) {
        return None;
    }
    let scale = mx / my;
    let centred: Vec<f64> = y.iter().map(|v| v * scale).collect();
    let significant = |s: f64| {
        let faster: Vec<f64> = centred.iter().map(|v| v / s).collect();
        test(x, &faster) < threshold
    };
    if !significant(MAX_SLOWDOWN) {
        return None;
    }
    if significant(1.0) {
        return Some(1.0);
    }
    // Invariant: exp(low) is not significant, exp(high) is.
    let (mut low, mut high) = (0.0f64, MAX_SLOWDOWN.ln());
    while high - low > SENSITIVITY_TOLERANCE.ln_1p() {
        let mid = 0.5 * (low + high);
        if significant(mid.exp()) {
            high = mid;
        } else {
            low = mid;
        }
    }
    Some(high.exp())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{mann_whitney, sign, wilcoxon};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const ALPHA: f64 = 0.05;

    fn standard_normal(rng: &mut ChaCha8Rng) -> f64 {
        // Box–Muller; 1 − u keeps the logarithm finite.
        let u: f64 = rng.gen();
        let v: f64 = rng.gen();
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Per-round medians of the default (x, `slowdown` times slower) and a
    /// competitor (y): a factor shared by both in each round, times
    /// independent noise.
    fn rounds(
        rng: &mut ChaCha8Rng,
        n: usize,
        sigma_round: f64,
        sigma: f64,
        slowdown: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let (mut x, mut y) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            let shared = 1e-5 * (sigma_round * standard_normal(rng)).exp();
            x.push(shared * (sigma * standard_normal(rng)).exp() * slowdown);
            y.push(shared * (sigma * standard_normal(rng)).exp());
        }
        (x, y)
    }

    fn p_mann_whitney(x: &[f64], y: &[f64]) -> f64 {
        mann_whitney::test(x, y, Alternative::Greater, mann_whitney::Method::Auto).p_value
    }

    fn p_wilcoxon(x: &[f64], y: &[f64]) -> f64 {
        wilcoxon::test(x, y, Alternative::Greater, wilcoxon::Method::Auto).p_value
    }

    fn p_sign(x: &[f64], y: &[f64]) -> f64 {
        sign::test(x, y, Alternative::Greater).p_value
    }

    type PTest = fn(&[f64], &[f64]) -> f64;
    const TESTS: [(&str, PTest); 3] = [
        ("Mann-Whitney", p_mann_whitney),
        ("Wilcoxon", p_wilcoxon),
        ("sign", p_sign),
    ];

    #[test]
    fn smallest_attainable_p_values() {
        assert_eq!(min_p_mann_whitney(2, 3, Alternative::Greater), 0.1);
        assert!((min_p_mann_whitney(10, 10, Alternative::Less) - 1.0 / 184_756.0).abs() < 1e-18);
        assert_eq!(min_p_mann_whitney(1, 1, Alternative::TwoSided), 1.0);
        assert_eq!(min_p_mann_whitney(0, 5, Alternative::Greater), 1.0);
        assert_eq!(min_p_wilcoxon(10, Alternative::Greater), 1.0 / 1024.0);
        assert_eq!(min_p_wilcoxon(10, Alternative::TwoSided), 2.0 / 1024.0);
        assert_eq!(min_p_wilcoxon(0, Alternative::Greater), 1.0);
        assert_eq!(min_p_sign(3, Alternative::Less), 0.125);
        assert_eq!(min_p_sign(1, Alternative::TwoSided), 1.0);
        // They are attained.
        let x: Vec<f64> = (0..6).map(|i| 10.0 + i as f64).collect();
        let y: Vec<f64> = (0..6).map(|i| i as f64).collect();
        let exact = mann_whitney::Method::Exact;
        let mw = mann_whitney::test(&x, &y, Alternative::Greater, exact).p_value;
        assert!((mw / min_p_mann_whitney(6, 6, Alternative::Greater) - 1.0).abs() < 1e-12);
        assert_eq!(p_wilcoxon(&x, &y), min_p_wilcoxon(6, Alternative::Greater));
        assert_eq!(p_sign(&x, &y), min_p_sign(6, Alternative::Greater));
    }

    #[track_caller]
    fn assert_relative(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            ((actual - expected) / expected).abs() <= tolerance,
            "{actual:e} vs {expected:e}"
        );
    }

    /// 1 / C(nx + ny, nx) by hand (Python's fractions for the large ones).
    #[test]
    fn smallest_mann_whitney_p_by_hand() {
        let (g, l, t) = (
            Alternative::Greater,
            Alternative::Less,
            Alternative::TwoSided,
        );
        assert_eq!(min_p_mann_whitney(1, 1, g), 0.5);
        assert_eq!(min_p_mann_whitney(1, 1, t), 1.0);
        assert_eq!(min_p_mann_whitney(1, 9, g), 0.1);
        assert_eq!(min_p_mann_whitney(9, 1, l), 0.1);
        assert_eq!(min_p_mann_whitney(1, 2, t), 2.0 / 3.0);
        assert_eq!(min_p_mann_whitney(2, 2, g), 1.0 / 6.0);
        assert_eq!(min_p_mann_whitney(3, 3, g), 0.05);
        assert_eq!(min_p_mann_whitney(3, 3, t), 0.1);
        assert_eq!(min_p_mann_whitney(3, 5, g), 1.0 / 56.0);
        assert_eq!(min_p_mann_whitney(5, 3, g), 1.0 / 56.0);
        assert_eq!(min_p_mann_whitney(4, 4, g), 1.0 / 70.0);
        assert_eq!(min_p_mann_whitney(5, 5, g), 1.0 / 252.0);
        assert_eq!(min_p_mann_whitney(3, 0, t), 1.0);
        // C(60, 30) = 118264581564861424, past 2^53 but counted exactly.
        assert_relative(min_p_mann_whitney(30, 30, g), 8.455616946072368e-18, 1e-15);
        // C(120, 60) is the largest that u128 holds here.
        assert_relative(min_p_mann_whitney(60, 60, g), 1.035036944093482e-35, 1e-15);
        // Beyond u128: through ln C(n, k).
        assert_relative(min_p_mann_whitney(75, 75, g), 1.0772835722081017e-44, 1e-11);
        assert_relative(
            min_p_mann_whitney(100, 100, g),
            1.1043803465997514e-59,
            1e-11,
        );
        assert_relative(
            min_p_mann_whitney(100, 100, t),
            2.2087606931995028e-59,
            1e-11,
        );
    }

    /// Every split of m + n untied values into x and y, as x's ranks.
    fn splits(m: usize, n: usize) -> Vec<(Vec<f64>, Vec<f64>)> {
        (0u32..1 << (m + n))
            .filter(|mask| mask.count_ones() as usize == m)
            .map(|mask| {
                let rank = |i: usize| i as f64;
                let x = (0..m + n).filter(|i| mask & (1 << i) != 0).map(rank);
                let y = (0..m + n).filter(|i| mask & (1 << i) == 0).map(rank);
                (x.collect(), y.collect())
            })
            .collect()
    }

    /// The bound is the exact test's smallest p-value over all C(m + n, m)
    /// splits, attained by the one split with every x above every y (below,
    /// for `Less`), and by it alone.
    #[test]
    fn the_mann_whitney_bound_is_the_smallest_permutation_p() {
        let exact = mann_whitney::Method::Exact;
        for (m, n) in [(1, 1), (1, 4), (2, 3), (3, 2), (3, 3), (4, 4), (3, 6)] {
            for alternative in [
                Alternative::Greater,
                Alternative::Less,
                Alternative::TwoSided,
            ] {
                let bound = min_p_mann_whitney(m, n, alternative);
                let mut attained = 0;
                for (x, y) in splits(m, n) {
                    let p = mann_whitney::test(&x, &y, alternative, exact).p_value;
                    assert!(p >= bound * (1.0 - 1e-12), "{m}x{n} {alternative:?}: {p}");
                    if (p / bound - 1.0).abs() < 1e-12 {
                        attained += 1;
                        let above = x.iter().all(|a| y.iter().all(|b| a > b));
                        let below = x.iter().all(|a| y.iter().all(|b| a < b));
                        let extreme = match alternative {
                            Alternative::Greater => above,
                            Alternative::Less => below,
                            Alternative::TwoSided => above || below,
                        };
                        assert!(extreme || bound == 1.0, "{m}x{n} {alternative:?}: {x:?}");
                    }
                }
                if bound < 1.0 {
                    let expected = match alternative {
                        Alternative::TwoSided => 2,
                        _ => 1,
                    };
                    assert_eq!(attained, expected, "{m}x{n} {alternative:?}");
                }
            }
        }
    }

    /// 1 / 2^n: over every sign pattern of n differences of distinct sizes,
    /// the smallest exact Wilcoxon and sign-test p-value, attained only
    /// with every difference positive.
    #[test]
    fn the_paired_bounds_are_the_smallest_sign_pattern_p() {
        for n in 1..=8usize {
            let bound = min_p_wilcoxon(n, Alternative::Greater);
            assert_eq!(bound, 0.5f64.powi(n as i32));
            assert_eq!(min_p_sign(n, Alternative::Greater), bound);
            assert_eq!(
                min_p_wilcoxon(n, Alternative::TwoSided),
                (2.0 * bound).min(1.0)
            );
            let y = vec![0.0; n];
            let (mut smallest_w, mut smallest_s) = (1.0f64, 1.0f64);
            for signs in 0u32..1 << n {
                let x: Vec<f64> = (0..n)
                    .map(|i| match signs & (1 << i) != 0 {
                        true => (i + 1) as f64,
                        false => -((i + 1) as f64),
                    })
                    .collect();
                let (w, s) = (p_wilcoxon(&x, &y), p_sign(&x, &y));
                assert!(w >= bound && s >= bound, "n = {n}: {w} {s}");
                if signs != (1 << n) - 1 {
                    assert!(w > bound && s > bound, "n = {n}: {signs:b}");
                }
                smallest_w = smallest_w.min(w);
                smallest_s = smallest_s.min(s);
            }
            assert_eq!((smallest_w, smallest_s), (bound, bound), "n = {n}");
        }
    }

    #[test]
    fn rounds_needed_at_the_boundaries() {
        let greater = Alternative::Greater;
        let mw = |r| min_p_mann_whitney(r, r, greater);
        // Holm over 10 competitors, α/10 = 0.005: 1/C(8, 4) = 1/70 is not
        // below it, 1/C(10, 5) = 1/252 is.
        assert_eq!(rounds_needed(mw, holm_first_threshold(ALPHA, 10)), Some(5));
        // Over 100, 5e-4: 1/C(12, 6) = 1/924 is not, 1/C(14, 7) = 1/3432 is.
        assert_eq!(rounds_needed(mw, holm_first_threshold(ALPHA, 100)), Some(7));
        // A threshold equal to an attainable p needs one round more.
        assert_eq!(
            rounds_needed(|r| min_p_sign(r, greater), 1.0 / 64.0),
            Some(7)
        );
        assert_eq!(rounds_needed(mw, 1.0 / 252.0), Some(6));
        // Without correction, the paired tests need 5 rounds, two-sided 6.
        let two_sided = |r| min_p_wilcoxon(r, Alternative::TwoSided);
        assert_eq!(rounds_needed(two_sided, ALPHA), Some(6));
    }

    #[test]
    fn rounds_needed_for_thresholds() {
        let greater = Alternative::Greater;
        // 1/16 ≥ 0.05 > 1/32.
        assert_eq!(
            rounds_needed(|r| min_p_wilcoxon(r, greater), ALPHA),
            Some(5)
        );
        // Holm over 100 tests: 2^-11 < 0.0005 ≤ 2^-10.
        let holm = holm_first_threshold(ALPHA, 100);
        assert_eq!(rounds_needed(|r| min_p_sign(r, greater), holm), Some(11));
        // Mann–Whitney, r rounds each: 1/C(6, 3) = 0.05 is not below 0.05.
        assert_eq!(
            rounds_needed(|r| min_p_mann_whitney(r, r, greater), ALPHA),
            Some(4)
        );
        assert_eq!(rounds_needed(|_| 1.0, ALPHA), None);
        assert_eq!(rounds_needed(|r| min_p_wilcoxon(r, greater), 0.0), None);
    }

    fn spread_sample(seed: u64, n: usize, sigma: f64) -> (Vec<f64>, Vec<f64>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rounds(&mut rng, n, 0.0, sigma, 1.0)
    }

    #[test]
    fn sensitivity_is_on_the_significance_boundary() {
        for (name, test) in TESTS {
            let (x, y) = spread_sample(7, 12, 0.05);
            let s = sensitivity(test, &x, &y, ALPHA).expect("12 rounds suffice");
            assert!(s > 1.0 && s < MAX_SLOWDOWN, "{name}: {s}");
            let (mx, my) = (median(&x), median(&y));
            let at = |s: f64| {
                let faster: Vec<f64> = y.iter().map(|v| v * (mx / my) / s).collect();
                test(&x, &faster)
            };
            assert!(at(s) < ALPHA, "{name}: {s} not significant");
            assert!(
                at(s * (1.0 - 1e-3)) >= ALPHA,
                "{name}: {s} not the smallest"
            );
        }
    }

    #[test]
    fn sensitivity_improves_with_rounds_and_worsens_with_spread() {
        for (name, test) in TESTS {
            let few = spread_sample(1, 10, 0.05);
            let many = spread_sample(1, 40, 0.05);
            let wide = spread_sample(1, 10, 0.2);
            let s_few = sensitivity(test, &few.0, &few.1, ALPHA).unwrap();
            let s_many = sensitivity(test, &many.0, &many.1, ALPHA).unwrap();
            let s_wide = sensitivity(test, &wide.0, &wide.1, ALPHA).unwrap();
            eprintln!("{name}: 10 rounds {s_few:.4}, 40 rounds {s_many:.4}, 4x spread {s_wide:.4}");
            assert!(s_many < s_few, "{name}");
            assert!(s_wide > s_few, "{name}");
        }
    }

    #[test]
    fn sensitivity_is_none_when_the_test_is_powerless() {
        // Three rounds: the smallest attainable p is 1/8 (paired) or 1/20 (Mann–Whitney).
        let (x, y) = spread_sample(3, 3, 0.05);
        assert!(min_p_wilcoxon(3, Alternative::Greater) >= ALPHA);
        assert!(min_p_mann_whitney(3, 3, Alternative::Greater) >= ALPHA);
        for (name, test) in TESTS {
            assert_eq!(sensitivity(test, &x, &y, ALPHA), None, "{name}");
        }
        assert_eq!(sensitivity(p_wilcoxon, &[], &[], ALPHA), None);
        assert_eq!(
            sensitivity(p_wilcoxon, &[1.0, 2.0], &[0.0, 0.0], ALPHA),
            None
        );
    }

    #[test]
    fn sensitivity_of_an_already_significant_pair_is_one() {
        // y is rescaled to x's median, so only a test that rejects at s = 1
        // regardless of the data returns 1.
        let (x, y) = spread_sample(5, 10, 0.05);
        assert_eq!(sensitivity(|_, _| 0.0, &x, &y, ALPHA), Some(1.0));
    }

    /// Fraction of `repetitions` simulated runs in which each test rejects at ALPHA.
    fn rejection_rates(
        seed: u64,
        sigma_round: f64,
        sigma: f64,
        slowdown: f64,
        repetitions: usize,
    ) -> [f64; 3] {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rejected = [0usize; 3];
        for _ in 0..repetitions {
            let (x, y) = rounds(&mut rng, 10, sigma_round, sigma, slowdown);
            for (count, (_, test)) in rejected.iter_mut().zip(TESTS) {
                *count += usize::from(test(&x, &y) < ALPHA);
            }
        }
        rejected.map(|c| c as f64 / repetitions as f64)
    }

    /// A/A false alarms and power with 10 rounds. Prints the table with
    /// `cargo test --release --lib power -- --nocapture`.
    #[test]
    fn false_alarms_and_power_with_ten_rounds() {
        const REPETITIONS: usize = 2000;
        let sd = (ALPHA * (1.0 - ALPHA) / REPETITIONS as f64).sqrt();
        eprintln!("10 rounds, {REPETITIONS} repetitions, one-sided at α = {ALPHA}:");
        eprintln!("σ_round  σ     slowdown  Mann-Whitney  Wilcoxon  sign");
        for (seed, (sigma_round, sigma)) in [(0.1, 0.02), (0.0, 0.05)].into_iter().enumerate() {
            for slowdown in [1.0, 1.05, 1.1, 1.25] {
                let rates = rejection_rates(seed as u64, sigma_round, sigma, slowdown, REPETITIONS);
                eprintln!(
                    "{sigma_round:<8} {sigma:<5} {slowdown:<9} {:<13.4} {:<9.4} {:.4}",
                    rates[0], rates[1], rates[2]
                );
                if slowdown == 1.0 {
                    for ((name, _), rate) in TESTS.iter().zip(rates) {
                        assert!(rate <= ALPHA + 3.0 * sd, "{name}: A/A rate {rate}");
                    }
                }
            }
        }
    }
}
