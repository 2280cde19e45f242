//! Verdicts that depend on the machine's state. This VM moves between a
//! fast and a slow state, within a launch as well as between launches
//! (the control plane's barrier took 0.5 µs in one and 0.8–0.9 µs in the
//! other), and which candidate is faster can depend on it: allreduce
//! 8 KiB beat reduce + bcast in the fast state and lost in the slow one.
//! Each round's calibration ([`crate::case::CaseData::calibration`]) says
//! which state the round ran in; where a case's rounds fall into two
//! states, its slowdown is measured in each, and a verdict that one state
//! reverses is named, not presented as the library's alone.

use super::rounds::RoundMedians;
use super::{CaseData, Options, Verdict};
use crate::candidates::native::DEFAULT;
use crate::meta::MachineState;
use crate::stats::{describe, mann_whitney, Alternative};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The fewest rounds each state needs before a case's rounds are split.
pub const MIN_STATE_ROUNDS: usize = 5;

/// A case whose verdict one state of the machine reverses: `default`
/// against `competitor` in the rounds of each state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateSplit {
    pub competitor: String,
    pub fast: InState,
    pub slow: InState,
    /// Two-sided Mann–Whitney p-value of the per-round slowdowns of the
    /// fast state's rounds against the slow state's.
    pub p_value: f64,
}

/// `default` against the competitor in the rounds of one state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InState {
    pub rounds: usize,
    /// The median calibration (the control plane's barrier) of its rounds.
    pub calibration_s: f64,
    /// The median of its rounds' slowdowns (`default`'s round median over
    /// the competitor's).
    pub slowdown: f64,
}

/// The threshold between the machine's two states among a case's round
/// calibrations (a round at or below it ran in the fast state): the split
/// of their logarithms into two groups with the least squares within
/// them, if each group has [`MIN_STATE_ROUNDS`] rounds and their medians
/// differ by [`MachineState::CHANGE`] or more. None in one state.
pub fn threshold(calibrations: &[f64]) -> Option<f64> {
    let mut logs: Vec<f64> = calibrations
        .iter()
        .filter(|c| **c > 0.0)
        .map(|c| c.ln())
        .collect();
    logs.sort_by(f64::total_cmp);
    let n = logs.len();
    let (total, total_sq) = logs.iter().fold((0.0, 0.0), |(s, q), l| (s + l, q + l * l));
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    let mut best: Option<(f64, usize)> = None;
    for k in 1..n {
        sum += logs[k - 1];
        sum_sq += logs[k - 1] * logs[k - 1];
        if k < MIN_STATE_ROUNDS || n - k < MIN_STATE_ROUNDS {
            continue;
        }
        let within = (sum_sq - sum * sum / k as f64)
            + ((total_sq - sum_sq) - (total - sum).powi(2) / (n - k) as f64);
        if best.is_none_or(|(least, _)| within < least) {
            best = Some((within, k));
        }
    }
    let (_, k) = best?;
    let (fast, slow) = logs.split_at(k);
    let change = (describe::median(slow) - describe::median(fast)).exp();
    let at = (fast[k - 1] + slow[0]) / 2.0;
    // Equal values on both sides of the split fall on one side of it.
    let above = logs.iter().filter(|l| **l > at).count();
    let apart = above >= MIN_STATE_ROUNDS && n - above >= MIN_STATE_ROUNDS;
    (change >= MachineState::CHANGE && apart).then(|| at.exp())
}

/// The case's slowdown in each state, where its rounds ran in two and the
/// verdict's competitor is faster than the margin in one and not faster
/// at all in the other, the two differing at `options.alpha`.
pub fn split(case: &CaseData, verdict: &Verdict, options: &Options) -> Option<StateSplit> {
    let calibration = case.calibration.as_ref()?;
    let threshold = threshold(&calibration.seconds)?;
    let competitor = verdict.competitor.as_deref()?;
    let medians = |name: &str| -> Option<BTreeMap<u32, f64>> {
        let rounds = RoundMedians::of(case.samples.iter().find(|s| s.name == name)?);
        Some(
            rounds
                .rounds
                .iter()
                .copied()
                .zip(rounds.medians())
                .collect(),
        )
    };
    let (default, other) = (medians(DEFAULT)?, medians(competitor)?);
    // (ln slowdown, calibration) of each round in each state.
    let mut states: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (round, calibration) in calibration.rounds.iter().zip(&calibration.seconds) {
        let (Some(d), Some(c)) = (default.get(round), other.get(round)) else {
            continue;
        };
        if *d > 0.0 && *c > 0.0 {
            states[usize::from(*calibration > threshold)].push(((d / c).ln(), *calibration));
        }
    }
    if states.iter().any(|s| s.len() < MIN_STATE_ROUNDS) {
        return None;
    }
    let [fast, slow] = states.map(|rounds| {
        let (logs, calibrations): (Vec<f64>, Vec<f64>) = rounds.into_iter().unzip();
        (
            InState {
                rounds: logs.len(),
                calibration_s: describe::median(&calibrations),
                slowdown: describe::median(&logs).exp(),
            },
            logs,
        )
    });
    let p_value = mann_whitney::test(
        &fast.1,
        &slow.1,
        Alternative::TwoSided,
        mann_whitney::Method::Auto,
    )
    .p_value;
    let reversed = |a: &InState, b: &InState| a.slowdown > options.margin && b.slowdown <= 1.0;
    let reverses = reversed(&fast.0, &slow.0) || reversed(&slow.0, &fast.0);
    (reverses && p_value < options.alpha).then(|| StateSplit {
        competitor: competitor.to_string(),
        fast: fast.0,
        slow: slow.0,
        p_value,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{verdicts, Sample};
    use crate::case::{CaseKey, CALIBRATION};
    use crate::collective::Collective;
    use crate::element::{Datatype, Op};

    /// Rounds alternating between a fast state (barrier 0.5 µs) and a slow
    /// one (0.85 µs), with the slowdowns each gives, 100 observations a
    /// round around them.
    fn case(rounds: usize, fast: f64, slow: f64, states_differ: bool) -> CaseData {
        let mut default = Sample::measured(DEFAULT);
        let mut competitor = Sample::measured("allreduce_as_reduce_bcast");
        let mut calibration = Sample::measured(CALIBRATION);
        for round in 0..rounds as u32 {
            let slow_round = round.is_multiple_of(3) || round % 5 == 1;
            let barrier = match slow_round && states_differ {
                true => 0.85e-6 * (1.0 + 0.01 * f64::from(round % 4)),
                false => 0.5e-6 * (1.0 + 0.01 * f64::from(round % 4)),
            };
            calibration.seconds.push(barrier);
            calibration.rounds.push(round);
            let slowdown = if slow_round { slow } else { fast };
            for i in 0..100 {
                let jitter = 1.0 + 0.002 * f64::from((i * 7 + round) % 11);
                competitor.seconds.push(10e-6 * jitter);
                default.seconds.push(10e-6 * slowdown * jitter);
                competitor.rounds.push(round);
                default.rounds.push(round);
            }
        }
        CaseData {
            key: CaseKey {
                operation: Collective::Allreduce.into(),
                size_bytes: 8192,
                count: 8192,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            samples: vec![default, competitor],
            smaller: None,
            overlapped: None,
            calibration: Some(calibration),
        }
    }

    fn decided(case: &CaseData) -> Verdict {
        verdicts(std::slice::from_ref(case), &Options::default()).remove(0)
    }

    #[test]
    fn two_states_are_found_and_one_is_not_split() {
        let two: Vec<f64> = (0..20)
            .map(|r: u32| if r.is_multiple_of(3) { 0.85e-6 } else { 0.5e-6 })
            .collect();
        let at = threshold(&two).expect("two states");
        assert!(0.5e-6 < at && at < 0.85e-6, "{at}");
        // 10 % apart is one state; and 4 rounds of one are too few.
        let one: Vec<f64> = (0..20)
            .map(|r: u32| if r.is_multiple_of(3) { 0.55e-6 } else { 0.5e-6 })
            .collect();
        assert_eq!(threshold(&one), None);
        let few: Vec<f64> = (0..20)
            .map(|r| if r < 4 { 0.85e-6 } else { 0.5e-6 })
            .collect();
        assert_eq!(threshold(&few), None);
    }

    /// Known truth: the competitor 1.3× faster in the slow state's rounds
    /// and 0.8× in the fast state's is named with both; the same slowdowns
    /// in one state of the machine, or 1.3× in both states, are not.
    #[test]
    fn a_verdict_one_state_reverses_is_named_with_both_slowdowns() {
        let mixed = case(40, 0.8, 1.3, true);
        let verdict = decided(&mixed);
        let split = verdict.state.clone().expect("a state-dependent verdict");
        assert_eq!(split.competitor, "allreduce_as_reduce_bcast");
        assert!((split.slow.slowdown - 1.3).abs() < 0.02, "{split:?}");
        assert!((split.fast.slowdown - 0.8).abs() < 0.02, "{split:?}");
        assert!(split.slow.calibration_s > split.fast.calibration_s);
        assert_eq!(split.fast.rounds + split.slow.rounds, 40);
        assert!(split.p_value < 0.05);
        // Serialised and read back whole.
        let json = serde_json::to_string(&verdict).unwrap();
        let back: Verdict = serde_json::from_str(&json).unwrap();
        assert_eq!(back.state, verdict.state);
        // The machine in one state: nothing to split by.
        assert_eq!(decided(&case(40, 0.8, 1.3, false)).state, None);
        // Violated in both states: no state reverses it.
        assert_eq!(decided(&case(40, 1.2, 1.3, true)).state, None);
        // Without calibrations (an earlier run's raw/): nothing said.
        let mut without = mixed;
        without.calibration = None;
        assert_eq!(decided(&without).state, None);
    }
}
