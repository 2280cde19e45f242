//! The gate against a previous run: a `default` that got significantly
//! slower than in the baseline by more than the tolerance is a regression.

use super::{compare, CaseData, CaseKey, Options, Sample};
use crate::candidates::native::DEFAULT;
use crate::stats::describe;
use serde::{Deserialize, Serialize};

/// One case in both runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Change {
    #[serde(flatten)]
    pub key: CaseKey,
    pub baseline_median_s: f64,
    pub median_s: f64,
    /// median / baseline median.
    pub ratio: f64,
    /// One-sided: now slower than the baseline times (1 + tolerance).
    pub p_value: f64,
    pub regression: bool,
}

/// The comparison with a baseline run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Comparison {
    pub baseline: String,
    pub tolerance: f64,
    pub changes: Vec<Change>,
    /// Cases only the baseline has.
    pub only_in_baseline: Vec<CaseKey>,
    /// Cases only this run has.
    pub only_in_current: Vec<CaseKey>,
}

impl Comparison {
    pub fn regressions(&self) -> impl Iterator<Item = &Change> {
        self.changes.iter().filter(|c| c.regression)
    }
}

fn default_sample(case: &CaseData) -> Option<&Sample> {
    case.samples.iter().find(|s| {
        s.name == DEFAULT && s.outcome == crate::case::Outcome::Measured && !s.seconds.is_empty()
    })
}

/// Compares `default` in every case present in both runs.
pub fn compare_runs(
    baseline_name: &str,
    baseline: &[CaseData],
    current: &[CaseData],
    tolerance: f64,
    options: &Options,
) -> Comparison {
    let mut comparison = Comparison {
        baseline: baseline_name.to_string(),
        tolerance,
        ..Comparison::default()
    };
    for case in current {
        let Some(now) = default_sample(case) else {
            continue;
        };
        let Some(before) = baseline
            .iter()
            .find(|b| b.key == case.key)
            .and_then(default_sample)
        else {
            comparison.only_in_current.push(case.key.clone());
            continue;
        };
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
            key: case.key.clone(),
            baseline_median_s: baseline_median,
            median_s: median,
            ratio: median / baseline_median,
            p_value,
            regression: p_value < options.alpha && median > baseline_median * (1.0 + tolerance),
        });
    }
    comparison.only_in_baseline = baseline
        .iter()
        .filter(|b| default_sample(b).is_some() && !current.iter().any(|c| c.key == b.key))
        .map(|b| b.key.clone())
        .collect();
    comparison
}
