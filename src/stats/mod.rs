//! Statistics: descriptive measures and two-sample tests.
//!
//! Pure Rust, no MPI. The tests reproduce SciPy 1.17 (`mannwhitneyu`,
//! `ttest_ind(equal_var=False)`, `ks_2samp(method='asymp')`); their unit
//! tests check every case of `tests/fixtures/two_sample_tests.json`. The
//! paired tests on differences x_i − y_i ([`wilcoxon`] signed-rank, [`sign`])
//! reproduce SciPy's `wilcoxon(zero_method='wilcox')` and `binomtest`
//! (`tests/fixtures/paired_tests.json`); [`power`] says what a test can
//! detect with a given number of rounds. [`usual`] fits the usual time of
//! one candidate and the overhead above it (Kluge et al. 2005), checked against
//! SciPy in `tests/fixtures/usual.json`. [`change_point`] finds where a
//! series of launches changed (E-divisive means, a permutation test).
//!
//! Conventions shared by all tests:
//! - [`Alternative::Greater`] always means "x tends to be larger than y"
//!   (for Kolmogorov–Smirnov this is SciPy's `alternative='less'`, because
//!   SciPy names the KS alternatives after the CDFs; see [`ks`]).
//! - Inputs are finite values; NaN never panics but gives unspecified results.
//! - A test that is undefined for its inputs (an empty sample, Welch with
//!   fewer than two observations in a sample) returns `statistic = NaN`,
//!   `p_value = 1` and `df = None`: no evidence, never a false alarm.
//!
//! Each test sorts its own copies of the samples. To analyse large samples,
//! sort each once with [`describe::sorted`] and use [`describe::median_sorted`],
//! [`mann_whitney::test_sorted`] and [`ks::test_sorted`]: half the time.

pub mod change_point;
pub mod correction;
pub mod describe;
pub mod ks;
pub mod mann_whitney;
pub mod moderated;
pub mod outliers;
pub mod power;
pub mod sign;
pub mod usual;
pub mod welch;
pub mod wilcoxon;

mod kolmogorov;
mod special;
mod ties;

#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod paired_fixture_tests;
#[cfg(test)]
mod scipy;
#[cfg(test)]
mod usual_fixture_tests;

/// Which way the alternative points; `Greater` = x tends to be larger than y (SciPy's 'greater').
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Alternative {
    Greater,
    Less,
    TwoSided,
}

/// Result of a two-sample test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestOutcome {
    pub statistic: f64,
    pub p_value: f64,
    /// Degrees of freedom, for tests that have them (Welch).
    pub df: Option<f64>,
}

impl TestOutcome {
    /// The outcome of a test that is undefined for its inputs.
    fn undefined() -> Self {
        TestOutcome {
            statistic: f64::NAN,
            p_value: 1.0,
            df: None,
        }
    }
}
