//! PGMPI's universal guidelines, read from `default`'s data: monotony (more
//! data must not be faster) and split-robustness (one message of m_j must
//! not be slower than k = ⌈m_j/m_i⌉ messages of m_i, 5 % tolerance).
//!
//! Sizes measured in different cases are measured at different times, so a
//! drift of the machine between them looks like a violation: such findings
//! are reported (p-values corrected within each series) but do not count for
//! `--fail-on`. With `--universal shared` every case also times the library's
//! call at the next smaller size of its series in its own rounds; findings
//! against that sample use the test in force (paired where it is) and count.

use super::defaults::{measured_default, Defaults};
use super::{compare, CaseData, CaseKey, Options, Sample, Severity, Test};
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
    /// Whether both sizes were measured in the same rounds
    /// (`--universal shared`): only then does the finding count for
    /// `--fail-on`.
    #[serde(default)]
    pub shared_rounds: bool,
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
    /// The worst severity of the findings from shared rounds: those of
    /// sizes measured apart may be a drift of the machine between them.
    pub fn worst_shared(&self) -> Severity {
        self.monotony
            .iter()
            .chain(&self.split_robustness)
            .filter(|f| f.shared_rounds)
            .map(|f| f.severity)
            .max()
            .unwrap_or(Severity::Ok)
    }
}

/// The series of cases with a measured `default` over sizes, per
/// (collective, datatype, op, root), smallest size first: indices into
/// `defaults`, the first case of each size.
fn series<D: Defaults + ?Sized>(defaults: &D) -> Vec<Vec<usize>> {
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for case in (0..defaults.cases()).filter(|&c| defaults.measured(c)) {
        let key = defaults.key(case);
        match groups
            .iter_mut()
            .find(|g| defaults.key(g[0]).same_series(key))
        {
            Some(group) => group.push(case),
            None => groups.push(vec![case]),
        }
    }
    for group in &mut groups {
        group.sort_by_key(|&c| defaults.key(c).size_bytes);
        group.dedup_by_key(|c| defaults.key(*c).size_bytes);
    }
    groups
}

fn scaled(sample: &Sample, factor: f64) -> Sample {
    Sample {
        seconds: sample.seconds.iter().map(|s| s * factor).collect(),
        ..sample.clone()
    }
}

/// `default`'s sample at `size_bytes` from `large`'s own rounds, if it was
/// measured there, with the test in force (paired where it is).
fn shared<'a>(
    large: &'a CaseData,
    size_bytes: u64,
    options: &Options,
) -> Option<(&'a Sample, Test)> {
    match &large.smaller {
        Some(shared) if shared.size_bytes == size_bytes && !shared.sample.seconds.is_empty() => {
            Some((&shared.sample, options.test))
        }
        _ => None,
    }
}

/// `default`'s sample of a case of a series.
fn measured(case: &CaseData) -> &Sample {
    measured_default(case).expect("a series holds cases with a measured default")
}

/// Checks both guidelines on every series.
pub fn check<D: Defaults + ?Sized>(defaults: &D, options: &Options) -> Guidelines {
    let mut guidelines = Guidelines::default();
    for group in series(defaults) {
        let found = check_group(defaults, &group, options);
        guidelines.monotony.extend(found.monotony);
        guidelines.split_robustness.extend(found.split_robustness);
    }
    guidelines
}

/// Checks both guidelines on the series of `key`, as [`check`] does: the
/// findings of the other series do not depend on it.
pub fn check_series<D: Defaults + ?Sized>(
    defaults: &D,
    key: &CaseKey,
    options: &Options,
) -> Guidelines {
    series(defaults)
        .into_iter()
        .find(|g| defaults.key(g[0]).same_series(key))
        .map(|group| check_group(defaults, &group, options))
        .unwrap_or_default()
}

/// Checks one series, reading at most two cases' samples at a time.
fn check_group<D: Defaults + ?Sized>(
    defaults: &D,
    group: &[usize],
    options: &Options,
) -> Guidelines {
    let mut guidelines = Guidelines::default();
    for pair in group.windows(2) {
        let small_size = defaults.key(pair[0]).size_bytes;
        let large_case = defaults.load(pair[1]);
        let large = measured(&large_case);
        let apart;
        let (small, test, shared_rounds) = match shared(&large_case, small_size, options) {
            Some((small, test)) => (small, test, true),
            None => {
                apart = defaults.load(pair[0]);
                (measured(&apart), options.test.unpaired(), false)
            }
        };
        let (small_median, large_median) = (
            describe::median(&small.seconds),
            describe::median(&large.seconds),
        );
        // Medians the timer cannot resolve decide nothing (`super::timer`).
        if super::timer::bound([small_median, large_median], options.timer_resolution_s) {
            continue;
        }
        // Violated when the larger size is significantly faster.
        let p_value = compare(small, large, test).p_value;
        let ratio = small_median / large_median;
        guidelines.monotony.push(Finding {
            key: large_case.key.clone(),
            other_size_bytes: small_size,
            k: None,
            median_s: large_median,
            bound_s: small_median,
            ratio,
            p_value,
            severity: Severity::Ok,
            shared_rounds,
        });
    }
    // Holm within the series' monotony pairs.
    let raw: Vec<f64> = guidelines.monotony.iter().map(|f| f.p_value).collect();
    for (finding, adjusted) in guidelines.monotony.iter_mut().zip(correction::holm(&raw)) {
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
    for (j, &large_index) in group.iter().enumerate() {
        let large_case = defaults.load(large_index);
        let large = measured(&large_case);
        let large_median = describe::median(&large.seconds);
        // The largest smaller size that violates, searched from the largest down.
        let violation = group[..j].iter().rev().find_map(|&small_index| {
            let size = defaults.key(small_index).size_bytes;
            let apart;
            let (small, test, shared_rounds) = match shared(&large_case, size, options) {
                Some((small, test)) => (small, test, true),
                None => {
                    apart = defaults.load(small_index);
                    (measured(&apart), options.test.unpaired(), false)
                }
            };
            let small_median = describe::median(&small.seconds);
            if super::timer::bound([small_median, large_median], options.timer_resolution_s) {
                return None;
            }
            let k = large_case.key.size_bytes.div_ceil(size.max(1));
            let bound = scaled(small, k as f64 * SPLIT_TOLERANCE);
            let bound_median = describe::median(&bound.seconds);
            let ratio = large_median / bound_median;
            let p_value = (compare(large, &bound, test).p_value * comparisons as f64).min(1.0);
            (ratio > 1.0 && p_value < options.alpha).then(|| Finding {
                key: large_case.key.clone(),
                other_size_bytes: size,
                k: Some(k),
                median_s: large_median,
                bound_s: bound_median,
                ratio,
                p_value,
                severity: Severity::of_slowdown(ratio),
                shared_rounds,
            })
        });
        guidelines.split_robustness.extend(violation);
    }
    guidelines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{Correction, Outliers, Test, DEFAULT_MARGIN};
    use crate::candidates::native::DEFAULT;
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
            smaller: None,
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
        let cases = [
            case(8, around(10e-6)),
            case(16, around(5e-6)),
            case(32, around(6e-6)),
        ];
        let g = check(&cases[..], &options());
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
        let cases = [
            case(256, around(2e-6)),
            case(512, around(30e-6)),
            case(1024, around(100e-6)),
        ];
        let g = check(&cases[..], &options());
        let at_1024: Vec<_> = g
            .split_robustness
            .iter()
            .filter(|f| f.key.size_bytes == 1024)
            .collect();
        assert_eq!(at_1024.len(), 1);
        assert_eq!(at_1024[0].other_size_bytes, 512);
        assert_eq!(at_1024[0].k, Some(2));
        let tolerant = [case(256, around(10e-6)), case(1024, around(41e-6))];
        assert!(
            check(&tolerant[..], &options()).split_robustness.is_empty(),
            "within 5 %"
        );
    }

    /// `case` with its 40 observations in 10 rounds.
    fn in_rounds(size: u64, seconds: Vec<f64>) -> CaseData {
        let mut c = case(size, seconds);
        c.samples[0].rounds = (0..40).map(|i| i / 4).collect();
        c
    }

    #[test]
    fn a_smaller_size_from_shared_rounds_is_compared_in_pairs_and_counts() {
        // Apart, 16 B looks faster than 8 B; in 16 B's own rounds 8 B is
        // faster still: a drift between the cases, not a violation.
        let mut large = in_rounds(16, around(5e-6));
        large.smaller = Some(crate::case::Smaller {
            size_bytes: 8,
            sample: in_rounds(8, around(4e-6)).samples.remove(0),
        });
        let options = Options {
            test: Test::Paired,
            ..options()
        };
        let small = in_rounds(8, around(10e-6));
        let apart = check(&[small.clone(), in_rounds(16, around(5e-6))][..], &options);
        assert!(!apart.monotony[0].shared_rounds);
        assert_ne!(apart.monotony[0].severity, Severity::Ok);
        assert_eq!(apart.worst_shared(), Severity::Ok, "apart never gates");
        let shared = check(&[small.clone(), large.clone()][..], &options);
        assert!(shared.monotony[0].shared_rounds);
        assert_eq!(shared.monotony[0].severity, Severity::Ok);
        // A shared violation gates.
        large.smaller.as_mut().unwrap().sample.seconds = around(10e-6);
        let violated = check(&[small, large][..], &options);
        assert_eq!(violated.worst_shared(), Severity::MediumHigh);
    }
}
