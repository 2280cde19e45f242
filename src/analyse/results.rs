//! The results of a run as results.json holds them: every case's verdict
//! and its candidates, severities, the run's failure and exit status.

use super::disturbed::Disturbance;
use super::verdict::decide;
use super::{baseline, guidelines, noise, timer};
use super::{CaseData, CaseKey, ExitStatus, Options, Outcome, UsualTime};
use crate::candidates::native::DEFAULT;
use crate::meta::Meta;
use guidelines::Guidelines;
use serde::{Deserialize, Serialize};

/// How bad a violation is (MPINPC's labels, Hunold 2023).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Ok,
    Low,
    Medium,
    MediumHigh,
    High,
    VeryHigh,
}

impl Severity {
    /// The severity of a significant slowdown `s`: MPINPC's thresholds (the
    /// severity table of docs/output.md lists them).
    pub fn of_slowdown(s: f64) -> Severity {
        match s {
            s if s <= 1.0 || s.is_nan() => Severity::Ok,
            s if s < 1.10 => Severity::Low,
            s if s <= 1.50 => Severity::Medium,
            s if s <= 2.00 => Severity::MediumHigh,
            s if s <= 5.00 => Severity::High,
            _ => Severity::VeryHigh,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::MediumHigh => "medium-high",
            Severity::High => "high",
            Severity::VeryHigh => "very-high",
        }
    }
}

/// What a case's verdict says.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Conclusion {
    /// Every measured competitor is shown to be less than the margin
    /// faster than `default`.
    Holds,
    /// Neither violated nor shown to hold: this run could not tell.
    #[default]
    Inconclusive,
    /// A competitor is shown to be more than the margin faster than
    /// `default`. Both tests face the same boundary, so no run shows both
    /// and two runs disagree only where one of the tests erred.
    Violated,
    /// `default` has no observations (skipped, every start late, interrupted).
    Unmeasured,
    /// The library's own collective failed verification.
    LibraryWrong,
}

impl Conclusion {
    pub fn label(self) -> &'static str {
        match self {
            Conclusion::Holds => "holds",
            Conclusion::Inconclusive => "inconclusive",
            Conclusion::Violated => "violated",
            Conclusion::Unmeasured => "unmeasured",
            Conclusion::LibraryWrong => "library wrong",
        }
    }
}

/// One candidate in a verdict.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateSummary {
    pub name: String,
    /// `measured`, `unmeasured` (verified, no valid observation), `wrong` or
    /// `skipped`, with the reason.
    #[serde(flatten)]
    pub outcome: Outcome,
    /// Passed verification (false for wrong and for skipped candidates).
    pub verified: bool,
    pub n: usize,
    /// Observations discarded as invalid (late start under `roundtime`).
    #[serde(default)]
    pub invalid: usize,
    pub outliers_removed: usize,
    pub median_s: Option<f64>,
    pub q1_s: Option<f64>,
    pub q3_s: Option<f64>,
    /// Rounds with at least one observation.
    #[serde(default)]
    pub rounds: usize,
    /// The fewest observations of those rounds.
    #[serde(default)]
    pub min_round_n: usize,
    /// The median of the per-round medians, each round weighted by its
    /// observations (a round a stall cut short weighs little), over the
    /// rounds not set aside as disturbed: the latency a report prints and
    /// slowdowns compare.
    #[serde(default)]
    pub round_median_s: Option<f64>,
    /// The standard error of ln `round_median_s` from the spread of the
    /// rounds (null with fewer than 3): what the gate adds when a launch is
    /// noisier than its baseline launches.
    #[serde(default)]
    pub round_median_log_se: Option<f64>,
    /// Each round's median, in round order, of the rounds with observations
    /// (`rounds` of them): what the per-round plot draws to show drift.
    /// Empty in results.json files from before the field.
    #[serde(default)]
    pub round_medians_s: Vec<f64>,
    /// `round_median(default) / round_median(this)`.
    pub slowdown: Option<f64>,
    /// One-sided p-value of "default is more than the margin slower than
    /// this" (the test behind `violated`).
    pub p_value: Option<f64>,
    /// `p_value` corrected within the case.
    pub p_adjusted: Option<f64>,
    pub significant: bool,
    /// One-sided p-value of "default is less than the margin slower than
    /// this" (the equivalence test behind `holds`).
    #[serde(default)]
    pub p_equivalence: Option<f64>,
    /// The smallest slowdown of this competitor this run could have declared
    /// a violation, given its spread and rounds (at least the margin);
    /// `None` when none could be.
    #[serde(default)]
    pub sensitivity: Option<f64>,
    /// The medians differ by less than the synchronisation noise floor.
    pub below_noise: bool,
    /// The usual time and overhead (Kluge et al. 2005), fitted on the valid
    /// observations before any outlier filter; null with fewer than 20 of them or
    /// without a known timer resolution.
    #[serde(default)]
    pub usual: Option<UsualTime>,
}

impl CandidateSummary {
    /// The share of observations discarded as invalid.
    pub fn invalid_share(&self) -> f64 {
        match self.n + self.invalid {
            0 => 0.0,
            total => self.invalid as f64 / total as f64,
        }
    }
}

/// The verdict of one case.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub key: CaseKey,
    /// Violated, holds, inconclusive, or why there is no verdict.
    #[serde(rename = "verdict", default)]
    pub conclusion: Conclusion,
    /// Why a case is unmeasured or its library collective wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub candidates: Vec<CandidateSummary>,
    /// The competitor the case is summarised by: the one that sets the
    /// severity, else the fastest measured.
    #[serde(default)]
    pub competitor: Option<String>,
    /// Its median of per-round medians.
    #[serde(default)]
    pub competitor_median_s: Option<f64>,
    /// Its slowdown and p-value (corrected when a correction is in force).
    pub slowdown: Option<f64>,
    pub p_value: Option<f64>,
    /// The fastest measured competitor, significant or not.
    pub fastest: Option<String>,
    /// Set by the worst significant competitor.
    pub severity: Severity,
    /// The competitor that sets the severity.
    pub violated_by: Option<String>,
    /// The smallest slowdown this case could have declared significant: the
    /// largest of its competitors'; `None` when some competitor could not
    /// have been flagged at all.
    #[serde(default)]
    pub sensitivity: Option<f64>,
    /// No competitor could have been significant with the rounds measured,
    /// or the timer could not resolve the medians (`timer_bound`).
    #[serde(default)]
    pub powerless: bool,
    /// Medians within a few ticks of the timer's measured granularity
    /// ([`timer`]): powerless whatever the rounds, and inconclusive.
    #[serde(default)]
    pub timer_bound: bool,
    /// The rounds set aside because every candidate ran far slower in them
    /// than usual (a disturbance of the machine); null when none were.
    #[serde(default)]
    pub disturbed: Option<Disturbance>,
    /// A nonblocking case's: what of the call the library overlapped with
    /// computation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overlap: Option<Overlap>,
    /// Where its rounds ran in two states of the machine and one reverses
    /// the verdict: its slowdown in each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<super::state::StateSplit>,
}

/// What of a nonblocking call the library overlaps with independent
/// computation between its start and its wait (IMB-NBC's measure): the
/// call alone took `default`'s median, the computation alone
/// `compute_s`, both together `overlapped_median_s`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Overlap {
    pub compute_s: f64,
    /// The median of per-round medians of the call with the computation.
    pub overlapped_median_s: f64,
    /// The share of the shorter of call and computation that ran at the
    /// same time, in percent ([`crate::case::Overlapped::overlap`]).
    pub percent: f64,
    /// The quartiles of the same share round by round (each round's
    /// medians of the call alone and with the computation): how far the
    /// machine's states within the run move it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_round_percent: Option<[f64; 2]>,
}

impl Overlap {
    /// Below this, the library hardly overlaps: a finding the report names.
    pub const LITTLE_PERCENT: f64 = 10.0;

    /// Little overlap in most rounds, not only at the median: the upper
    /// quartile of the rounds' shares (the median where rounds are too
    /// few) below [`Overlap::LITTLE_PERCENT`].
    pub fn is_little(&self) -> bool {
        self.by_round_percent.map_or(self.percent, |[_, high]| high) < Self::LITTLE_PERCENT
    }
}

impl Verdict {
    pub fn default_candidate(&self) -> Option<&CandidateSummary> {
        self.candidates.iter().find(|c| c.name == DEFAULT)
    }

    /// The severity `--fail-on` judges: the worst significant competitor
    /// whose median differs from `default`'s by more than the noise floor
    /// (the barrier's median). Violations within it (`~`) are reported but
    /// do not gate: in six identical launches every violation found was
    /// within it, and none was found again in another launch
    /// (docs/statistics.md).
    pub fn gated_severity(&self) -> Severity {
        match self.conclusion {
            Conclusion::Violated => self
                .measured_competitors()
                .filter(|c| c.significant && !c.below_noise)
                .map(|c| Severity::of_slowdown(c.slowdown.unwrap_or(1.0)))
                .max()
                .unwrap_or(Severity::Ok),
            _ => Severity::Ok,
        }
    }

    /// Violated, but only by competitors within the noise floor.
    pub fn violated_within_noise_floor(&self) -> bool {
        self.conclusion == Conclusion::Violated && self.gated_severity() == Severity::Ok
    }

    /// Whether the case was decided: violated or shown to hold.
    pub fn decided(&self) -> bool {
        matches!(self.conclusion, Conclusion::Holds | Conclusion::Violated)
    }

    /// Verified competitors with observations.
    pub fn measured_competitors(&self) -> impl Iterator<Item = &CandidateSummary> {
        self.candidates
            .iter()
            .filter(|c| c.name != DEFAULT && c.round_median_s.is_some())
    }
}

/// Everything a run found, as `results.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    pub meta: Meta,
    /// False while measuring, and when the run ended early (interrupted,
    /// stopped at a wrong result, a hang or a lost rank).
    pub complete: bool,
    pub checks: Vec<Verdict>,
    /// PGMPI's monotony and split-robustness, from `default`'s data.
    #[serde(default)]
    pub guidelines: Guidelines,
    /// The comparison with `--baseline`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<baseline::Comparison>,
    /// What ended the run early: a hang or a lost rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// The exit status the gate chose, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
}

/// What ended a run before its end, as the watchdogs of the ranks that
/// saw it recorded it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Failure {
    /// `hang` or `lost rank`.
    pub kind: String,
    /// The exit status the job ended with.
    pub status: i32,
    /// Each rank that saw it, and what it was doing.
    pub ranks: Vec<RankFailure>,
}

/// One rank's part in a [`Failure`].
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RankFailure {
    pub rank: usize,
    pub what: String,
}

impl Results {
    /// Verdicts, universal guidelines and the noise verdict of `cases`.
    pub fn of(mut meta: Meta, complete: bool, cases: &[CaseData], options: &Options) -> Results {
        let (checks, kept): (Vec<Verdict>, Vec<std::borrow::Cow<CaseData>>) = cases
            .iter()
            .map(|c| {
                let (verdict, _, kept) = decide(c, options);
                (verdict, kept)
            })
            .unzip();
        meta.noise = noise::assess(&checks, options);
        timer::warn(&mut meta, &checks);
        Results {
            meta,
            complete,
            checks,
            guidelines: guidelines::check(&kept[..], options),
            baseline: None,
            failure: None,
            exit: None,
        }
    }

    /// The worst severity `--fail-on` judges ([`Verdict::gated_severity`]),
    /// and of the universal guidelines where they compared sizes measured
    /// in shared rounds.
    pub fn worst_gated(&self) -> Severity {
        self.checks
            .iter()
            .map(Verdict::gated_severity)
            .max()
            .unwrap_or(Severity::Ok)
            .max(self.guidelines.worst_shared())
    }

    /// The worst severity of any check, and of the universal guidelines
    /// where they compared sizes measured in shared rounds.
    pub fn worst(&self) -> Severity {
        self.checks
            .iter()
            .map(|c| c.severity)
            .max()
            .unwrap_or(Severity::Ok)
            .max(self.guidelines.worst_shared())
    }
}
