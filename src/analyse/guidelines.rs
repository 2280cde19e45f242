//! PGMPI's universal guidelines, read from `default`'s data: monotony (more
//! data must not be faster) and split-robustness (one message of m_j must
//! not be slower than k = ⌈m_j/m_i⌉ messages of m_i, 5 % tolerance).
//!
//! The sizes they compare are measured at different times, not in shared
//! rounds, so a drift of the machine between them looks like a violation:
//! the findings are reported (p-values corrected within each series) but do
//! not count for `--fail-on`.

use super::{compare, CaseData, CaseKey, Options, Sample, Severity};
use crate::candidates::native::DEFAULT;
use crate::stats::{correction, describe};
use serde::{Deserialize, Serialize};

/// Tolerance of split-robustness.
pub const SPLIT_TOLERANCE: f64 = 1.05;

/// One comparison of `default` at two sizes.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Finding {
    #[serde(flatten)]
    pub key: CaseKey,
    /// The smaller size the check compares with.
    pub other_size_bytes: u64,
    /// Split-robustness: how many messages of the smaller size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u64>,
    /// Median of `default` at `size_bytes`.
    pub median_s: f64,
    /// Median of `default` at `other_size_bytes` (times k·tolerance for split-robustness).
    pub bound_s: f64,
    /// Monotony: bound/median (above 1 means the larger size is faster);
    /// split-robustness: median/bound (above 1 means one message is slower).
    pub ratio: f64,
    pub p_value: f64,
    pub severity: Severity,
}

/// Both guidelines' findings.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Guidelines {
    /// Every pair of consecutive sizes.
    pub monotony: Vec<Finding>,
    /// Per size, the largest smaller size that violates it, if any.
    pub split_robustness: Vec<Finding>,
}

impl Guidelines {
    pub fn worst(&self) -> Severity {
        self.monotony
            .iter()
            .chain(&self.split_robustness)
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Ok)
    }
}

/// The series of `default` over sizes, per (collective, datatype, op, root).
fn series(cases: &[CaseData]) -> Vec<Vec<(&CaseKey, &Sample)>> {
    let mut groups: Vec<Vec<(&CaseKey, &Sample)>> = Vec::new();
    for case in cases {
        let Some(default) = case.samples.iter().find(|s| {
            s.name == DEFAULT
                && s.outcome == crate::case::Outcome::Measured
                && !s.seconds.is_empty()
        }) else {
            continue;
        };
        let same = |k: &CaseKey| {
            k.collective == case.key.collective
                && k.datatype == case.key.datatype
                && k.op == case.key.op
                && k.root == case.key.root
        };
        match groups.iter_mut().find(|g| same(g[0].0)) {
            Some(group) => group.push((&case.key, default)),
            None => groups.push(vec![(&case.key, default)]),
        }
    }
    for group in &mut groups {
        group.sort_by_key(|(k, _)| k.size_bytes);
        group.dedup_by_key(|(k, _)| k.size_bytes);
    }
    groups
}

fn scaled(sample: &Sample, factor: f64) -> Sample {
    Sample {
        seconds: sample.seconds.iter().map(|s| s * factor).collect(),
        ..sample.clone()
    }
}

/// Checks both guidelines on every series.
pub fn check(cases: &[CaseData], options: &Options) -> Guidelines {
    let mut guidelines = Guidelines::default();
    // Different sizes are measured at different times, so no pairing by
    // round: the unpaired per-round test where a paired one is in force.
    let test = options.test.unpaired();
    for group in series(cases) {
        let first = guidelines.monotony.len();
        for pair in group.windows(2) {
            let ((small_key, small), (large_key, large)) = (pair[0], pair[1]);
            let (small_median, large_median) = (
                describe::median(&small.seconds),
                describe::median(&large.seconds),
            );
            // Violated when the larger size is significantly faster.
            let p_value = compare(small, large, test).p_value;
            let ratio = small_median / large_median;
            guidelines.monotony.push(Finding {
                key: (*large_key).clone(),
                other_size_bytes: small_key.size_bytes,
                k: None,
                median_s: large_median,
                bound_s: small_median,
                ratio,
                p_value,
                severity: if p_value < options.alpha {
                    Severity::of_slowdown(ratio)
                } else {
                    Severity::Ok
                },
            });
        }
        // Holm within the series' monotony pairs.
        let pairs = &mut guidelines.monotony[first..];
        let raw: Vec<f64> = pairs.iter().map(|f| f.p_value).collect();
        for (finding, adjusted) in pairs.iter_mut().zip(correction::holm(&raw)) {
            finding.p_value = adjusted;
            finding.severity = if adjusted < options.alpha {
                Severity::of_slowdown(finding.ratio)
            } else {
                Severity::Ok
            };
        }
        // Bonferroni over the series' split comparisons: the search stops
        // at the first violation, so not every p-value is known.
        let comparisons = (group.len() * group.len().saturating_sub(1) / 2).max(1);
        for (j, &(large_key, large)) in group.iter().enumerate() {
            let large_median = describe::median(&large.seconds);
            // The largest smaller size that violates, searched from the largest down.
            let violation = group[..j].iter().rev().find_map(|&(small_key, small)| {
                let k = large_key.size_bytes.div_ceil(small_key.size_bytes);
                let bound = scaled(small, k as f64 * SPLIT_TOLERANCE);
                let bound_median = describe::median(&bound.seconds);
                let ratio = large_median / bound_median;
                let p_value = (compare(large, &bound, test).p_value * comparisons as f64).min(1.0);
                (ratio > 1.0 && p_value < options.alpha).then(|| Finding {
                    key: large_key.clone(),
                    other_size_bytes: small_key.size_bytes,
                    k: Some(k),
                    median_s: large_median,
                    bound_s: bound_median,
                    ratio,
                    p_value,
                    severity: Severity::of_slowdown(ratio),
                })
            });
            guidelines.split_robustness.extend(violation);
        }
    }
    guidelines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{Correction, Outliers, Test, DEFAULT_MARGIN};
    use crate::collective::Collective;
    use crate::element::{Datatype, Op};

    fn case(size: u64, seconds: Vec<f64>) -> CaseData {
        CaseData {
            key: CaseKey {
                collective: Collective::Bcast,
                size_bytes: size,
                count: size as usize,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            samples: vec![Sample {
                name: DEFAULT.into(),
                outcome: crate::case::Outcome::Measured,
                rounds: vec![0; seconds.len()],
                seconds,
                invalid_rounds: Vec::new(),
            }],
        }
    }

    fn options() -> Options {
        Options {
            alpha: 0.05,
            test: Test::Mwu,
            correction: Correction::None,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: DEFAULT_MARGIN,
            qmax: crate::analyse::DEFAULT_QMAX,
            timer_resolution_s: 0.0,
            fail_on: None,
        }
    }

    fn around(center: f64) -> Vec<f64> {
        (0..40).map(|i| center * (1.0 + 0.001 * i as f64)).collect()
    }

    #[test]
    fn finds_a_larger_size_that_is_faster() {
        let cases = vec![
            case(8, around(10e-6)),
            case(16, around(5e-6)),
            case(32, around(6e-6)),
        ];
        let g = check(&cases, &options());
        assert_eq!(g.monotony.len(), 2);
        assert_eq!(
            g.monotony[0].severity,
            Severity::MediumHigh,
            "{:?}",
            g.monotony[0]
        );
        assert_eq!(g.monotony[1].severity, Severity::Ok);
    }

    #[test]
    fn split_robustness_reports_the_largest_violating_smaller_size() {
        // 1024 B takes 100 µs, but 4 × 256 B take 8 µs and 2 × 512 B take 60 µs.
        let cases = vec![
            case(256, around(2e-6)),
            case(512, around(30e-6)),
            case(1024, around(100e-6)),
        ];
        let g = check(&cases, &options());
        let at_1024: Vec<_> = g
            .split_robustness
            .iter()
            .filter(|f| f.key.size_bytes == 1024)
            .collect();
        assert_eq!(at_1024.len(), 1);
        assert_eq!(at_1024[0].other_size_bytes, 512);
        assert_eq!(at_1024[0].k, Some(2));
        let tolerant = vec![case(256, around(10e-6)), case(1024, around(41e-6))];
        assert!(
            check(&tolerant, &options()).split_robustness.is_empty(),
            "within 5 %"
        );
    }
}
