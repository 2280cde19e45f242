//! How verdicts are decided: the test, the correction, the outlier
//! filter and the margin (the options `run` and `analyze` share).

use super::usual::DEFAULT_QMAX;
use super::Severity;
use crate::meta::Meta;
use crate::stats::{correction, power, Alternative};
use serde::{Deserialize, Serialize};

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

/// From this many rounds on, the default test is `paired`: with slices of
/// 5–10 ms the candidates of a round share the machine's state, and pairing
/// by round cancels it. Measured with known truth on 2 bound ranks
/// (`ci/noise-experiment`, docs/statistics.md): at 1 s (100 rounds) a 1.1×
/// slowdown was found in 15 of 16 cases paired and 12 of 16 unpaired, at
/// 300 ms (30 rounds) 1.25× in 16 of 16 against 15; neither raised a false
/// violation in 32 A/A cases. At 10 rounds neither was better.
pub const PAIRED_FROM_ROUNDS: usize = 20;

impl Test {
    /// The default test for `rounds` rounds: `paired` from
    /// [`PAIRED_FROM_ROUNDS`] on, `rounds` below.
    pub fn for_rounds(rounds: usize) -> Test {
        match rounds >= PAIRED_FROM_ROUNDS {
            true => Test::Paired,
            false => Test::Rounds,
        }
    }

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

/// The command line's defaults (α 0.05, the rounds test, Holm, no outlier
/// filter, the default margin and q_max), without a noise floor and with a
/// 1 ns timer: what benchmarks and tests start from.
impl Default for Options {
    fn default() -> Options {
        Options {
            alpha: 0.05,
            test: Test::Rounds,
            correction: Correction::Holm,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: default_margin(),
            qmax: default_qmax(),
            timer_resolution_s: 1e-9,
            fail_on: None,
        }
    }
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
                "--outliers tmax removes nothing: the timer resolution is unknown (observations without their results.json), so there are no usual times"
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
