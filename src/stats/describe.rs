//! Descriptive measures: median, quantiles, five-number summary and mean.

/// Ascending copy of `values` (IEEE total order, so NaN never panics; -0.0 is
/// stored as 0.0 so that it ties with 0.0).
pub fn sorted(values: &[f64]) -> Vec<f64> {
    let mut copy: Vec<f64> = values.iter().map(|&v| v + 0.0).collect();
    copy.sort_unstable_by(f64::total_cmp);
    copy
}

/// Median as NumPy computes it (mean of the two middle values for even n);
/// NaN when empty. The input need not be sorted. O(n).
pub fn median(values: &[f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    let mut copy = values.to_vec();
    let (lower, &mut upper, _) = copy.select_nth_unstable_by(n / 2, f64::total_cmp);
    if n % 2 == 1 {
        upper
    } else {
        let below = lower
            .iter()
            .copied()
            .max_by(f64::total_cmp)
            .unwrap_or(upper);
        (below + upper) / 2.0
    }
}

/// Median of an ascending slice; NaN when empty.
pub fn median_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Quantile `q` (clamped to [0, 1]) of an ascending slice, by linear
/// interpolation as NumPy's default method; NaN when empty.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 0 || q.is_nan() {
        return f64::NAN;
    }
    let position = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let below = (position.floor() as usize).min(n - 1);
    let above = (below + 1).min(n - 1);
    let t = position - below as f64;
    let (a, b) = (sorted[below], sorted[above]);
    let diff = b - a;
    // NumPy's _lerp: interpolate from the nearer end, which keeps results monotone in q.
    if t >= 0.5 {
        b - diff * (1.0 - t)
    } else {
        a + diff * t
    }
}

/// Five-number summary and mean of a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    pub mean: f64,
}

/// Summary of `values` (any order); every measure is NaN when empty.
pub fn summarize(values: &[f64]) -> Summary {
    let sorted = sorted(values);
    let n = sorted.len();
    Summary {
        n,
        min: sorted.first().copied().unwrap_or(f64::NAN),
        q1: quantile(&sorted, 0.25),
        median: median_sorted(&sorted),
        q3: quantile(&sorted, 0.75),
        max: sorted.last().copied().unwrap_or(f64::NAN),
        mean: mean(values),
    }
}

/// Arithmetic mean; NaN when empty.
pub fn mean(values: &[f64]) -> f64 {
    pairwise_sum(values, |v| v) / values.len() as f64
}

/// Unbiased sample variance (n − 1 in the denominator), two-pass; NaN when n < 2.
pub fn variance(values: &[f64]) -> f64 {
    let n = values.len();
    if n < 2 {
        return f64::NAN;
    }
    let m = mean(values);
    pairwise_sum(values, |v| (v - m) * (v - m)) / (n - 1) as f64
}

/// Σ f(v) with rounding error growing as O(log n) rather than O(n), as NumPy's sums.
fn pairwise_sum(values: &[f64], f: impl Fn(f64) -> f64 + Copy) -> f64 {
    const BLOCK: usize = 128;
    if values.len() <= BLOCK {
        values.iter().map(|&v| f(v)).sum()
    } else {
        let (left, right) = values.split_at(values.len() / 2);
        pairwise_sum(left, f) + pairwise_sum(right, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_unsorted_input() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
        assert!(median(&[]).is_nan());
        assert_eq!(median_sorted(&[1.0, 2.0, 3.0, 4.0]), 2.5);
        assert!(median_sorted(&[]).is_nan());
    }

    #[test]
    fn quantile_interpolates_like_numpy() {
        // np.quantile([1, 2, 3, 4, 10], [0, .1, .25, .5, .75, .9, 1])
        let s = [1.0, 2.0, 3.0, 4.0, 10.0];
        let expected = [1.0, 1.4, 2.0, 3.0, 4.0, 7.6, 10.0];
        for (q, e) in [0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0].iter().zip(expected) {
            assert!((quantile(&s, *q) - e).abs() < 1e-12, "q = {q}");
        }
        assert_eq!(quantile(&s, -1.0), 1.0);
        assert_eq!(quantile(&s, 2.0), 10.0);
        assert_eq!(quantile(&[5.0], 0.3), 5.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn summary_of_small_sample() {
        let s = summarize(&[4.0, 1.0, 3.0, 2.0, 10.0]);
        assert_eq!(s.n, 5);
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 10.0)
        );
        assert_eq!(s.mean, 4.0);
    }

    #[test]
    fn summary_of_empty_and_single_samples() {
        let empty = summarize(&[]);
        assert_eq!(empty.n, 0);
        for v in [
            empty.min,
            empty.q1,
            empty.median,
            empty.q3,
            empty.max,
            empty.mean,
        ] {
            assert!(v.is_nan());
        }
        let one = summarize(&[2.5]);
        assert_eq!(one.n, 1);
        for v in [one.min, one.q1, one.median, one.q3, one.max, one.mean] {
            assert_eq!(v, 2.5);
        }
    }

    #[test]
    fn variance_is_unbiased() {
        assert_eq!(variance(&[1.0, 2.0, 3.0, 4.0]), 5.0 / 3.0);
        assert!(variance(&[1.0]).is_nan());
        assert_eq!(variance(&[2.0, 2.0]), 0.0);
    }

    #[test]
    fn sorted_handles_negative_zero_and_nan() {
        let s = sorted(&[f64::NAN, 1.0, -0.0, 0.0]);
        assert_eq!(s[0].to_bits(), 0.0f64.to_bits());
        assert_eq!(s[1].to_bits(), 0.0f64.to_bits());
        assert_eq!(s[2], 1.0);
        assert!(s[3].is_nan());
    }
}
