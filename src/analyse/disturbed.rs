//! Disturbed rounds: rounds in which every candidate ran far slower than in
//! its other rounds. Every candidate of a round runs within milliseconds of
//! the others, so a round slow for all of them is a disturbance of the
//! machine (a CPU hog, a stall of the host), not a property of any one
//! candidate. Such rounds are set aside before the verdict, named in the
//! report, and measured again while measuring (`measure` asks [`find`]).
//!
//! A round is disturbed when each candidate measured in it (at least two)
//! ran at least [`DISTURBED_FACTOR`] times slower than its usual level, the
//! median of its round medians weighted by their observations (so that the
//! usual level is what most observations say, even when half the rounds
//! were disturbed). A machine that only changed state (2× slower from
//! some round on) is not disturbed: that is a state, which the rounds
//! and the machine state record show.

use super::rounds::RoundMedians;
use super::{CaseData, Outcome, Sample};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// How many times slower than its usual level every candidate of a round
/// must run for the round to be disturbed: far beyond the 2–2.5× state
/// changes this machine showed between and within launches, well below
/// the 26–800× of the stalls and CPU hogs seen.
pub const DISTURBED_FACTOR: f64 = 4.0;

/// The rounds of a case set aside as disturbed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Disturbance {
    /// The rounds, ascending (0-based, as in raw/).
    pub rounds: Vec<u32>,
    /// How much slower than usual every candidate ran in them: the median
    /// over those rounds of the smallest factor of any candidate.
    pub factor: f64,
    /// The observations set aside, of every candidate.
    pub observations: usize,
    /// The time those observations took, summed: about how long the
    /// disturbance lasted within the case.
    pub seconds: f64,
}

impl Disturbance {
    /// `rounds 6–10: every candidate 40× slower for 4.2 s`, rounds 1-based
    /// as the report counts them.
    pub fn describe(&self) -> String {
        let rounds = ranges(&self.rounds);
        let word = match self.rounds.len() {
            1 => "round",
            _ => "rounds",
        };
        format!(
            "{word} {rounds}: every candidate {:.0}× slower than usual for {:.2} s ({} observations set aside)",
            self.factor, self.seconds, self.observations
        )
    }
}

/// 1-based runs of consecutive rounds: `2, 6–10`.
fn ranges(rounds: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < rounds.len() {
        let mut j = i;
        while j + 1 < rounds.len() && rounds[j + 1] == rounds[j] + 1 {
            j += 1;
        }
        parts.push(match i == j {
            true => format!("{}", rounds[i] + 1),
            false => format!("{}–{}", rounds[i] + 1, rounds[j] + 1),
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The disturbed rounds of these samples (any order of observations), and
/// for each the smallest factor of any candidate over its usual level;
/// ascending by round. Samples without observations take no part.
pub fn find<'a>(samples: impl IntoIterator<Item = &'a Sample>) -> Vec<(u32, f64)> {
    let rounds: Vec<RoundMedians> = samples
        .into_iter()
        .filter(|s| measured(s))
        .map(RoundMedians::of)
        .collect();
    disturbed_rounds(&rounds.iter().collect::<Vec<_>>())
}

/// Whether `sample` takes part: measured, with observations.
fn measured(sample: &Sample) -> bool {
    sample.outcome == Outcome::Measured && !sample.seconds.is_empty()
}

/// [`find`] on the measured samples' rounds.
fn disturbed_rounds(measured: &[&RoundMedians]) -> Vec<(u32, f64)> {
    if measured.len() < 2 {
        return Vec::new();
    }
    let levels: Vec<Option<f64>> = measured.iter().map(|r| r.weighted_median()).collect();
    let medians: Vec<Vec<f64>> = measured.iter().map(|r| r.medians()).collect();
    let mut all_rounds: Vec<u32> = measured.iter().flat_map(|r| r.rounds.clone()).collect();
    all_rounds.sort_unstable();
    all_rounds.dedup();
    all_rounds
        .into_iter()
        .filter_map(|round| {
            let factors: Vec<f64> = measured
                .iter()
                .zip(&medians)
                .zip(&levels)
                .filter_map(|((r, m), &level)| {
                    let at = r.rounds.binary_search(&round).ok()?;
                    level.filter(|&l| l > 0.0).map(|l| m[at] / l)
                })
                .collect();
            let least = factors.iter().copied().fold(f64::INFINITY, f64::min);
            (factors.len() >= 2 && least >= DISTURBED_FACTOR).then_some((round, least))
        })
        .collect()
}

/// The case without its disturbed rounds (every candidate's, the smaller
/// size's and the overlapped call's too, so that rounds stay paired), and what was set aside; the
/// case itself when no round was disturbed. `rounds`: the rounds of the
/// case's samples, in their order.
pub fn set_aside<'a>(
    case: &'a CaseData,
    rounds: &[RoundMedians],
) -> (Cow<'a, CaseData>, Option<Disturbance>) {
    let smaller = case
        .smaller
        .as_ref()
        .filter(|s| measured(&s.sample))
        .map(|s| RoundMedians::of(&s.sample));
    let taking_part: Vec<&RoundMedians> = case
        .samples
        .iter()
        .zip(rounds)
        .filter(|(s, _)| measured(s))
        .map(|(_, r)| r)
        .chain(smaller.as_ref())
        .collect();
    let found = disturbed_rounds(&taking_part);
    if found.is_empty() {
        return (Cow::Borrowed(case), None);
    }
    let rounds: Vec<u32> = found.iter().map(|f| f.0).collect();
    let factors: Vec<f64> = found.iter().map(|f| f.1).collect();
    let factor = crate::stats::describe::median(&factors);
    let mut kept = case.clone();
    let (mut observations, mut seconds) = (0, 0.0);
    let samples = kept
        .samples
        .iter_mut()
        .chain(kept.smaller.as_mut().map(|s| &mut s.sample))
        .chain(kept.overlapped.as_mut().map(|o| &mut o.sample));
    for sample in samples {
        let (n, s) = drop_rounds(sample, &rounds);
        observations += n;
        seconds += s;
    }
    let disturbance = Disturbance {
        rounds,
        factor,
        observations,
        seconds,
    };
    (Cow::Owned(kept), Some(disturbance))
}

/// Drops the observations (and late starts) of `rounds` (ascending) from
/// `sample`; how many observations and the seconds they took.
fn drop_rounds(sample: &mut Sample, rounds: &[u32]) -> (usize, f64) {
    let dropped = |r: &u32| rounds.binary_search(r).is_ok();
    let (mut n, mut seconds) = (0, 0.0);
    let mut kept_seconds = Vec::with_capacity(sample.seconds.len());
    let mut kept_rounds = Vec::with_capacity(sample.rounds.len());
    for (&s, &r) in sample.seconds.iter().zip(&sample.rounds) {
        match dropped(&r) {
            true => {
                n += 1;
                seconds += s;
            }
            false => {
                kept_seconds.push(s);
                kept_rounds.push(r);
            }
        }
    }
    sample.seconds = kept_seconds;
    sample.rounds = kept_rounds;
    sample.invalid_rounds.retain(|r| !dropped(r));
    (n, seconds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseKey;

    /// A sample of `per_round[r]` observations at `times[r]` in round r.
    fn sample(name: &str, times: &[f64], per_round: &[usize]) -> Sample {
        let mut s = Sample::measured(name);
        for (round, (&t, &n)) in times.iter().zip(per_round).enumerate() {
            for i in 0..n {
                // A little spread, so that nothing is tied.
                s.seconds.push(t * (1.0 + i as f64 * 1e-4));
                s.rounds.push(round as u32);
            }
        }
        s
    }

    fn rounds_of(case: &CaseData) -> Vec<RoundMedians> {
        case.samples.iter().map(RoundMedians::of).collect()
    }

    fn case(samples: Vec<Sample>) -> CaseData {
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(4096),
            samples,
            smaller: None,
        }
    }

    #[test]
    fn a_stall_of_every_candidate_is_set_aside_and_named() {
        // Rounds 6–10 of every candidate ran at milliseconds against 38 µs
        // in rounds 1–5, with a handful of observations each: the gate
        // launch that printed 658 µs for a 38 µs call.
        let fast = [38e-6; 5];
        let stalled = [1e-3, 4e-3, 12e-3, 2e-3, 1.5e-3];
        let times: Vec<f64> = fast.iter().chain(&stalled).copied().collect();
        let counts = [500, 480, 520, 510, 490, 5, 2, 1, 4, 5];
        let other: Vec<f64> = times.iter().map(|t| t * 0.9).collect();
        let c = case(vec![
            sample("default", &times, &counts),
            sample("other", &other, &counts),
        ]);
        let (kept, disturbance) = set_aside(&c, &rounds_of(&c));
        let d = disturbance.expect("disturbed");
        assert_eq!(d.rounds, [5, 6, 7, 8, 9]);
        assert_eq!(d.observations, 2 * 17);
        assert!(d.factor > 40.0 && d.factor < 60.0, "{}", d.factor);
        // 1–12 ms against the usual 39 µs (the middle of each full
        // round): 51× in the median of the five rounds.
        assert_eq!(
            d.describe(),
            "rounds 6–10: every candidate 51× slower than usual for 0.08 s (34 observations set aside)"
        );
        for s in &kept.samples {
            assert_eq!(s.seconds.len(), 2500);
            assert!(s.rounds.iter().all(|&r| r < 5));
        }
    }

    #[test]
    fn a_state_change_a_lone_candidate_and_one_slow_candidate_are_not_disturbances() {
        let counts = [100; 10];
        // Every candidate 2.5× slower from round 5 on: a state, not a stall.
        let state: Vec<f64> = (0..10).map(|r| if r < 5 { 1e-6 } else { 2.5e-6 }).collect();
        let c = case(vec![
            sample("default", &state, &counts),
            sample("other", &state, &counts),
        ]);
        assert!(find(&c.samples).is_empty());
        // One competitor hit by a hog in rounds 4–8, `default` not: not
        // common to the round, so no round is set aside (the weighted
        // median keeps the competitor's headline).
        let hit: Vec<f64> = (0..10)
            .map(|r| if (3..8).contains(&r) { 300e-6 } else { 2.8e-6 })
            .collect();
        let c = case(vec![
            sample("default", &[1.5e-6; 10], &counts),
            sample(
                "other",
                &hit,
                &[100, 100, 100, 10, 10, 10, 10, 10, 100, 100],
            ),
        ]);
        assert!(set_aside(&c, &rounds_of(&c)).1.is_none());
        // A single candidate cannot tell itself from the machine.
        let stalled: Vec<f64> = (0..10).map(|r| if r == 3 { 1e-3 } else { 1e-6 }).collect();
        assert!(find([&sample("default", &stalled, &counts)]).is_empty());
    }

    #[test]
    fn the_smaller_size_loses_the_same_rounds_and_late_starts_go_with_them() {
        let counts = [50; 6];
        let times = [1e-6, 1e-6, 9e-6, 1e-6, 1e-6, 1e-6];
        let mut c = case(vec![
            sample("default", &times, &counts),
            sample("other", &times, &counts),
        ]);
        c.samples[1].invalid_rounds = vec![1, 2, 2, 4];
        c.smaller = Some(crate::case::Smaller {
            size_bytes: 1024,
            sample: sample("default@1024B", &times, &counts),
        });
        let (kept, d) = set_aside(&c, &rounds_of(&c));
        assert_eq!(d.unwrap().describe().split(':').next(), Some("round 3"));
        assert_eq!(kept.samples[1].invalid_rounds, [1, 4]);
        let smaller = &kept.smaller.as_ref().unwrap().sample;
        assert!(smaller.rounds.iter().all(|&r| r != 2));
        assert_eq!(smaller.seconds.len(), 250);
    }

    #[test]
    fn ranges_join_consecutive_rounds() {
        assert_eq!(ranges(&[0, 2, 3, 4, 9]), "1, 3–5, 10");
        assert_eq!(ranges(&[]), "");
    }
}
