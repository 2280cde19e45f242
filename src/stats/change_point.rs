//! Change points in a series: E-divisive means (Matteson & James 2014,
//! "A nonparametric approach for multiple change point analysis of
//! multivariate data"), the method of MongoDB's and Hunter's performance
//! CI, on a 1-D series with exponent 1.
//!
//! A split at τ cuts the series into X = x[..τ] and Y = x[τ..]; its energy
//! statistic is
//!
//!   Q(τ) = mn/(m+n) · [ 2/(mn) Σ|x−y| − mean_{i<j}|x_i−x_j| − mean_{i<j}|y_i−y_j| ]
//!
//! (m = |X|, n = |Y|; a segment of one value has no pair: its mean is 0).
//! The best split maximises Q. Its significance is a permutation test: the
//! series is shuffled R times and p = (1 + #{max Q of a shuffle ≥ observed})
//! / (R + 1), with a seeded generator so that the same series gets the same
//! p. A significant split cuts the series in two and each part is searched
//! again (binary segmentation) until no split reaches p < α.
//!
//! **Short series cannot reach small p.** A shuffle that puts the same
//! values on each side of the split has the same Q, and so does its mirror
//! image: of the n! orders, at least 2·k!(n−k)! reach the observed Q of a
//! split after k values, so p ≥ 2 / C(n, k) however clear the jump
//! ([`smallest_p_value`]). With 5 points no single jump can be significant
//! at α = 0.05 (p ≥ 2/C(5,2) = 0.2); a jump in the middle needs 8 points
//! (2/C(8,4) ≈ 0.029), a jump before the last value more than 2/α = 40.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// How the search runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// A split is a change point when its p-value is below this.
    pub alpha: f64,
    /// Shuffles per permutation test (R).
    pub permutations: usize,
    /// Seeds the shuffles; each segment's test draws from its own stream.
    pub seed: u64,
}

/// A change point: the series changes between `index − 1` and `index`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChangePoint {
    /// The first value after the change.
    pub index: usize,
    /// Q of the split, in the segment it was found in.
    pub statistic: f64,
    /// Its permutation p-value.
    pub p_value: f64,
}

/// Q(τ) as defined above, computed pair by pair: the reference for
/// [`best_split`], which gets every τ at once.
pub fn statistic(x: &[f64], tau: usize) -> f64 {
    let (left, right) = x.split_at(tau);
    let (m, n) = (left.len() as f64, right.len() as f64);
    let cross: f64 = left
        .iter()
        .flat_map(|a| right.iter().map(move |b| (a - b).abs()))
        .sum();
    energy(m, n, cross, within(left), within(right))
}

/// Σ_{i<j} |v_i − v_j|.
fn within(v: &[f64]) -> f64 {
    (0..v.len())
        .flat_map(|j| (0..j).map(move |i| (v[i] - v[j]).abs()))
        .sum()
}

/// Q from the sums of distances across the split and within each side.
fn energy(m: f64, n: f64, cross: f64, within_x: f64, within_y: f64) -> f64 {
    let mean_within = |sum: f64, k: f64| match k < 2.0 {
        true => 0.0,
        false => sum / (k * (k - 1.0) / 2.0),
    };
    m * n / (m + n) * (2.0 * cross / (m * n) - mean_within(within_x, m) - mean_within(within_y, n))
}

/// The split with the largest Q (the first of equals) and its Q; `None`
/// for fewer than two values. O(n²): moving one value from Y to X changes
/// the sums by its distances to the values before it and after it.
pub fn best_split(x: &[f64]) -> Option<(usize, f64)> {
    let n = x.len();
    if n < 2 {
        return None;
    }
    // to_all[k] = Σ_j |x_k − x_j|
    let to_all: Vec<f64> = x
        .iter()
        .map(|a| x.iter().map(|b| (a - b).abs()).sum())
        .collect();
    let total = to_all.iter().sum::<f64>() / 2.0;
    let (mut within_x, mut cross) = (0.0, 0.0);
    let mut best: Option<(usize, f64)> = None;
    for tau in 1..n {
        let k = tau - 1;
        let to_before: f64 = x[..k].iter().map(|a| (a - x[k]).abs()).sum();
        within_x += to_before;
        cross += to_all[k] - 2.0 * to_before;
        let within_y = total - within_x - cross;
        let q = energy(tau as f64, (n - tau) as f64, cross, within_x, within_y);
        if best.is_none_or(|(_, b)| q > b) {
            best = Some((tau, q));
        }
    }
    best
}

/// The best split of `x` and its permutation p-value; `None` for fewer
/// than two values.
pub fn test(x: &[f64], permutations: usize, rng: &mut ChaCha8Rng) -> Option<ChangePoint> {
    let (index, observed) = best_split(x)?;
    // A shuffle that only mirrors the series or reorders a side has the
    // same Q, but summed in another order it may differ in the last bits:
    // those must count as reaching it, or p is too small.
    let reached = observed - 1e-9 * observed.abs().max(1e-300);
    let mut shuffled = x.to_vec();
    let at_least = (0..permutations)
        .filter(|_| {
            shuffled.shuffle(rng);
            best_split(&shuffled).is_some_and(|(_, q)| q >= reached)
        })
        .count();
    let estimate = (1 + at_least) as f64 / (1 + permutations) as f64;
    Some(ChangePoint {
        index,
        statistic: observed,
        // The exact p is at least 2 / C(n, k) (the module's documentation):
        // a draw of shuffles that missed those orders does not make it smaller.
        p_value: estimate.max(2.0 / binomial(x.len(), index)).min(1.0),
    })
}

/// Every change point of `x`, in order: binary segmentation, each segment
/// tested at `settings.alpha` on its own (each a test of the segment found
/// by the significant splits before it, as in Matteson & James).
pub fn change_points(x: &[f64], settings: &Settings) -> Vec<ChangePoint> {
    let mut found = Vec::new();
    let mut segments = vec![(0, x.len())];
    while let Some((start, end)) = segments.pop() {
        // Each segment's stream depends on where it is, not on the order
        // segments are visited in.
        let stream = ((start as u64) << 32) | end as u64;
        let mut rng =
            ChaCha8Rng::seed_from_u64(settings.seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let Some(split) = test(&x[start..end], settings.permutations, &mut rng) else {
            continue;
        };
        if split.p_value < settings.alpha {
            let index = start + split.index;
            found.push(ChangePoint { index, ..split });
            segments.push((start, index));
            segments.push((index, end));
        }
    }
    found.sort_by_key(|c| c.index);
    found
}

/// The smallest p-value a permutation test with `permutations` shuffles can
/// give any split of `n` values: 2 / C(n, ⌊n/2⌋) (see the module's
/// documentation), and never below 1 / (R + 1). The Monte Carlo estimate
/// scatters around the exact value.
pub fn smallest_p_value(n: usize, permutations: usize) -> f64 {
    let exact = match n {
        0 | 1 => 1.0,
        n => (2.0 / binomial(n, n / 2)).min(1.0),
    };
    exact.max(1.0 / (1 + permutations) as f64)
}

/// How many values a series needs before a jump in its middle can reach
/// p < `alpha`; `None` when the shuffles alone forbid it (1/(R+1) ≥ α).
pub fn values_needed(alpha: f64, permutations: usize) -> Option<usize> {
    if 1.0 / (1 + permutations) as f64 >= alpha {
        return None;
    }
    (2..).find(|&n| 2.0 / binomial(n, n / 2) < alpha)
}

/// C(n, k) as a float (exact while it fits the mantissa).
fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    const SETTINGS: Settings = Settings {
        alpha: 0.05,
        permutations: 999,
        seed: 7,
    };

    /// `n` values uniform in [−spread, spread] around `level`.
    fn noise(rng: &mut ChaCha8Rng, n: usize, level: f64, spread: f64) -> Vec<f64> {
        (0..n)
            .map(|_| level + rng.gen_range(-spread..=spread))
            .collect()
    }

    #[test]
    fn q_by_hand() {
        // X = {0, 0}, Y = {3}: 2/(2·1)·(3 + 3) − 0 − 0 = 6, times 2·1/3.
        assert!((statistic(&[0.0, 0.0, 3.0], 2) - 4.0).abs() < 1e-12);
        // X = {0}, Y = {0, 3}: 2/2·(0 + 3) − 0 − 3 = 0.
        assert!(statistic(&[0.0, 0.0, 3.0], 1).abs() < 1e-12);
        // X = {1, 2}, Y = {4, 8}: 2/4·(3 + 7 + 2 + 6) − 1 − 4 = 4, times 4/4.
        assert!((statistic(&[1.0, 2.0, 4.0, 8.0], 2) - 4.0).abs() < 1e-12);
        assert_eq!(best_split(&[0.0, 0.0, 3.0]), Some((2, 4.0)));
        assert_eq!(best_split(&[5.0]), None);
    }

    #[test]
    fn the_fast_split_agrees_with_the_pairwise_sums() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for n in 2..30 {
            let x = noise(&mut rng, n, 0.0, 1.0);
            let (tau, q) = best_split(&x).unwrap();
            let reference = (1..n)
                .map(|t| statistic(&x, t))
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                (q - reference).abs() < 1e-9 * reference.abs().max(1.0),
                "n {n}"
            );
            assert!((statistic(&x, tau) - q).abs() < 1e-9 * q.abs().max(1.0));
        }
    }

    #[test]
    fn finds_a_step_where_it_is() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut x = noise(&mut rng, 6, 0.0, 0.02);
        x.extend(noise(&mut rng, 6, 1.5f64.ln(), 0.02));
        let found = change_points(&x, &SETTINGS);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].index, 6);
        // The exact p is 2/C(12,6) ≈ 0.0022: the estimate scatters around it.
        assert!(found[0].p_value < 0.01, "{found:?}");
        assert_eq!(change_points(&x, &SETTINGS), found, "seeded: reproducible");
    }

    #[test]
    fn finds_two_steps_whichever_comes_first() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut x = noise(&mut rng, 10, 0.0, 0.02);
        x.extend(noise(&mut rng, 10, 0.3, 0.02));
        x.extend(noise(&mut rng, 10, 1.0, 0.02));
        let at = |x: &[f64]| -> Vec<usize> {
            change_points(x, &SETTINGS)
                .iter()
                .map(|c| c.index)
                .collect()
        };
        // The larger jump is found first, then the segment before it (and,
        // reversed, the segment after it) is searched again.
        assert_eq!(at(&x), [10, 20]);
        x.reverse();
        assert_eq!(at(&x), [10, 20]);
    }

    #[test]
    fn noise_alone_rarely_has_a_change_point() {
        let settings = Settings {
            permutations: 199,
            ..SETTINGS
        };
        let series = 400;
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let false_alarms = (0..series)
            .filter(|&s| {
                let x = noise(&mut rng, 16, 1.0, 0.1);
                !change_points(
                    &x,
                    &Settings {
                        seed: s,
                        ..settings
                    },
                )
                .is_empty()
            })
            .count();
        // The first test of a series has level α exactly; 400 series give a
        // standard error of 0.011 around 0.05.
        let rate = false_alarms as f64 / series as f64;
        assert!(rate <= 0.08, "false-alarm rate {rate}");
        assert!(change_points(&[2.0; 10], &SETTINGS).is_empty());
    }

    #[test]
    fn short_series_cannot_reach_small_p() {
        assert_eq!(smallest_p_value(5, 999), 0.2);
        assert_eq!(smallest_p_value(2, 999), 1.0);
        assert!((smallest_p_value(8, 999) - 2.0 / 70.0).abs() < 1e-12);
        assert_eq!(smallest_p_value(30, 999), 0.001, "the shuffles' floor");
        assert_eq!(values_needed(0.05, 999), Some(8));
        assert_eq!(values_needed(0.05, 19), None);
        // A perfect jump in 5 values: 2 of the 10 orders reach it.
        let step = [0.0, 0.0, 1.0, 1.0, 1.0];
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let p = test(&step, 999, &mut rng).unwrap().p_value;
        assert!((p - 0.2).abs() < 0.04, "p {p}");
        assert!(change_points(&step, &SETTINGS).is_empty());
        // Never below the bound, whatever the draw: 2/C(12, 5) for 5 + 7.
        let mut x = noise(&mut rng, 5, 0.0, 0.01);
        x.extend(noise(&mut rng, 7, 1.0, 0.01));
        for seed in 0..5 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let split = test(&x, 99, &mut rng).unwrap();
            assert_eq!(split.index, 5);
            assert!(split.p_value >= 2.0 / 792.0, "{split:?}");
        }
        // Eight values reach it, in the middle.
        let step = [0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(change_points(&step, &SETTINGS)[0].index, 4);
    }
}
