//! A sample's observations summarised once: the two middle observations of
//! each round and of the whole sample. The round tests, the slowdowns, the
//! sensitivity search and the universal guidelines need nothing more, so
//! each candidate is grouped by round and its medians selected (not
//! sorted) once, however many comparisons follow.

use crate::case::Sample;
use crate::stats::describe::{self, Selected};

/// The two middle observations of some values (equal for an odd count):
/// their median, also after scaling every value by a positive factor,
/// comes out to the bit as `describe::median` of the values would.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Middles {
    lower: f64,
    upper: f64,
    odd: bool,
}

impl Middles {
    /// The middles of `values` (any order); None when empty.
    pub fn of(values: &[f64]) -> Option<Middles> {
        let n = values.len();
        if n == 0 {
            return None;
        }
        let mut keys: Vec<i64> = values.iter().map(|&v| describe::order_key(v)).collect();
        let odd = n % 2 == 1;
        let found = match odd {
            true => describe::select_ranks(&mut keys, &[n / 2]),
            false => describe::select_ranks(&mut keys, &[n / 2 - 1, n / 2]),
        };
        Some(Middles {
            lower: found[0],
            upper: found[found.len() - 1],
            odd,
        })
    }

    /// The middles of the values whose median `selected` holds, unless it
    /// took a -0.0 among them as 0.0.
    pub fn of_selected(selected: &Selected) -> Option<Middles> {
        let n = selected.len();
        if !selected.as_given() {
            return None;
        }
        Some(Middles {
            lower: selected.at((n - 1) / 2)?,
            upper: selected.at(n / 2)?,
            odd: n % 2 == 1,
        })
    }

    /// The median, as NumPy computes it.
    pub fn median(&self) -> f64 {
        match self.odd {
            true => self.upper,
            false => (self.lower + self.upper) / 2.0,
        }
    }

    /// The middles of the values times `factor` (> 0): multiplying by a
    /// positive number keeps their order.
    pub fn scaled(&self, factor: f64) -> Middles {
        Middles {
            lower: self.lower * factor,
            upper: self.upper * factor,
            odd: self.odd,
        }
    }
}

/// The median of `values` each counted `weight` times (none without
/// weight): between two values where exactly half the weight lies below,
/// as the plain median of an even count is.
fn weighted_median(mut weighted: Vec<(f64, usize)>) -> Option<f64> {
    weighted.retain(|w| w.1 > 0);
    weighted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let total: usize = weighted.iter().map(|w| w.1).sum();
    let mut below = 0;
    for (i, &(value, weight)) in weighted.iter().enumerate() {
        below += weight;
        if 2 * below == total {
            return Some(
                weighted
                    .get(i + 1)
                    .map_or(value, |next| (value + next.0) / 2.0),
            );
        }
        if 2 * below > total {
            return Some(value);
        }
    }
    None
}

/// The weight of each round of a case, ascending by round: the fewest
/// observations any of `candidates` (those with rounds) has in it, none
/// where one of them lacks it. Every candidate's latency is the median of
/// its round medians under the same weights, so that its headline and
/// the paired tests speak of the same rounds: weighted by their own
/// counts (which each candidate's roundtime slots set: identical calls
/// kept 15k to 200k observations at 1 s), an A/A copy read 0.90 µs
/// against `default`'s 1.38 µs in a launch whose rounds agreed within 2 %.
pub fn common_weights(candidates: &[RoundMedians]) -> Vec<(u32, usize)> {
    let measured: Vec<&RoundMedians> = candidates.iter().filter(|r| !r.is_empty()).collect();
    let Some((first, others)) = measured.split_first() else {
        return Vec::new();
    };
    first
        .rounds
        .iter()
        .zip(&first.counts)
        .filter_map(|(&round, &count)| {
            others
                .iter()
                .try_fold(count, |least, other| {
                    let at = other.rounds.binary_search(&round).ok()?;
                    Some(least.min(other.counts[at]))
                })
                .map(|least| (round, least))
        })
        .collect()
}

/// A sample's rounds with observations, ascending, and the middles of each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoundMedians {
    /// The round numbers.
    pub rounds: Vec<u32>,
    /// Observations in each round.
    pub counts: Vec<usize>,
    middles: Vec<Middles>,
}

impl RoundMedians {
    /// Groups `sample` by round and selects each round's middles.
    pub fn of(sample: &Sample) -> RoundMedians {
        let mut of_rounds = RoundMedians::default();
        for_each_round(sample, |round, values| {
            of_rounds.rounds.push(round);
            of_rounds.counts.push(values.len());
            of_rounds
                .middles
                .push(Middles::of(values).expect("a round has observations"));
        });
        of_rounds
    }

    /// How many rounds have observations.
    pub fn len(&self) -> usize {
        self.rounds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rounds.is_empty()
    }

    /// The median of each round, in round order.
    pub fn medians(&self) -> Vec<f64> {
        self.middles.iter().map(Middles::median).collect()
    }

    /// The median of the per-round medians, each round weighted by its
    /// observations: what most observations say, so that a round a stall
    /// cut to a few observations never weighs like a full one. Equal to
    /// the plain median when every round has as many observations. None
    /// without rounds.
    pub fn weighted_median(&self) -> Option<f64> {
        self.median_weighted_by(self.counts.iter().copied())
    }

    /// The median of the per-round medians, each round weighted as the
    /// case's `weights` weigh it ([`common_weights`]); a round they lack
    /// weighs nothing. None when no round weighs anything.
    pub fn weighted_median_in(&self, weights: &[(u32, usize)]) -> Option<f64> {
        let weight = |round: &u32| {
            weights
                .binary_search_by_key(round, |w| w.0)
                .map_or(0, |at| weights[at].1)
        };
        self.median_weighted_by(self.rounds.iter().map(weight))
    }

    fn median_weighted_by(&self, weights: impl Iterator<Item = usize>) -> Option<f64> {
        weighted_median(
            self.middles
                .iter()
                .map(Middles::median)
                .zip(weights)
                .collect(),
        )
    }

    /// The median of this sample's per-round medians divided by `other`'s,
    /// over the rounds both have, weighted as the case's `weights` weigh
    /// them: the slowdown the paired tests test. None when no round both
    /// have weighs anything.
    pub fn ratio_in(&self, other: &RoundMedians, weights: &[(u32, usize)]) -> Option<f64> {
        let ratios = self
            .rounds
            .iter()
            .zip(&self.middles)
            .filter_map(|(round, mine)| {
                let at = other.rounds.binary_search(round).ok()?;
                let weight = weights.binary_search_by_key(round, |w| w.0).ok()?;
                Some((
                    mine.median() / other.middles[at].median(),
                    weights[weight].1,
                ))
            })
            .collect();
        weighted_median(ratios)
    }

    /// The standard error of the logarithm of the median of the per-round
    /// medians, from their spread (1.4826 MAD, a median's √(π/2) σ/√n):
    /// how far the launch's own rounds leave its median uncertain. `None`
    /// with fewer than 3 rounds.
    pub fn log_median_se(&self) -> Option<f64> {
        let logs: Vec<f64> = self
            .medians()
            .into_iter()
            .filter(|m| *m > 0.0)
            .map(f64::ln)
            .collect();
        if logs.len() < 3 {
            return None;
        }
        let centre = describe::median(&logs);
        let deviations: Vec<f64> = logs.iter().map(|l| (l - centre).abs()).collect();
        let sigma = 1.4826 * describe::median(&deviations);
        Some((std::f64::consts::FRAC_PI_2).sqrt() * sigma / (logs.len() as f64).sqrt())
    }

    /// The same rounds with every observation times `factor` (> 0).
    pub fn scaled(&self, factor: f64) -> RoundMedians {
        RoundMedians {
            middles: self.middles.iter().map(|m| m.scaled(factor)).collect(),
            ..self.clone()
        }
    }

    /// The medians of the rounds both have, in round order, paired.
    pub fn paired(&self, other: &RoundMedians) -> (Vec<f64>, Vec<f64>) {
        self.rounds
            .iter()
            .zip(&self.middles)
            .filter_map(|(round, mine)| {
                let at = other.rounds.binary_search(round).ok()?;
                Some((mine.median(), other.middles[at].median()))
            })
            .unzip()
    }
}

/// What the universal guidelines need of a `default` sample: the middles
/// of all its observations (their median) and of each round (the round
/// tests), kept so that a series is compared without re-reading samples.
#[derive(Clone, Debug, PartialEq)]
pub struct Shape {
    pub all: Middles,
    pub rounds: RoundMedians,
}

impl Shape {
    /// None for a sample without observations.
    pub fn of(sample: &Sample) -> Option<Shape> {
        let all = Middles::of(&sample.seconds)?;
        Some(Shape {
            all,
            rounds: RoundMedians::of(sample),
        })
    }

    /// The median of all observations.
    pub fn median(&self) -> f64 {
        self.all.median()
    }

    /// Every observation times `factor` (> 0).
    pub fn scaled(&self, factor: f64) -> Shape {
        Shape {
            all: self.all.scaled(factor),
            rounds: self.rounds.scaled(factor),
        }
    }
}

/// Calls `visit` with each round's observations (in their order within the
/// round), rounds ascending: at once for observations stored round after
/// round, as `measure` stores them, else by counting.
fn for_each_round(sample: &Sample, mut visit: impl FnMut(u32, &[f64])) {
    let n = sample.seconds.len().min(sample.rounds.len());
    let (seconds, rounds) = (&sample.seconds[..n], &sample.rounds[..n]);
    if rounds.windows(2).all(|w| w[0] <= w[1]) {
        let mut start = 0;
        while start < rounds.len() {
            let round = rounds[start];
            let end = start + rounds[start..].partition_point(|&r| r == round);
            visit(round, &seconds[start..end]);
            start = end;
        }
        return;
    }
    for (round, values) in by_round(sample) {
        visit(round, &values);
    }
}

/// The observations of each round, in round order, each round's in their
/// order in the sample.
pub fn by_round(sample: &Sample) -> Vec<(u32, Vec<f64>)> {
    let mut distinct = sample.rounds.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut grouped: Vec<(u32, Vec<f64>)> = distinct.iter().map(|&r| (r, Vec::new())).collect();
    for (&s, r) in sample.seconds.iter().zip(&sample.rounds) {
        let at = distinct.binary_search(r).expect("every round is listed");
        grouped[at].1.push(s);
    }
    grouped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::Outcome;
    use crate::stats::describe;
    use rand::{Rng, SeedableRng};

    fn sample(seconds: Vec<f64>, rounds: Vec<u32>) -> Sample {
        Sample {
            name: "x".into(),
            outcome: Outcome::Measured,
            seconds,
            rounds,
            invalid_rounds: Vec::new(),
        }
    }

    #[test]
    fn medians_match_describe_to_the_bit_in_any_order_and_scaled() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for ordered in [true, false] {
            let n = 1000;
            let seconds: Vec<f64> = (0..n).map(|_| rng.gen_range(1e-6..2e-6)).collect();
            let mut rounds: Vec<u32> = (0..n).map(|i| (i * 7 / n) as u32 * 3).collect();
            if !ordered {
                rounds.reverse();
                rounds.swap(3, 500);
            }
            let s = sample(seconds, rounds);
            let of = RoundMedians::of(&s);
            let grouped = by_round(&s);
            assert_eq!(
                of.rounds,
                grouped.iter().map(|(r, _)| *r).collect::<Vec<_>>()
            );
            for factor in [1.0, 1.05 * 3.0, 1.0 / 1.05] {
                let scaled = of.scaled(factor);
                for ((_, values), m) in grouped.iter().zip(scaled.medians()) {
                    let values: Vec<f64> = values.iter().map(|v| v * factor).collect();
                    assert_eq!(describe::median(&values).to_bits(), m.to_bits());
                }
            }
            assert_eq!(
                Middles::of(&s.seconds).unwrap().median().to_bits(),
                describe::median(&s.seconds).to_bits()
            );
        }
    }

    #[test]
    fn middles_of_selected_are_the_values_own_unless_a_zero_was_negative() {
        use describe::{Statistic, QUARTILES};
        for n in [1usize, 2, 7, 10] {
            let mut values: Vec<f64> = (0..n).map(|i| ((i * 7) % 5) as f64 - 2.0).collect();
            let selected = Selected::of(&values, &QUARTILES).unwrap();
            assert_eq!(Middles::of_selected(&selected), Middles::of(&values));
            // Only the quantiles, not the median: nothing to give.
            let quantile = Selected::of(&values, &[Statistic::Quantile(0.9)]).unwrap();
            assert!(n < 3 || Middles::of_selected(&quantile).is_none());
            // A -0.0 in the middle: Selected takes it as 0.0, Middles does not.
            values.fill(-0.0);
            let selected = Selected::of(&values, &QUARTILES).unwrap();
            assert_eq!(selected.median().to_bits(), 0.0f64.to_bits());
            assert_eq!(
                Middles::of(&values).unwrap().median().to_bits(),
                (-0.0f64).to_bits()
            );
            assert_eq!(Middles::of_selected(&selected), None);
        }
    }

    #[test]
    fn the_weighted_median_is_what_most_observations_say() {
        // Equal counts: the plain median of the round medians.
        let even = sample(vec![1.0, 2.0, 3.0, 4.0], vec![0, 1, 2, 3]);
        assert_eq!(RoundMedians::of(&even).weighted_median(), Some(2.5));
        let odd = sample(vec![5.0, 1.0, 3.0], vec![0, 1, 2]);
        assert_eq!(RoundMedians::of(&odd).weighted_median(), Some(3.0));
        // Five full rounds at 38 µs, five that a stall cut to two
        // observations of milliseconds each: the plain median of the round
        // medians is the stall's, the weighted one the full rounds'.
        let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
        for round in 0..10u32 {
            let (n, t) = match round < 5 {
                true => (100, 38e-6 + f64::from(round) * 1e-7),
                false => (2, 5e-3),
            };
            seconds.extend(std::iter::repeat_n(t, n));
            rounds.extend(std::iter::repeat_n(round, n));
        }
        let stalled = RoundMedians::of(&sample(seconds, rounds));
        assert!(describe::median(&stalled.medians()) > 2e-3);
        assert_eq!(stalled.weighted_median(), Some(38e-6 + 2.0 * 1e-7));
        assert_eq!(RoundMedians::default().weighted_median(), None);
    }

    #[test]
    fn common_weights_are_the_fewest_observations_of_rounds_every_candidate_has() {
        let x = sample(vec![1.0; 6], vec![0, 0, 0, 1, 2, 2]);
        let y = sample(vec![2.0; 5], vec![0, 2, 2, 2, 3]);
        let (x, y) = (RoundMedians::of(&x), RoundMedians::of(&y));
        let weights = common_weights(&[x.clone(), RoundMedians::default(), y]);
        assert_eq!(weights, vec![(0, 1), (2, 2)]);
        assert_eq!(common_weights(&[]), vec![]);
        // Round 1 weighs nothing, rounds 0 and 2 as given.
        let z = RoundMedians::of(&sample(vec![5.0, 1.0, 3.0], vec![0, 1, 2]));
        assert_eq!(z.weighted_median_in(&[(0, 1), (2, 2)]), Some(3.0));
        assert_eq!(z.weighted_median_in(&[(0, 3), (2, 2)]), Some(5.0));
        assert_eq!(z.weighted_median_in(&[(7, 3)]), None);
        // The rounds' ratios z / x over rounds both have and the weights
        // name: 5 / 1 and 3 / 1, weighted 1 and 2.
        assert_eq!(z.ratio_in(&x, &[(0, 1), (2, 2)]), Some(3.0));
        assert_eq!(z.ratio_in(&x, &[(0, 3), (2, 2)]), Some(5.0));
        assert_eq!(z.ratio_in(&x, &[(1, 1)]), Some(1.0));
        assert_eq!(z.ratio_in(&x, &[(3, 1)]), None);
    }

    #[test]
    fn pairs_only_the_rounds_both_have() {
        let x = sample(vec![1.0, 2.0, 3.0, 4.0], vec![0, 1, 1, 3]);
        let y = sample(vec![5.0, 6.0, 7.0], vec![3, 1, 2]);
        let (a, b) = RoundMedians::of(&x).paired(&RoundMedians::of(&y));
        assert_eq!((a, b), (vec![2.5, 4.0], vec![6.0, 5.0]));
    }
}
