//! From observations to verdicts: medians, slowdowns, two-sample tests,
//! severities, PGMPI's universal guidelines, every candidate's usual time
//! (Kluge et al. 2005, [`usual`]) and the run's noise verdict ([`noise`]). Runs on
//! rank 0 and offline.

use crate::candidates::native::DEFAULT;
pub use crate::case::{CaseData, CaseKey, Outcome, Sample};
use crate::meta::Meta;
use crate::stats::{self, correction, describe, mann_whitney, power, Alternative};
use defaults::{Defaults, Spilled};
use guidelines::Guidelines;
use serde::{Deserialize, Serialize};

pub mod baseline;
pub mod decided;
pub mod defaults;
pub mod guidelines;
pub mod history;
pub mod launches;
pub mod noise;
pub mod rounds;
pub mod timer;
pub mod usual;

pub use decided::ExitStatus;
pub use noise::{Noise, NoiseVerdict};
pub use rounds::RoundMedians;
pub use usual::{UsualTime, DEFAULT_QMAX};

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

/// The two-sample test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Mann–Whitney U (Wilcoxon rank-sum) on all observations.
    Mwu,
    /// Welch's t-test.
    Welch,
    /// Two-sample Kolmogorov–Smirnov.
    Ks,
    /// Mann–Whitney U on the per-round medians.
    Rounds,
    /// Wilcoxon signed-rank on the per-round medians, paired by round.
    Paired,
    /// Sign test on the per-round medians, paired by round.
    Sign,
}

impl Test {
    /// The test for samples of different cases, whose rounds do not pair.
    pub fn unpaired(self) -> Test {
        match self {
            Test::Paired | Test::Sign => Test::Rounds,
            t => t,
        }
    }

    /// The smallest p-value a one-sided test can give with `rounds` rounds
    /// of both samples; `None` for tests on all observations, whose power
    /// grows with the observations.
    pub fn min_p(self, rounds: usize) -> Option<f64> {
        let one_sided = Alternative::Greater;
        match self {
            Test::Rounds => Some(power::min_p_mann_whitney(rounds, rounds, one_sided)),
            Test::Paired => Some(power::min_p_wilcoxon(rounds, one_sided)),
            Test::Sign => Some(power::min_p_sign(rounds, one_sided)),
            Test::Mwu | Test::Welch | Test::Ks => None,
        }
    }
}

/// Multiple-comparison correction within each case: its family is the
/// case's competitors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    None,
    Holm,
}

impl Correction {
    /// The strictest threshold a p-value must pass in a family of `size`
    /// tests: Holm's first, α / size.
    pub fn first_threshold(self, alpha: f64, size: usize) -> f64 {
        match self {
            Correction::None => correction::none_first_threshold(alpha, size),
            Correction::Holm => correction::holm_first_threshold(alpha, size),
        }
    }
}

/// Outlier filter applied to each candidate's observations before the
/// statistics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Outliers {
    /// Keep every valid observation.
    None,
    /// Drop, per round, those beyond 1.5 interquartile ranges of the quartiles.
    Tukey,
    /// Drop those above the candidate's usual time t_max (Kluge et al.'s model
    /// at --qmax, fitted on all its rounds); nothing when it has none (fewer
    /// than 20 observations, or an unknown timer resolution).
    Tmax,
}

/// How to decide.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    pub alpha: f64,
    pub test: Test,
    pub correction: Correction,
    pub outliers: Outliers,
    /// The cost of synchronisation; differences below it are marked.
    pub noise_floor_s: f64,
    /// The slowdown that matters: a guideline is violated when a
    /// competitor is shown to be more than this much faster than
    /// `default`, and holds when every one is shown to be less.
    #[serde(default = "default_margin")]
    pub margin: f64,
    /// The quantile of the fitted error law that bounds the usual time.
    #[serde(default = "default_qmax")]
    pub qmax: f64,
    /// The timer's resolution: the usual times' smallest window (0: unknown,
    /// no usual times).
    #[serde(default)]
    pub timer_resolution_s: f64,
    /// The least severity that fails the run (`--fail-on`), for the noise
    /// verdict's slowdown of interest.
    #[serde(default)]
    pub fail_on: Option<Severity>,
}

impl Options {
    /// Records in `meta` how the run was decided.
    pub fn record(&self, meta: &mut Meta) {
        meta.alpha = self.alpha;
        meta.test = format!("{:?}", self.test).to_lowercase();
        meta.correction = format!("{:?}", self.correction).to_lowercase();
        meta.outliers = format!("{:?}", self.outliers).to_lowercase();
        meta.margin = self.margin;
        meta.qmax = self.qmax;
        if self.outliers == Outliers::Tmax && self.timer_resolution_s <= 0.0 {
            meta.warnings.push(
                "--outliers tmax removes nothing: the timer resolution is unknown (a raw.csv without its results.json), so there are no usual times"
                    .into(),
            );
        }
    }
}

/// The margin of `holds` unless told otherwise.
pub const DEFAULT_MARGIN: f64 = 1.05;

fn default_margin() -> f64 {
    DEFAULT_MARGIN
}

fn default_qmax() -> f64 {
    DEFAULT_QMAX
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
    /// The median of the per-round medians: what slowdowns compare.
    #[serde(default)]
    pub round_median_s: Option<f64>,
    /// The standard error of ln `round_median_s` from the spread of the
    /// rounds (null with fewer than 3): what the gate adds when a launch is
    /// noisier than its baseline launches.
    #[serde(default)]
    pub round_median_log_se: Option<f64>,
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
}

impl Verdict {
    pub fn default_candidate(&self) -> Option<&CandidateSummary> {
        self.candidates.iter().find(|c| c.name == DEFAULT)
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
        let checks = verdicts(cases, options);
        meta.noise = noise::assess(&checks, options);
        timer::warn(&mut meta, &checks);
        Results {
            meta,
            complete,
            checks,
            guidelines: guidelines::check(cases, options),
            baseline: None,
            failure: None,
            exit: None,
        }
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

/// A run's verdicts, decided one case at a time: of each case only its
/// verdict stays in memory, and the library's own sample goes to a
/// temporary file (the universal guidelines and a baseline compare those),
/// so that a run holds one case's observations at a time whatever its
/// number of cases.
#[derive(Debug, Default)]
pub struct Decisions {
    checks: Vec<Verdict>,
    /// Every case with `default`'s sample alone.
    defaults: Spilled,
    /// The universal guidelines' findings of each series, in the order of
    /// its first measured case, updated when a case of it is decided.
    series: Vec<(CaseKey, Guidelines)>,
}

impl Decisions {
    /// Decides `case` and keeps what later decisions need of it.
    pub fn add(&mut self, case: &CaseData, options: &Options) {
        self.checks.push(verdict(case, options));
        self.defaults.push(case);
        let added = self.defaults.cases() - 1;
        if self.defaults.measured(added) {
            let findings = guidelines::check_series(&self.defaults, &case.key, options);
            match self
                .series
                .iter_mut()
                .find(|(k, _)| k.same_series(&case.key))
            {
                Some((_, of_series)) => *of_series = findings,
                None => self.series.push((case.key.clone(), findings)),
            }
        }
    }

    /// The cases decided so far, with `default`'s samples only.
    pub fn defaults(&self) -> &Spilled {
        &self.defaults
    }

    /// How many cases were decided.
    pub fn decided(&self) -> usize {
        self.checks.len()
    }

    /// Verdicts, universal guidelines and the noise verdict of the cases so far.
    pub fn results(&self, mut meta: Meta, complete: bool, options: &Options) -> Results {
        meta.noise = noise::assess(&self.checks, options);
        timer::warn(&mut meta, &self.checks);
        let mut guidelines = Guidelines::default();
        for (_, of_series) in &self.series {
            guidelines
                .monotony
                .extend(of_series.monotony.iter().cloned());
            guidelines
                .split_robustness
                .extend(of_series.split_robustness.iter().cloned());
        }
        Results {
            meta,
            complete,
            checks: self.checks.clone(),
            guidelines,
            baseline: None,
            failure: None,
            exit: None,
        }
    }
}

/// A test of one sample against another, as the options say: one-sided,
/// "x is slower than y".
pub fn compare(x: &Sample, y: &Sample, test: Test) -> stats::TestOutcome {
    match test {
        Test::Mwu | Test::Welch | Test::Ks => {
            test_values(test, &x.seconds, &y.seconds, Alternative::Greater)
        }
        Test::Rounds | Test::Paired | Test::Sign => {
            compare_rounds(&RoundMedians::of(x), &RoundMedians::of(y), test)
        }
    }
}

/// [`compare`] of samples already summarised by round, for the tests on
/// per-round medians.
pub fn compare_rounds(x: &RoundMedians, y: &RoundMedians, test: Test) -> stats::TestOutcome {
    let (xs, ys) = round_values(x, y, test);
    test_values(test, &xs, &ys, Alternative::Greater)
}

/// The per-round medians a round test compares (of the rounds both
/// samples have, in round order, when paired).
fn round_values(x: &RoundMedians, y: &RoundMedians, test: Test) -> (Vec<f64>, Vec<f64>) {
    match test {
        Test::Paired | Test::Sign => x.paired(y),
        _ => (x.medians(), y.medians()),
    }
}

/// The values a test compares: all observations, or the per-round medians.
fn tested_values(
    x: (&Sample, &RoundMedians),
    y: (&Sample, &RoundMedians),
    test: Test,
) -> (Vec<f64>, Vec<f64>) {
    match test {
        Test::Mwu | Test::Welch | Test::Ks => (x.0.seconds.clone(), y.0.seconds.clone()),
        Test::Rounds | Test::Paired | Test::Sign => round_values(x.1, y.1, test),
    }
}

fn test_values(test: Test, x: &[f64], y: &[f64], alternative: Alternative) -> stats::TestOutcome {
    match test {
        Test::Mwu | Test::Rounds => {
            mann_whitney::test(x, y, alternative, mann_whitney::Method::Auto)
        }
        Test::Welch => stats::welch::test(x, y, alternative),
        Test::Ks => stats::ks::test(x, y, alternative),
        Test::Paired => stats::wilcoxon::test(x, y, alternative, stats::wilcoxon::Method::Auto),
        Test::Sign => stats::sign::test(x, y, alternative),
    }
}

/// The median of each round's observations.
pub fn round_medians(sample: &Sample) -> Vec<f64> {
    RoundMedians::of(sample).medians()
}

/// Drops Tukey outliers per round; returns how many were removed.
fn filter_outliers(sample: &mut Sample) -> usize {
    let (mut seconds, mut kept_rounds) = (Vec::new(), Vec::new());
    let mut removed = 0;
    for (r, of_round) in rounds::by_round(sample) {
        let (kept, dropped) = stats::outliers::tukey(&of_round);
        removed += dropped;
        kept_rounds.extend(std::iter::repeat_n(r, kept.len()));
        seconds.extend(kept);
    }
    sample.seconds = seconds;
    sample.rounds = kept_rounds;
    removed
}

/// Verdicts for every case; p-values corrected within each case.
pub fn verdicts(cases: &[CaseData], options: &Options) -> Vec<Verdict> {
    cases.iter().map(|c| verdict(c, options)).collect()
}

/// The summary of one candidate, without the comparison with `default`.
fn summarise(
    sample: &Sample,
    rounds: &RoundMedians,
    outliers_removed: usize,
    usual: Option<UsualTime>,
) -> CandidateSummary {
    let measured = sample.outcome == Outcome::Measured && !sample.seconds.is_empty();
    let outcome = match &sample.outcome {
        Outcome::Measured if !measured => Outcome::Unmeasured(match sample.invalid_rounds.len() {
            0 => "no observation".to_string(),
            n => format!("all {n} observations invalid (late starts)"),
        }),
        outcome => outcome.clone(),
    };
    let quartiles = measured
        .then(|| describe::quartiles(&sample.seconds))
        .flatten();
    CandidateSummary {
        name: sample.name.clone(),
        verified: outcome.verified(),
        outcome,
        n: sample.seconds.len(),
        invalid: sample.invalid_rounds.len(),
        outliers_removed,
        median_s: quartiles.map(|q| q[1]),
        q1_s: quartiles.map(|q| q[0]),
        q3_s: quartiles.map(|q| q[2]),
        rounds: rounds.len(),
        min_round_n: rounds.counts.iter().copied().min().unwrap_or(0),
        round_median_s: measured.then(|| describe::median(&rounds.medians())),
        round_median_log_se: measured.then(|| rounds.log_median_se()).flatten(),
        slowdown: None,
        p_value: None,
        p_adjusted: None,
        significant: false,
        p_equivalence: None,
        sensitivity: None,
        below_noise: false,
        usual,
    }
}

fn verdict(case: &CaseData, options: &Options) -> Verdict {
    let mut samples = case.samples.clone();
    let fits: Vec<Option<UsualTime>> = samples
        .iter()
        .map(|s| usual::of(s, options.timer_resolution_s, options.qmax))
        .collect();
    let mut removed = vec![0; samples.len()];
    for ((sample, removed), fit) in samples.iter_mut().zip(&mut removed).zip(&fits) {
        *removed = match (options.outliers, fit) {
            (Outliers::None, _) | (Outliers::Tmax, None) => 0,
            (Outliers::Tukey, _) => filter_outliers(sample),
            (Outliers::Tmax, Some(fit)) => usual::drop_above_tmax(sample, &fit.fit),
        };
    }
    // Each candidate's rounds once, for every comparison that follows.
    let rounds: Vec<RoundMedians> = samples.iter().map(RoundMedians::of).collect();
    let mut candidates: Vec<CandidateSummary> = samples
        .iter()
        .zip(&rounds)
        .zip(removed)
        .zip(fits)
        .map(|(((sample, rounds), removed), fit)| summarise(sample, rounds, removed, fit))
        .collect();
    let default = samples
        .iter()
        .position(|s| s.name == DEFAULT)
        .filter(|&d| candidates[d].round_median_s.is_some());
    let compared: Vec<usize> = match default {
        Some(_) => (0..samples.len())
            .filter(|&c| samples[c].name != DEFAULT && candidates[c].round_median_s.is_some())
            .collect(),
        None => Vec::new(),
    };
    let timer_bound = default.is_some()
        && timer::bound(
            default
                .iter()
                .chain(&compared)
                .filter_map(|&c| candidates[c].round_median_s),
            options.timer_resolution_s,
        );
    let threshold = options
        .correction
        .first_threshold(options.alpha, compared.len());
    if let Some(d) = default {
        let default_median = candidates[d].round_median_s.expect("measured");
        for &c in &compared {
            let (xs, ys) = tested_values(
                (&samples[d], &rounds[d]),
                (&samples[c], &rounds[c]),
                options.test,
            );
            let p = |x: &[f64], y: &[f64], alternative| {
                test_values(options.test, x, y, alternative).p_value
            };
            let summary = &mut candidates[c];
            let median = summary.round_median_s.expect("measured");
            summary.slowdown = Some(default_median / median);
            summary.below_noise = (default_median - median).abs() < options.noise_floor_s;
            // Default's rounds divided by the margin: "more than the margin
            // slower" and "less than the margin slower" are the two sides
            // of one boundary.
            let at_margin =
                |x: &[f64]| -> Vec<f64> { x.iter().map(|v| v / options.margin).collect() };
            let xs_at_margin = at_margin(&xs);
            summary.p_value = Some(p(&xs_at_margin, &ys, Alternative::Greater));
            summary.p_equivalence = Some(p(&xs_at_margin, &ys, Alternative::Less));
            summary.sensitivity = power::sensitivity(
                |x: &[f64], y: &[f64]| p(&at_margin(x), y, Alternative::Greater),
                &xs,
                &ys,
                threshold,
            );
        }
    }
    let raw: Vec<f64> = compared
        .iter()
        .map(|&c| candidates[c].p_value.expect("compared"))
        .collect();
    let adjusted = match options.correction {
        Correction::None => raw,
        Correction::Holm => correction::holm(&raw),
    };
    for (&c, p) in compared.iter().zip(adjusted) {
        let candidate = &mut candidates[c];
        candidate.p_adjusted = Some(p);
        candidate.significant = !timer_bound
            && p < options.alpha
            && candidate.slowdown.is_some_and(|s| s > options.margin);
    }
    let mut verdict = Verdict {
        key: case.key.clone(),
        conclusion: Conclusion::Inconclusive,
        reason: None,
        candidates,
        competitor: None,
        competitor_median_s: None,
        slowdown: None,
        p_value: None,
        fastest: None,
        severity: Severity::Ok,
        violated_by: None,
        sensitivity: None,
        powerless: false,
        timer_bound,
    };
    settle(&mut verdict, options);
    verdict
}

/// Fills in the severity, the competitor the case is summarised by, its
/// sensitivity and the conclusion from the candidates.
fn settle(verdict: &mut Verdict, options: &Options) {
    let by_median = |a: &&CandidateSummary, b: &&CandidateSummary| {
        a.round_median_s
            .partial_cmp(&b.round_median_s)
            .expect("medians are numbers")
    };
    let fastest = verdict.measured_competitors().min_by(by_median);
    // A case the timer cannot resolve is never violated nor shown to hold.
    let timer_bound = verdict.timer_bound;
    let worst = verdict
        .measured_competitors()
        .filter(|c| c.significant && !timer_bound)
        .max_by(|a, b| {
            a.slowdown
                .partial_cmp(&b.slowdown)
                .expect("slowdowns are numbers")
        });
    let shown = worst.or(fastest);
    let compared: Vec<&CandidateSummary> = verdict
        .measured_competitors()
        .filter(|c| c.p_value.is_some())
        .collect();
    let sensitivity = compared
        .iter()
        .map(|c| c.sensitivity)
        .try_fold(1.0f64, |worst, s| s.map(|s| worst.max(s)))
        .filter(|_| !compared.is_empty() && !timer_bound);
    let powerless =
        !compared.is_empty() && (timer_bound || compared.iter().all(|c| c.sensitivity.is_none()));
    let every_competitor_compared = verdict
        .candidates
        .iter()
        .filter(|c| c.name != DEFAULT && c.verified)
        .all(|c| c.p_value.is_some());
    let holds = !compared.is_empty()
        && !timer_bound
        && every_competitor_compared
        && compared
            .iter()
            .all(|c| c.p_equivalence.is_some_and(|p| p < options.alpha));
    let default = verdict.default_candidate();
    let (conclusion, reason) = match default {
        Some(d) if d.outcome.is_wrong() => (
            Conclusion::LibraryWrong,
            d.outcome.reason().map(String::from),
        ),
        Some(d) if d.round_median_s.is_some() => match (worst, holds) {
            (Some(_), _) => (Conclusion::Violated, None),
            (None, true) => (Conclusion::Holds, None),
            (None, false) => (
                Conclusion::Inconclusive,
                timer_bound.then(|| timer::reason(options)),
            ),
        },
        Some(d) => (
            Conclusion::Unmeasured,
            Some(d.outcome.reason().unwrap_or("not measured").to_string()),
        ),
        None => (Conclusion::Unmeasured, Some("not measured".into())),
    };
    let competitor = shown.map(|c| c.name.clone());
    let competitor_median_s = shown.and_then(|c| c.round_median_s);
    let slowdown = shown.and_then(|c| c.slowdown).filter(|s| s.is_finite());
    let p_value = shown.and_then(|c| c.p_adjusted.or(c.p_value));
    let fastest = fastest.map(|c| c.name.clone());
    let severity = worst.map_or(Severity::Ok, |w| {
        Severity::of_slowdown(w.slowdown.unwrap_or(1.0))
    });
    let violated_by = worst.map(|w| w.name.clone());
    verdict.competitor = competitor;
    verdict.competitor_median_s = competitor_median_s;
    verdict.slowdown = slowdown;
    verdict.p_value = p_value;
    verdict.fastest = fastest;
    verdict.severity = severity;
    verdict.violated_by = violated_by;
    verdict.sensitivity = sensitivity;
    verdict.powerless = powerless;
    verdict.conclusion = conclusion;
    verdict.reason = reason;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use rand::{Rng, SeedableRng};

    fn sample(name: &str, seconds: Vec<f64>, rounds: u32) -> Sample {
        let n = seconds.len() as u32;
        Sample {
            name: name.into(),
            outcome: Outcome::Measured,
            rounds: (0..n).map(|i| i * rounds / n.max(1)).collect(),
            seconds,
            invalid_rounds: Vec::new(),
        }
    }

    /// Log-normal timings around 10 µs, as MPI timings roughly are.
    fn timings(rng: &mut impl Rng, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                let (u, v): (f64, f64) = (rng.gen(), rng.gen());
                let z = (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos();
                10e-6 * (0.2 * z).exp()
            })
            .collect()
    }

    fn case(default: Vec<f64>, competitor: Vec<f64>) -> CaseData {
        CaseData {
            key: CaseKey::allreduce_bytes(8),
            samples: vec![
                sample(DEFAULT, default, 10),
                sample("other", competitor, 10),
            ],
            smaller: None,
        }
    }

    fn options(test: Test) -> Options {
        Options {
            alpha: 0.05,
            test,
            correction: Correction::None,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: DEFAULT_MARGIN,
            qmax: DEFAULT_QMAX,
            timer_resolution_s: 0.0,
            fail_on: None,
        }
    }

    /// Timings of `default` exactly the margin slower than [`timings`]:
    /// the boundary between `violated` and `holds`.
    fn at_margin(rng: &mut impl Rng, n: usize) -> Vec<f64> {
        timings(rng, n).iter().map(|t| t * DEFAULT_MARGIN).collect()
    }

    #[test]
    fn a_a_comparisons_flag_violations_at_about_alpha() {
        // 1000 comparisons where `default` is exactly the margin slower (the
        // null hypothesis at its boundary): the number flagged is
        // Binomial(1000, 0.05) for a one-sided test at α = 0.05 (mean 50,
        // sd 6.9); each test must stay within about 3 sd.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let cases: Vec<CaseData> = (0..1000)
            .map(|_| case(at_margin(&mut rng, 60), timings(&mut rng, 60)))
            .collect();
        for test in [
            Test::Mwu,
            Test::Welch,
            Test::Ks,
            Test::Rounds,
            Test::Paired,
            Test::Sign,
        ] {
            let flagged = verdicts(&cases, &options(test))
                .iter()
                .filter(|v| v.severity != Severity::Ok)
                .count();
            eprintln!("A/A: {test:?} flagged {flagged} of 1000");
            // The sign test on ten rounds is conservative: p < 0.05 needs
            // nine of them, P = 1.1 %.
            let min = if test == Test::Sign { 0 } else { 20 };
            assert!(
                (min..=72).contains(&flagged),
                "{test:?} flagged {flagged} of 1000"
            );
        }
        // The same distribution on both sides (less than the margin apart):
        // a violation would need an error far beyond α.
        let same: Vec<CaseData> = (0..1000)
            .map(|_| case(timings(&mut rng, 60), timings(&mut rng, 60)))
            .collect();
        let flagged = verdicts(&same, &options(Test::Rounds))
            .iter()
            .filter(|v| v.conclusion == Conclusion::Violated)
            .count();
        assert!(flagged <= 5, "{flagged} of 1000 A/A cases violated");
    }

    #[test]
    fn a_real_slowdown_is_flagged_with_its_severity() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let fast = timings(&mut rng, 200);
        let slow: Vec<f64> = timings(&mut rng, 200).iter().map(|t| t * 1.8).collect();
        let v = &verdicts(&[case(slow, fast)], &options(Test::Mwu))[0];
        assert_eq!(v.severity, Severity::MediumHigh);
        assert_eq!(v.violated_by.as_deref(), Some("other"));
        assert!(v.slowdown.unwrap() > 1.6 && v.slowdown.unwrap() < 2.0);
    }

    #[test]
    fn holm_corrects_within_each_case() {
        // 400 cases of ten competitors all exactly the margin faster than
        // `default` (the boundary of the null hypothesis): with Holm within
        // each case the share of cases flagged stays at about α (at most
        // 3 sd above it), without it far above.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let cases: Vec<CaseData> = (0..400)
            .map(|_| {
                let mut c = case(at_margin(&mut rng, 40), timings(&mut rng, 40));
                for i in 0..9 {
                    c.samples
                        .push(sample(&format!("other{i}"), timings(&mut rng, 40), 10));
                }
                c
            })
            .collect();
        let flagged = |correction| {
            let mut o = options(Test::Mwu);
            o.correction = correction;
            verdicts(&cases, &o)
                .iter()
                .filter(|v| v.conclusion == Conclusion::Violated)
                .count()
        };
        let (raw, holm) = (flagged(Correction::None), flagged(Correction::Holm));
        eprintln!("A/A cases of ten competitors flagged: {raw} of 400 raw, {holm} with Holm");
        // Binomial(400, 0.05): mean 20, sd 4.4.
        assert!(holm <= 33, "{holm} of 400 with Holm");
        assert!(raw > 60, "{raw} of 400 without correction");
        // A case's correction is its own: the same p-values as alone.
        let mut o = options(Test::Mwu);
        o.correction = Correction::Holm;
        let alone = verdicts(&cases[1..2], &o);
        let together = verdicts(&cases[..2], &o);
        for (a, t) in alone[0].candidates.iter().zip(&together[1].candidates) {
            assert_eq!(a.p_adjusted, t.p_adjusted);
        }
    }

    #[test]
    fn holm_adjusts_a_case_s_p_values_as_computed_by_hand() {
        // The sign test on ten rounds: a competitor faster in all ten
        // rounds has p = 1/1024, in nine of them 11/1024, in eight 56/1024.
        // `default` takes 20 µs in every round, a competitor 10 µs except
        // in `slower` rounds, where it takes 30 µs.
        let competitor = |slower: u32| -> Vec<f64> {
            (0..10)
                .map(|r| if r < slower { 30e-6 } else { 10e-6 })
                .collect()
        };
        let mut c = case(vec![20e-6; 10], competitor(1));
        for (name, slower) in [("nine_b", 1), ("all_ten", 0), ("eight", 2)] {
            c.samples.push(sample(name, competitor(slower), 10));
        }
        let mut o = options(Test::Sign);
        o.correction = Correction::Holm;
        let v = &verdicts(&[c], &o)[0];
        let p = |name: &str| {
            let c = v.candidates.iter().find(|c| c.name == name).unwrap();
            (c.p_value.unwrap() * 1024.0, c.p_adjusted.unwrap() * 1024.0)
        };
        // Sorted: 1, 11, 11, 56 (/1024) times 4, 3, 2, 1 is 4, 33, 22, 56;
        // the running maximum makes it 4, 33, 33, 56.
        assert_eq!(p("all_ten"), (1.0, 4.0));
        assert_eq!(p("other"), (11.0, 33.0));
        assert_eq!(p("nine_b"), (11.0, 33.0));
        assert_eq!(p("eight"), (56.0, 56.0));
        assert_eq!(v.conclusion, Conclusion::Violated);
        assert_eq!(v.violated_by.as_deref(), Some("all_ten"));
    }

    #[test]
    fn decisions_one_case_at_a_time_give_the_results_of_all_cases_at_once() {
        // Two series in shuffled sizes, a size measured twice, a case
        // without observations, and smaller sizes from shared rounds: the
        // spilled samples and the per-series findings must give the same
        // results, to the bit, as every case in memory.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut cases = Vec::new();
        for (size, collective) in [
            (64, Collective::Allreduce),
            (8, Collective::Bcast),
            (8, Collective::Allreduce),
            (256, Collective::Allreduce),
            (16, Collective::Allreduce),
            (32, Collective::Bcast),
            (16, Collective::Allreduce),
            (4096, Collective::Allreduce),
            (128, Collective::Bcast),
        ] {
            let scale = 1.0 + (size as f64).ln() / rng.gen_range(1.0..8.0);
            let mut c = case(
                timings(&mut rng, 60).iter().map(|t| t * scale).collect(),
                timings(&mut rng, 60),
            );
            c.key = CaseKey {
                collective,
                ..CaseKey::allreduce_bytes(size)
            };
            if size >= 128 {
                c.smaller = Some(crate::case::Smaller {
                    size_bytes: size / 4,
                    sample: sample(
                        &crate::case::Smaller::name(size / 4),
                        timings(&mut rng, 60),
                        10,
                    ),
                });
            }
            cases.push(c);
        }
        cases[2].samples[0].seconds.clear();
        cases[2].samples[0].rounds.clear();
        for test in [Test::Mwu, Test::Paired] {
            let options = options(test);
            let mut decisions = Decisions::default();
            for c in &cases {
                decisions.add(c, &options);
            }
            let at_once = Results::of(Meta::default(), true, &cases, &options);
            let one_by_one = decisions.results(Meta::default(), true, &options);
            assert!(at_once.guidelines.monotony.len() >= 5);
            assert!(decisions.defaults().bytes_in_memory() == 0);
            let json = |r: &Results| serde_json::to_string(r).unwrap();
            assert_eq!(json(&one_by_one), json(&at_once), "{test:?}");
            // A baseline of the later cases, spilled or in memory.
            let json_of = |c: baseline::Comparison| serde_json::to_string(&c).unwrap();
            let old = Spilled::of(&cases[3..]);
            let then = verdicts(&cases[3..], &options);
            let both = (&then[..], &at_once.checks[..]);
            let spilled =
                baseline::compare_runs("b", &old, decisions.defaults(), both, 0.05, &options);
            let in_memory =
                baseline::compare_runs("b", &cases[3..], &cases[..], both, 0.05, &options);
            assert!(!in_memory.changes.is_empty() && !in_memory.only_in_current.is_empty());
            assert_eq!(json_of(spilled), json_of(in_memory));
        }
    }

    #[test]
    fn severity_thresholds_are_mpinpc_s() {
        assert_eq!(Severity::of_slowdown(0.9), Severity::Ok);
        assert_eq!(Severity::of_slowdown(1.0), Severity::Ok);
        assert_eq!(Severity::of_slowdown(1.05), Severity::Low);
        assert_eq!(Severity::of_slowdown(1.10), Severity::Medium);
        assert_eq!(Severity::of_slowdown(1.5), Severity::Medium);
        assert_eq!(Severity::of_slowdown(2.0), Severity::MediumHigh);
        assert_eq!(Severity::of_slowdown(5.0), Severity::High);
        assert_eq!(Severity::of_slowdown(5.01), Severity::VeryHigh);
    }
}
