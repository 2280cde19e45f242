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
    let (below, above, t) = quantile_position(n, q);
    lerp(sorted[below], sorted[above], t)
}

/// The order statistics (0-based, ascending) that quantile `q` of n values
/// interpolates between, and the weight of the upper one.
pub(super) fn quantile_position(n: usize, q: f64) -> (usize, usize, f64) {
    let position = (n - 1) as f64 * q.clamp(0.0, 1.0);
    let below = (position.floor() as usize).min(n - 1);
    let above = (below + 1).min(n - 1);
    (below, above, position - below as f64)
}

pub(super) fn lerp(a: f64, b: f64, t: f64) -> f64 {
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

/// The first quartile, median and third quartile of `values` (any order),
/// to the bit as [`summarize`] gives them, by selection instead of a sort:
/// O(n). None when empty.
pub fn quartiles(values: &[f64]) -> Option<[f64; 3]> {
    Some(Selected::of(values, &QUARTILES)?.quartiles())
}

/// Quantile `q` of `values` in any order, to the bit as [`quantile`] of
/// [`sorted`] values, by selection: O(n). NaN when empty.
pub fn quantile_unsorted(values: &[f64], q: f64) -> f64 {
    if q.is_nan() {
        return f64::NAN;
    }
    Selected::of(values, &[Statistic::Quantile(q)]).map_or(f64::NAN, |s| s.quantile(q))
}

/// A measure [`Selected`] can give: a quantile (as [`quantile`]) or the
/// median (as [`median`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Statistic {
    Quantile(f64),
    Median,
}

/// What [`Selected::quartiles`] needs.
pub const QUARTILES: [Statistic; 3] = [
    Statistic::Quantile(0.25),
    Statistic::Median,
    Statistic::Quantile(0.75),
];

/// The order statistics of some values (-0.0 taken as 0.0, as [`sorted`]
/// does) that a few measures need, selected together: one O(n) pass
/// whatever the measures, so that a sample's quartiles and its other
/// quantiles are not selected over again.
#[derive(Clone, Debug, PartialEq)]
pub struct Selected {
    n: usize,
    /// The 0-based ranks selected, ascending.
    ranks: Vec<usize>,
    /// The value of each rank.
    values: Vec<f64>,
    /// Whether no value was -0.0 (nor any other that adding 0.0 changes),
    /// so that the ranks are also those of `total_cmp` on the values as
    /// given.
    as_given: bool,
}

impl Selected {
    /// Selects what `statistics` need of `values` (any order); None when
    /// empty.
    pub fn of(values: &[f64], statistics: &[Statistic]) -> Option<Selected> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mut ranks: Vec<usize> = statistics
            .iter()
            .flat_map(|&s| Selected::ranks_of(n, s))
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        // As `sorted`: -0.0 ties with 0.0.
        let mut keys: Vec<i64> = values.iter().map(|&v| order_key(v + 0.0)).collect();
        let as_given = keys.iter().zip(values).all(|(&k, &v)| k == order_key(v));
        let values = select_ranks(&mut keys, &ranks);
        Some(Selected {
            n,
            ranks,
            values,
            as_given,
        })
    }

    /// How many values.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Never: there is nothing to select from no values.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Whether the values were selected as given: none was -0.0 (taken as
    /// 0.0), so that [`Selected::at`] is also the `rank`-th smallest value
    /// under [`f64::total_cmp`].
    pub fn as_given(&self) -> bool {
        self.as_given
    }

    /// The ranks `statistic` is computed from.
    fn ranks_of(n: usize, statistic: Statistic) -> [usize; 2] {
        match statistic {
            Statistic::Quantile(q) => {
                let (below, above, _) = quantile_position(n, q);
                [below, above]
            }
            Statistic::Median => [(n - 1) / 2, n / 2],
        }
    }

    /// The `rank`-th smallest value (0-based), if selected.
    pub fn at(&self, rank: usize) -> Option<f64> {
        let i = self.ranks.binary_search(&rank).ok()?;
        Some(self.values[i])
    }

    /// [`Selected::at`] of a rank a statistic asked for.
    fn asked(&self, rank: usize) -> f64 {
        self.at(rank).expect("a statistic asked for when selecting")
    }

    /// Quantile `q`, which must have been asked for.
    pub fn quantile(&self, q: f64) -> f64 {
        let (below, above, t) = quantile_position(self.n, q);
        lerp(self.asked(below), self.asked(above), t)
    }

    /// The median, which must have been asked for.
    pub fn median(&self) -> f64 {
        let n = self.n;
        match n % 2 {
            1 => self.asked(n / 2),
            _ => (self.asked(n / 2 - 1) + self.asked(n / 2)) / 2.0,
        }
    }

    /// The first quartile, median and third quartile, which must have been
    /// asked for ([`QUARTILES`]).
    pub fn quartiles(&self) -> [f64; 3] {
        [self.quantile(0.25), self.median(), self.quantile(0.75)]
    }
}

/// `value`'s place in f64's total order ([`f64::total_cmp`]) as an integer:
/// selections compare these, which is cheaper than `total_cmp` on floats.
pub fn order_key(value: f64) -> i64 {
    let bits = value.to_bits() as i64;
    bits ^ (((bits >> 63) as u64) >> 1) as i64
}

/// The value whose [`order_key`] `key` is.
pub fn of_order_key(key: i64) -> f64 {
    // The sign bit is kept, so the same flip undoes it.
    f64::from_bits(order_key(f64::from_bits(key as u64)) as u64)
}

/// The `ranks`-th smallest (0-based, ascending, distinct) of the values
/// whose [`order_key`]s are `keys` (reordered).
pub fn select_ranks(keys: &mut [i64], ranks: &[usize]) -> Vec<f64> {
    let mut found = vec![0.0; ranks.len()];
    select_all(keys, 0, ranks, &mut found);
    found
}

/// Puts in `found[i]` the `wanted[i]`-th smallest of `keys` (whose first
/// element is the `offset`-th of the whole): each selection splits the
/// rest, so a few order statistics cost O(n) together.
fn select_all(keys: &mut [i64], offset: usize, wanted: &[usize], found: &mut [f64]) {
    if wanted.is_empty() {
        return;
    }
    let middle = wanted.len() / 2;
    let k = wanted[middle] - offset;
    let (below, &mut key, above) = keys.select_nth_unstable(k);
    found[middle] = of_order_key(key);
    let (found_below, found_above) = found.split_at_mut(middle);
    select_all(below, offset, &wanted[..middle], found_below);
    select_all(
        above,
        offset + k + 1,
        &wanted[middle + 1..],
        &mut found_above[1..],
    );
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
    fn quartiles_by_selection_are_summarize_s_to_the_bit() {
        for n in [1usize, 2, 3, 4, 5, 8, 101, 1000] {
            // A scrambled, tied sample with a negative zero.
            let values: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 97) as f64 * 0.37 - 3.0)
                .chain(std::iter::once(-0.0))
                .collect();
            let s = summarize(&values);
            let [q1, median, q3] = quartiles(&values).unwrap();
            assert_eq!(
                [q1.to_bits(), median.to_bits(), q3.to_bits()],
                [s.q1.to_bits(), s.median.to_bits(), s.q3.to_bits()],
                "n = {n}"
            );
        }
        assert_eq!(quartiles(&[]), None);
    }

    #[test]
    fn order_keys_order_as_total_cmp_and_give_the_values_back() {
        let values = [
            f64::NEG_INFINITY,
            -1e300,
            -1.0,
            -f64::MIN_POSITIVE,
            -0.0,
            0.0,
            f64::MIN_POSITIVE / 2.0,
            1.0,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        for a in values {
            assert_eq!(of_order_key(order_key(a)).to_bits(), a.to_bits());
            for b in values {
                assert_eq!(order_key(a).cmp(&order_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
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
