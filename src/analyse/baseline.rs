//! The gate against a previous run: a `default` that got significantly
//! slower than in the baseline by more than the tolerance is a regression.

use super::defaults::{measured_default, Defaults};
use super::{compare, CaseData, CaseKey, Options, Sample};
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

/// Compares `default` in every case present in both runs, reading one
/// case of each run at a time.
pub fn compare_runs<B: Defaults + ?Sized, C: Defaults + ?Sized>(
    baseline_name: &str,
    baseline: &B,
    current: &C,
    tolerance: f64,
    options: &Options,
) -> Comparison {
    let mut comparison = Comparison {
        baseline: baseline_name.to_string(),
        tolerance,
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
            p_value,
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
