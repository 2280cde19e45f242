//! The comparison with a previous run: a `default` that got significantly
//! slower than in the baseline by more than the tolerance is a regression
//! (the gate), and per case what became of the baseline's violation — the
//! confirmation run of a tuning file shows the violations it removed, those
//! that remain (and whether a library algorithm or only a new one still
//! beats `default`), and new ones.

use super::defaults::{measured_default, Defaults};
use super::{
    compare, CaseData, CaseKey, Conclusion, Correction, Options, Sample, Severity, Verdict,
};
use crate::stats::correction;
use crate::stats::describe::{self, mean, variance};
use crate::stats::moderated::{t_upper_tail, Prior};
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
    /// The smallest normalised ratio this case could have shown as a
    /// regression against the spread of the baseline launches (Holm's
    /// first threshold; several launches).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detectable: Option<f64>,
    /// `default`'s `ratio` at the comparison's other cases, their median
    /// (several launches): how this launch ran the library's own calls
    /// elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_elsewhere: Option<f64>,
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
    /// How many baseline launches judged this one.
    #[serde(default = "one")]
    pub launches: usize,
    /// Baseline launches left out: made in another state of the machine.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// How `default` was compared, in words.
    #[serde(default)]
    pub method: String,
    /// Why the comparison is weaker than it should be (one launch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// Why it decided no regression and no new violation: fewer baseline
    /// launches than [`LAUNCHES_NEEDED`] (the run then ends undecided).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undecided: Option<String>,
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

/// Whether `default` in `change` is slower in its own time than its usual
/// by more than `tolerance`, a regression's second condition: the
/// references can move without `default` (this machine ran
/// the multi-step mock-ups 1.6× faster in some launches, `default`
/// unchanged, which made `default` read 1.47× slower beside them). In a
/// launch that ran faster, over what it made `default`: the shift where
/// it is named (an A/A launch 0.74× faster read allgather 1 KiB 1.26×
/// slower beside competitors faster still, `default` at 0.68× its usual
/// time), or `default` at its other cases (launches 0.62–0.73× faster,
/// short of a named shift, read a 1.5× regression at 0.71–1.02× its usual
/// time: 10 of 180 gate launches missed it). Not over a slower launch:
/// this machine's state moves sizes unalike, and a size it spared is no
/// slower than usual for the others' shift.
pub fn slower_in_own_time(change: &Change, shift: Option<&Shift>, tolerance: f64) -> bool {
    let shifted = shift.filter(|s| s.significant).map_or(1.0, |s| s.factor);
    let faster_by = shifted
        .min(change.default_elsewhere.unwrap_or(1.0))
        .min(1.0);
    change.ratio / faster_by > 1.0 + tolerance
}

/// What a baseline of one launch cannot know.
pub const ONE_LAUNCH: &str = "the baseline is one launch, so the variation between launches is \
unknown: `default` was compared sample against sample, as if both runs were one launch, and no \
case is called a regression (placement and machine state move whole launches). Give --baseline \
3 launches or more";

impl Comparison {
    /// Between launches: each change says from which ratio it would have
    /// shown (`detectable`).
    pub fn has_detectable(&self) -> bool {
        self.changes.iter().any(|c| c.detectable.is_some())
    }

    pub fn regressions(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.regression)
    }

    /// Slower than the tolerance allows, but no regression: the comparison
    /// could not tell these from the spread between launches, or `default`
    /// is no slower in its own time (a report that said "no regression" of
    /// an 8× case would mislead).
    pub fn unshown(&self) -> impl Iterator<Item = &Change> {
        self.changes
            .iter()
            .filter(|c| !c.regression && c.judged_ratio() > 1.0 + self.tolerance)
    }

    /// Whether `change` is slower than the tolerance allows only beside its
    /// references: `default` itself no slower than usual ([`slower_in_own_time`]).
    pub fn only_beside_references(&self, change: &Change) -> bool {
        !slower_in_own_time(change, self.shift.as_ref(), self.tolerance)
    }

    /// How the launch ran in a state the baseline launches never had,
    /// where it did: the whole machine shifted significantly, or its
    /// calibration moved beyond theirs. A violation new in such a launch
    /// may be the state's, not the library's (allreduce 8 KiB here: 0.8×
    /// in the fast state, 1.15× in one 2× slower).
    pub fn state_changed(&self) -> Option<String> {
        if let Some(shift) = self.shift.filter(|s| s.significant) {
            return Some(format!(
                "every candidate {:.2}× the baseline launches",
                shift.factor
            ));
        }
        self.machine_state.filter(|m| m.new).map(|m| {
            format!(
                "its calibration {:.3} µs against the baseline launches' {:.3}–{:.3} µs",
                m.calibration_s * 1e6,
                m.baseline_low_s * 1e6,
                m.baseline_high_s * 1e6
            )
        })
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
    /// Violated in most baseline launches; holds or inconclusive now.
    Removed,
    /// Violated now and known: in most baseline launches, or within the
    /// spread of the slowdowns they measured.
    Remaining,
    /// Violated now, and by more than the baseline launches' spread
    /// allows in a case most of them did not violate.
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
    /// The latest baseline launch's verdict.
    pub baseline: Side,
    pub now: Side,
    /// The baseline launches that violated the case, of those that decided
    /// it (measured, library right).
    #[serde(default)]
    pub baseline_violated: usize,
    #[serde(default)]
    pub baseline_launches: usize,
    /// Violated now and in at most half of the baseline launches: the
    /// one-sided p-value of its slowdown against theirs (three launches or
    /// more), and Holm's across the cases tested; at α or above the
    /// violation is within the spread between launches, and known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p_adjusted: Option<f64>,
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

/// How many baseline launches the statistics between launches need: with
/// fewer, the spread between launches is unknown (one launch) or rests on
/// one degree of freedom (two), and neither regressions nor new violations
/// are decided.
pub const LAUNCHES_NEEDED: usize = 3;

/// Why a comparison with `launches` baseline launches decides nothing,
/// if it does not.
pub fn too_few_launches(launches: usize) -> Option<String> {
    (launches < LAUNCHES_NEEDED).then(|| {
        let s = if launches == 1 { "" } else { "es" };
        format!("not decided: {launches} baseline launch{s}, {LAUNCHES_NEEDED} needed")
    })
}

/// Conclusions that can be compared between runs (measured, library right).
fn comparable(c: Conclusion) -> bool {
    matches!(
        c,
        Conclusion::Violated | Conclusion::Holds | Conclusion::Inconclusive
    )
}

/// The slowdown of `default` against `competitor` in `case`, if both were
/// measured.
fn slowdown_of(case: &Verdict, competitor: &str) -> Option<f64> {
    case.candidates
        .iter()
        .find(|c| c.name == competitor)?
        .slowdown
        .filter(|s| s.is_finite() && *s > 0.0)
}

/// One case's log slowdown against the competitor that sums it up now, in
/// every baseline launch and now; None where a launch lacks it.
fn log_slowdowns(launches: &[&[Verdict]], now: &Verdict) -> Option<(Vec<f64>, f64)> {
    let competitor = now.competitor.as_deref()?;
    let then = launches
        .iter()
        .map(|l| slowdown_of(l.iter().find(|v| v.key == now.key)?, competitor).map(f64::ln))
        .collect::<Option<Vec<f64>>>()?;
    Some((then, slowdown_of(now, competitor)?.ln()))
}

/// The spread of the cases' log slowdowns over `k` baseline launches:
/// each case's own variance, moderated towards all cases'.
struct Spread {
    prior: Option<Prior>,
    k: usize,
}

impl Spread {
    fn of<'a>(series: impl Iterator<Item = &'a [f64]>, k: usize) -> Spread {
        let variances: Vec<f64> = series.map(variance).collect();
        let df = k.saturating_sub(1) as f64;
        Spread {
            prior: Prior::estimate(&variances, df),
            k,
        }
    }

    /// One-sided: `now` beyond the prediction interval of `then`.
    fn p_value(&self, then: &[f64], now: f64) -> f64 {
        let own = (variance(then), (self.k - 1) as f64);
        let (variance, df) = self.prior.map_or(own, |p| p.moderate(own.0, own.1));
        let se = (variance * (1.0 + 1.0 / self.k as f64)).sqrt();
        let excess = now - mean(then);
        match se {
            se if se > 0.0 => t_upper_tail(excess / se, df),
            _ => f64::from(excess <= 0.0),
        }
    }
}

/// The fastest library algorithm (`*_as_library_*`) significantly faster
/// than `default`, if any.
fn library_competitor(v: &Verdict) -> Option<&super::CandidateSummary> {
    v.candidates
        .iter()
        .filter(|c| is_library(&c.name) && c.significant && c.slowdown.is_some_and(|s| s > 1.0))
        .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap())
}

/// What became of each case violated now or in most baseline launches
/// (`launches` in start order, the latest last: its verdict is the one
/// shown beside now's). The rule (docs/statistics.md, "Known violations"):
///
/// - violated now and in more than half of the baseline launches that
///   decided the case: *remaining* (known);
/// - violated now, in at most half of them: *new* when its slowdown is
///   significantly beyond what the baseline launches measured of the same
///   competitor (one-sided t against their prediction interval, the
///   variance moderated across the cases, Holm across the cases tested —
///   the statistics of regressions), else *remaining*: a violation that
///   comes and goes within the spread between launches is known, not new;
///   with fewer than [`LAUNCHES_NEEDED`] launches nothing is tested and
///   it is new;
/// - not violated now, violated in more than half: *removed*.
///
/// Cases unmeasured or wrong in either run are left out (their own
/// reports say why).
pub fn violation_changes(
    launches: &[&[Verdict]],
    current: &[Verdict],
    options: &Options,
) -> Vec<ViolationChange> {
    let Some(latest) = launches.last() else {
        return Vec::new();
    };
    let k = launches.len();
    let series: Vec<Option<(Vec<f64>, f64)>> = current
        .iter()
        .map(|now| log_slowdowns(launches, now).filter(|_| k >= LAUNCHES_NEEDED))
        .collect();
    let spread = Spread::of(series.iter().flatten().map(|(then, _)| &then[..]), k);
    let mut changes: Vec<ViolationChange> = current
        .iter()
        .zip(&series)
        .filter_map(|(now, series)| {
            let then = latest.iter().find(|b| b.key == now.key)?;
            if !comparable(then.conclusion) || !comparable(now.conclusion) {
                return None;
            }
            let decided_by: Vec<&Verdict> = launches
                .iter()
                .filter_map(|l| l.iter().find(|b| b.key == now.key))
                .filter(|b| comparable(b.conclusion))
                .collect();
            let violated_in = decided_by
                .iter()
                .filter(|b| b.conclusion == Conclusion::Violated)
                .count();
            let most = 2 * violated_in > decided_by.len();
            let violated = now.conclusion == Conclusion::Violated;
            let p_value = series
                .as_ref()
                .filter(|_| violated && !most)
                .map(|(then, now)| spread.p_value(then, *now));
            let transition = match (most, violated) {
                (true, true) => Transition::Remaining,
                (true, false) => Transition::Removed,
                (false, true) => Transition::New,
                (false, false) => return None,
            };
            let library = library_competitor(now);
            Some(ViolationChange {
                key: now.key.clone(),
                transition,
                baseline: side(then),
                now: side(now),
                baseline_violated: violated_in,
                baseline_launches: decided_by.len(),
                p_value,
                p_adjusted: None,
                library_competitor: library.map(|c| c.name.clone()),
                library_slowdown: library.and_then(|c| c.slowdown),
                new_algorithm_family: match (violated, library, &now.violated_by) {
                    (true, None, Some(by)) => Some(family(by)),
                    _ => None,
                },
            })
        })
        .collect();
    // Holm across the violations tested; one within the spread is known.
    let tested: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].p_value.is_some())
        .collect();
    let p_values: Vec<f64> = tested.iter().filter_map(|&i| changes[i].p_value).collect();
    let adjusted = match options.correction {
        Correction::Holm => correction::holm(&p_values),
        Correction::None => p_values,
    };
    for (&i, p) in tested.iter().zip(adjusted) {
        changes[i].p_adjusted = Some(p);
        if p >= options.alpha {
            changes[i].transition = Transition::Remaining;
        }
    }
    changes
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
        undecided: too_few_launches(1),
        tolerance,
        violations: violation_changes(&[verdicts.0], verdicts.1, options),
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
            // One launch decides no regression (`undecided` says why):
            // the sample test above is shown, not believed.
            regression: false,
            detectable: None,
            default_elsewhere: None,
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

    /// Allreduce at `size` B, `default` at 100 µs against one competitor
    /// `slowdown` times faster: violated when `significant`, else it holds.
    fn at(size: u64, slowdown: f64, significant: bool) -> Verdict {
        let p = if significant { 1e-6 } else { 0.9 };
        let competitor = ("allreduce_as_reduce_bcast", 100.0 / slowdown, p);
        check(Collective::Allreduce, size, 0, 100.0, &[competitor], vec![])
    }

    /// Five baseline launches and a new one, known truth on both sides:
    /// a case violated in 4 of 5 launches and violated now is known; one
    /// violated in none, steady at 0.95×, and now at 2× is new; one that
    /// held in all five with slowdowns from 0.85× to 1.2× and is violated
    /// now at 1.22× is within their spread, so known; one violated in 4
    /// of 5 and holding now is removed.
    #[test]
    fn a_violation_most_launches_had_or_within_their_spread_is_known_else_new() {
        let steady = [0.95, 0.96, 0.94, 0.95, 0.955];
        let wide = [0.85, 1.2, 0.95, 1.1, 0.9];
        let launches: Vec<Vec<Verdict>> = (0..5)
            .map(|l| {
                vec![
                    at(8, 1.5, l != 2),
                    at(16, steady[l], false),
                    at(32, wide[l], false),
                    at(64, 1.5, l != 0),
                    at(128, 1.0 + 0.01 * l as f64, false),
                ]
            })
            .collect();
        let now = vec![
            at(8, 1.5, true),
            at(16, 2.0, true),
            at(32, 1.22, true),
            at(64, 0.98, false),
            at(128, 1.01, false),
        ];
        let verdicts: Vec<&[Verdict]> = launches.iter().map(|l| &l[..]).collect();
        let changes = violation_changes(&verdicts, &now, &Options::default());
        let of = |size: u64| {
            changes
                .iter()
                .find(|c| c.key.size_bytes == size)
                .unwrap_or_else(|| panic!("{size} B listed: {changes:#?}"))
        };
        assert_eq!(of(8).transition, Transition::Remaining);
        assert_eq!((of(8).baseline_violated, of(8).baseline_launches), (4, 5));
        assert_eq!(of(8).p_value, None, "most launches had it: nothing to test");
        assert_eq!(of(16).transition, Transition::New, "{:?}", of(16));
        assert!(of(16).p_adjusted.unwrap() < 1e-3, "{:?}", of(16));
        assert_eq!(of(32).transition, Transition::Remaining, "{:?}", of(32));
        assert!(of(32).p_adjusted.unwrap() >= 0.05, "{:?}", of(32));
        assert_eq!(of(64).transition, Transition::Removed);
        assert_eq!(changes.len(), 4, "128 B held throughout");
        // Two launches are too few to test: the 2× case is new by count
        // alone, and the comparison says it decided nothing.
        let two = violation_changes(&verdicts[..2], &now, &Options::default());
        assert_eq!(
            two.iter()
                .find(|c| c.key.size_bytes == 32)
                .unwrap()
                .transition,
            Transition::New
        );
        assert!(two.iter().all(|c| c.p_value.is_none()));
        assert_eq!(
            too_few_launches(2).as_deref(),
            Some("not decided: 2 baseline launches, 3 needed")
        );
        assert_eq!(too_few_launches(LAUNCHES_NEEDED), None);
    }

    #[test]
    fn violations_are_removed_remaining_or_new() {
        let library = ("allreduce_as_library_ring", 50.0, 1e-6);
        let lane = ("allreduce_as_allreduce_lane", 40.0, 1e-6);
        let slower = ("allreduce_as_library_ring", 120.0, 0.9);
        let violated_then = case(&[library]);
        let held_then = case(&[slower]);
        // Removed: the library algorithm that set it then is named.
        let one = |then: &Verdict, now: Verdict| {
            violation_changes(&[std::slice::from_ref(then)], &[now], &Options::default())
        };
        let removed = one(&violated_then, case(&[slower]));
        assert_eq!(removed[0].transition, Transition::Removed);
        assert_eq!(
            removed[0].baseline.violated_by.as_deref(),
            Some("allreduce_as_library_ring")
        );
        assert_eq!(removed[0].baseline.slowdown, Some(2.0));
        assert_eq!(removed[0].now.verdict, Conclusion::Holds);
        assert_eq!(removed[0].now.violated_by, None);
        // Remaining, a library algorithm still faster: tune again.
        let still = one(&violated_then, case(&[library, lane]));
        assert_eq!(still[0].transition, Transition::Remaining);
        assert_eq!(
            still[0].library_competitor.as_deref(),
            Some("allreduce_as_library_ring")
        );
        assert_eq!(still[0].new_algorithm_family, None);
        // Remaining, only a new algorithm faster: it is named with its family.
        let only_new = one(&violated_then, case(&[slower, lane]));
        assert_eq!(only_new[0].transition, Transition::Remaining);
        assert_eq!(only_new[0].library_competitor, None);
        assert_eq!(
            only_new[0].now.violated_by.as_deref(),
            Some("allreduce_as_allreduce_lane")
        );
        assert_eq!(only_new[0].new_algorithm_family.as_deref(), Some("lane"));
        // New; and a case that held in both runs is not listed.
        let new = one(&held_then, case(&[lane]));
        assert_eq!(new[0].transition, Transition::New);
        assert_eq!((new[0].baseline_violated, new[0].baseline_launches), (0, 1));
        assert_eq!(new[0].p_value, None, "one launch: nothing to test against");
        assert!(one(&held_then, held_then.clone()).is_empty());
    }
}
