//! The comparison with a previous run: a `default` that got significantly
//! slower than in the baseline by more than the tolerance is a regression
//! (the gate), and per case what became of the baseline's violation — the
//! confirmation run of a tuning file shows the violations it removed, those
//! that remain (and whether a library algorithm or only a new one still
//! beats `default`), and new ones.

use super::defaults::{measured_default, Defaults};
use super::{compare, CaseData, CaseKey, Conclusion, Options, Sample, Severity, Verdict};
use crate::stats::describe;
use serde::{Deserialize, Serialize};

/// One case in both runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Change {
    #[serde(flatten)]
    pub key: CaseKey,
    /// The baseline's median (over several launches, their geometric mean).
    pub baseline_median_s: f64,
    pub median_s: f64,
    /// median / baseline median.
    pub ratio: f64,
    /// The ratio once the machine's shift is taken out (several launches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normalised_ratio: Option<f64>,
    /// One-sided: now slower than the baseline times (1 + tolerance).
    pub p_value: f64,
    /// Corrected across the compared cases (several launches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
    pub regression: bool,
}

impl Change {
    /// The ratio the test judged: the normalised one between launches.
    pub fn judged_ratio(&self) -> f64 {
        self.normalised_ratio.unwrap_or(self.ratio)
    }
}

/// Every median of the new launch moved by one factor against the baseline
/// launches: the machine's state (or the whole library) changed, not one
/// collective.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Shift {
    /// New over usual, as the median over every case and candidate.
    pub factor: f64,
    /// Two-sided, against the spread of the baseline launches' own shifts.
    pub p_value: f64,
    /// Significant and beyond the tolerance.
    pub significant: bool,
}

/// The new launch's machine state against the baseline launches'
/// (`meta.machine_state.calibration_s` of each).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateAgainst {
    pub calibration_s: f64,
    /// The fastest and slowest of the baseline launches'.
    pub baseline_low_s: f64,
    pub baseline_high_s: f64,
    /// [`crate::meta::MachineState::CHANGE`] or more beyond every baseline
    /// launch's: a state the baseline never had.
    pub new: bool,
}

impl StateAgainst {
    /// None unless the new launch and every baseline launch recorded one.
    pub fn of(now: Option<f64>, baseline: &[Option<f64>]) -> Option<StateAgainst> {
        let now = now?;
        let baseline: Vec<f64> = baseline.iter().copied().collect::<Option<_>>()?;
        let low = baseline.iter().copied().fold(f64::INFINITY, f64::min);
        let high = baseline.iter().copied().fold(0.0, f64::max);
        let change = crate::meta::MachineState::CHANGE;
        (!baseline.is_empty()).then_some(StateAgainst {
            calibration_s: now,
            baseline_low_s: low,
            baseline_high_s: high,
            new: now >= change * high || now * change <= low,
        })
    }
}

/// The comparison with a baseline run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Comparison {
    /// The baseline launches' names.
    pub baseline: String,
    /// How many launches the baseline has.
    #[serde(default = "one")]
    pub launches: usize,
    /// How `default` was compared, in words.
    #[serde(default)]
    pub method: String,
    /// Why the comparison is weaker than it should be (one launch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The new launch's shift against the baseline launches (several).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shift: Option<Shift>,
    pub tolerance: f64,
    pub changes: Vec<Change>,
    /// Cases only the baseline has.
    pub only_in_baseline: Vec<CaseKey>,
    /// Cases only this run has.
    pub only_in_current: Vec<CaseKey>,
    /// The cases violated in either run, in this run's order.
    #[serde(default)]
    pub violations: Vec<ViolationChange>,
    /// The new launch's machine state against the baseline launches'.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_state: Option<StateAgainst>,
}

fn one() -> usize {
    1
}

/// What a baseline of one launch cannot know.
pub const ONE_LAUNCH: &str = "the baseline is one launch, so the variation between launches is \
unknown and `default` was compared sample against sample, as if both runs were one launch: \
placement and machine state can flag cases that did not change. Give --baseline several launches";

impl Comparison {
    pub fn regressions(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.regression)
    }

    /// Slower than the tolerance allows, but not significantly: the
    /// comparison could not tell these from the spread between launches
    /// (a report that said "no regression" of an 8× case would mislead).
    pub fn unshown(&self) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(|c| !c.regression && c.judged_ratio() > 1.0 + self.tolerance)
    }

    /// The violation changes of one kind.
    pub fn violations_of(&self, kind: Transition) -> impl Iterator<Item = &ViolationChange> {
        self.violations.iter().filter(move |v| v.transition == kind)
    }
}

/// What became of a case's violation since the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transition {
    /// Violated then; holds or inconclusive now.
    Removed,
    /// Violated in both runs.
    Remaining,
    /// Violated now, not then (it held or was inconclusive).
    New,
}

impl Transition {
    pub const ALL: [Transition; 3] = [Transition::Removed, Transition::Remaining, Transition::New];

    pub fn label(self) -> &'static str {
        match self {
            Transition::Removed => "removed",
            Transition::Remaining => "remaining",
            Transition::New => "new",
        }
    }
}

/// One side of a case: its verdict and the competitor that set its severity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub verdict: Conclusion,
    pub severity: Severity,
    /// The competitor that set the severity (violated only).
    pub violated_by: Option<String>,
    /// Its slowdown.
    pub slowdown: Option<f64>,
}

/// A case violated in the baseline, in this run, or in both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViolationChange {
    #[serde(flatten)]
    pub key: CaseKey,
    pub transition: Transition,
    pub baseline: Side,
    pub now: Side,
    /// Now: the fastest library algorithm (`*_as_library_*`) still
    /// significantly faster than `default` — tuning could still help.
    pub library_competitor: Option<String>,
    pub library_slowdown: Option<f64>,
    /// Now violated and no library algorithm significantly faster: the
    /// family of the competitor that beats the library (`mockup`, `lane`,
    /// `hier`, `circulant`): only a new algorithm would remove it.
    pub new_algorithm_family: Option<String>,
}

/// Whether a competitor is one of the library's own algorithms.
pub fn is_library(name: &str) -> bool {
    name.contains("_as_library_")
}

/// The family of a competitor, as its registry names it.
fn family(name: &str) -> String {
    if is_library(name) {
        return "library".into();
    }
    crate::candidates::find(name).map_or("unknown".into(), |c| {
        serde_json::to_value(c.family)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| "unknown".into())
    })
}

fn side(v: &Verdict) -> Side {
    let violated = v.conclusion == Conclusion::Violated;
    Side {
        verdict: v.conclusion,
        severity: v.severity,
        violated_by: v.violated_by.clone().filter(|_| violated),
        slowdown: v.slowdown.filter(|_| violated),
    }
}

/// What became of each case violated in `baseline` or in `current`;
/// cases unmeasured or wrong in either run are left out (their own
/// reports say why).
pub fn violation_changes(baseline: &[Verdict], current: &[Verdict]) -> Vec<ViolationChange> {
    let comparable = |c: Conclusion| {
        matches!(
            c,
            Conclusion::Violated | Conclusion::Holds | Conclusion::Inconclusive
        )
    };
    current
        .iter()
        .filter_map(|now| {
            let then = baseline.iter().find(|b| b.key == now.key)?;
            if !comparable(then.conclusion) || !comparable(now.conclusion) {
                return None;
            }
            let transition = match (
                then.conclusion == Conclusion::Violated,
                now.conclusion == Conclusion::Violated,
            ) {
                (true, true) => Transition::Remaining,
                (true, false) => Transition::Removed,
                (false, true) => Transition::New,
                (false, false) => return None,
            };
            let library = now
                .candidates
                .iter()
                .filter(|c| {
                    is_library(&c.name) && c.significant && c.slowdown.is_some_and(|s| s > 1.0)
                })
                .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap());
            let violated = now.conclusion == Conclusion::Violated;
            Some(ViolationChange {
                key: now.key.clone(),
                transition,
                baseline: side(then),
                now: side(now),
                library_competitor: library.map(|c| c.name.clone()),
                library_slowdown: library.and_then(|c| c.slowdown),
                new_algorithm_family: match (violated, library, &now.violated_by) {
                    (true, None, Some(by)) => Some(family(by)),
                    _ => None,
                },
            })
        })
        .collect()
}

/// Compares `default` in every case present in both runs, reading one
/// case of each run at a time, and what became of the baseline's violations
/// (`verdicts`: the baseline's, then this run's).
pub fn compare_runs<B: Defaults + ?Sized, C: Defaults + ?Sized>(
    baseline_name: &str,
    baseline: &B,
    current: &C,
    verdicts: (&[Verdict], &[Verdict]),
    tolerance: f64,
    options: &Options,
) -> Comparison {
    let mut comparison = Comparison {
        baseline: baseline_name.to_string(),
        launches: 1,
        method: "within one launch: `default`'s observations against the baseline's".into(),
        warning: Some(ONE_LAUNCH.into()),
        tolerance,
        violations: violation_changes(verdicts.0, verdicts.1),
        ..Comparison::default()
    };
    for case in (0..current.cases()).filter(|&c| current.measured(c)) {
        let key = current.key(case);
        let Some(before) = (0..baseline.cases())
            .find(|&b| baseline.key(b) == key)
            .filter(|&b| baseline.measured(b))
        else {
            comparison.only_in_current.push(key.clone());
            continue;
        };
        let (now, before) = (current.load(case), baseline.load(before));
        let (now, before) = (measured(&now), measured(&before));
        let bound = Sample {
            seconds: before
                .seconds
                .iter()
                .map(|s| s * (1.0 + tolerance))
                .collect(),
            ..before.clone()
        };
        let (median, baseline_median) = (
            describe::median(&now.seconds),
            describe::median(&before.seconds),
        );
        let p_value = compare(now, &bound, options.test.unpaired()).p_value;
        comparison.changes.push(Change {
            key: key.clone(),
            baseline_median_s: baseline_median,
            median_s: median,
            ratio: median / baseline_median,
            normalised_ratio: None,
            p_value,
            p_adjusted: None,
            regression: p_value < options.alpha && median > baseline_median * (1.0 + tolerance),
        });
    }
    comparison.only_in_baseline = (0..baseline.cases())
        .filter(|&b| {
            baseline.measured(b) && !(0..current.cases()).any(|c| current.key(c) == baseline.key(b))
        })
        .map(|b| baseline.key(b).clone())
        .collect();
    comparison
}

fn measured(case: &CaseData) -> &Sample {
    measured_default(case).expect("a measured default")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::report::fixture::check;

    #[test]
    fn a_state_no_baseline_launch_had_is_new() {
        let of = |now: f64, base: &[f64]| {
            let base: Vec<Option<f64>> = base.iter().map(|&b| Some(b)).collect();
            StateAgainst::of(Some(now), &base).unwrap()
        };
        let fast = [20e-6, 21e-6, 20.5e-6];
        assert!(!of(22e-6, &fast).new, "within 1.2× of the slowest");
        assert!(of(40e-6, &fast).new, "twice as slow");
        assert!(of(15e-6, &fast).new, "faster than any by 1.2× or more");
        // Baseline launches in both states: neither is new.
        assert!(!of(40e-6, &[20e-6, 41e-6]).new);
        let s = of(40e-6, &fast);
        assert_eq!((s.baseline_low_s, s.baseline_high_s), (20e-6, 21e-6));
        // A launch without a record: nothing to say.
        assert_eq!(StateAgainst::of(Some(1e-6), &[Some(1e-6), None]), None);
        assert_eq!(StateAgainst::of(None, &[Some(1e-6)]), None);
    }

    /// Allreduce 8 B with the given competitors (median µs, raw p) against
    /// a default of 100 µs.
    fn case(competitors: &[(&str, f64, f64)]) -> Verdict {
        check(Collective::Allreduce, 8, 0, 100.0, competitors, vec![])
    }

    #[test]
    fn violations_are_removed_remaining_or_new() {
        let library = ("allreduce_as_library_ring", 50.0, 1e-6);
        let lane = ("allreduce_as_allreduce_lane", 40.0, 1e-6);
        let slower = ("allreduce_as_library_ring", 120.0, 0.9);
        let violated_then = case(&[library]);
        let held_then = case(&[slower]);
        // Removed: the library algorithm that set it then is named.
        let removed = violation_changes(std::slice::from_ref(&violated_then), &[case(&[slower])]);
        assert_eq!(removed[0].transition, Transition::Removed);
        assert_eq!(
            removed[0].baseline.violated_by.as_deref(),
            Some("allreduce_as_library_ring")
        );
        assert_eq!(removed[0].baseline.slowdown, Some(2.0));
        assert_eq!(removed[0].now.verdict, Conclusion::Holds);
        assert_eq!(removed[0].now.violated_by, None);
        // Remaining, a library algorithm still faster: tune again.
        let still = violation_changes(
            std::slice::from_ref(&violated_then),
            &[case(&[library, lane])],
        );
        assert_eq!(still[0].transition, Transition::Remaining);
        assert_eq!(
            still[0].library_competitor.as_deref(),
            Some("allreduce_as_library_ring")
        );
        assert_eq!(still[0].new_algorithm_family, None);
        // Remaining, only a new algorithm faster: it is named with its family.
        let only_new = violation_changes(&[violated_then], &[case(&[slower, lane])]);
        assert_eq!(only_new[0].transition, Transition::Remaining);
        assert_eq!(only_new[0].library_competitor, None);
        assert_eq!(
            only_new[0].now.violated_by.as_deref(),
            Some("allreduce_as_allreduce_lane")
        );
        assert_eq!(only_new[0].new_algorithm_family.as_deref(), Some("lane"));
        // New; and a case that held in both runs is not listed.
        let new = violation_changes(std::slice::from_ref(&held_then), &[case(&[lane])]);
        assert_eq!(new[0].transition, Transition::New);
        assert!(violation_changes(
            std::slice::from_ref(&held_then),
            std::slice::from_ref(&held_then)
        )
        .is_empty());
    }
}
