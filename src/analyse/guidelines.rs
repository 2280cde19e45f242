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
use super::rounds::Shape;
use super::{compare, compare_rounds, CaseKey, Options, Sample, Severity, Test};
use crate::stats::correction;
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

/// One sample a guideline compares: `default`'s in a case, or the smaller
/// size's measured in a case's own rounds.
#[derive(Clone, Copy)]
enum Which {
    Default(usize),
    Smaller(usize),
}

impl Which {
    /// Its summary: the series' medians and the round tests need no more.
    fn shape<D: Defaults + ?Sized>(self, defaults: &D) -> Shape {
        match self {
            Which::Default(case) => defaults.default_shape(case),
            Which::Smaller(case) => defaults.smaller_shape(case).map(|(_, s)| s),
        }
        .expect("a series holds measured samples")
    }

    /// Its observations, read back for the tests on all of them.
    fn sample<D: Defaults + ?Sized>(self, defaults: &D) -> Sample {
        match self {
            Which::Default(case) => measured_default(&defaults.load(case))
                .expect("a series holds cases with a measured default")
                .clone(),
            Which::Smaller(case) => defaults
                .load(case)
                .smaller
                .as_ref()
                .expect("a shared smaller size")
                .sample
                .clone(),
        }
    }
}

/// `default`'s sample at `size_bytes` from the case `large`'s own rounds,
/// if it was measured there, with the test in force (paired where it is);
/// else `default`'s sample of the case `small` with the unpaired test.
fn smaller<D: Defaults + ?Sized>(
    defaults: &D,
    large: usize,
    small: usize,
    options: &Options,
) -> (Which, Test, bool) {
    let size_bytes = defaults.key(small).size_bytes;
    match defaults.smaller_shape(large) {
        Some((size, _)) if size == size_bytes => (Which::Smaller(large), options.test, true),
        _ => (Which::Default(small), options.test.unpaired(), false),
    }
}

/// The one-sided p-value of "x is slower than y times `factor`": from the
/// kept per-round middles for the round tests, else from the observations.
fn p_value<D: Defaults + ?Sized>(
    defaults: &D,
    (x, x_shape): (Which, &Shape),
    (y, y_shape): (Which, &Shape),
    factor: f64,
    test: Test,
) -> f64 {
    match test {
        Test::Rounds | Test::Paired | Test::Sign => {
            compare_rounds(&x_shape.rounds, &y_shape.rounds.scaled(factor), test).p_value
        }
        Test::Mwu | Test::Welch | Test::Ks => {
            let y = y.sample(defaults);
            let y = if factor == 1.0 { y } else { scaled(&y, factor) };
            compare(&x.sample(defaults), &y, test).p_value
        }
    }
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

/// Checks one series from the kept summaries of its samples, reading at
/// most two cases' observations at a time for the tests on all of them.
fn check_group<D: Defaults + ?Sized>(
    defaults: &D,
    group: &[usize],
    options: &Options,
) -> Guidelines {
    let shapes: Vec<Shape> = group
        .iter()
        .map(|&c| Which::Default(c).shape(defaults))
        .collect();
    Guidelines {
        monotony: monotony(defaults, group, &shapes, options),
        split_robustness: split_robustness(defaults, group, &shapes, options),
    }
}

/// Monotony between each size of a series and the next, with Holm's
/// correction within the series: violated when the larger size is
/// significantly faster.
fn monotony<D: Defaults + ?Sized>(
    defaults: &D,
    group: &[usize],
    shapes: &[Shape],
    options: &Options,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (pair, pair_shapes) in group.windows(2).zip(shapes.windows(2)) {
        let small_size = defaults.key(pair[0]).size_bytes;
        let large = (Which::Default(pair[1]), &pair_shapes[1]);
        let (small, test, shared_rounds) = smaller(defaults, pair[1], pair[0], options);
        let small_shape = match small {
            Which::Smaller(_) => small.shape(defaults),
            Which::Default(_) => pair_shapes[0].clone(),
        };
        let (small_median, large_median) = (small_shape.median(), large.1.median());
        // Medians the timer cannot resolve decide nothing (`super::timer`).
        if super::timer::bound([small_median, large_median], options.timer_resolution_s) {
            continue;
        }
        let p_value = p_value(defaults, (small, &small_shape), large, 1.0, test);
        findings.push(Finding {
            key: defaults.key(pair[1]).clone(),
            other_size_bytes: small_size,
            k: None,
            median_s: large_median,
            bound_s: small_median,
            ratio: small_median / large_median,
            p_value,
            severity: Severity::Ok,
            shared_rounds,
        });
    }
    let raw: Vec<f64> = findings.iter().map(|f| f.p_value).collect();
    for (finding, adjusted) in findings.iter_mut().zip(correction::holm(&raw)) {
        finding.p_value = adjusted;
        finding.severity = if adjusted < options.alpha {
            Severity::of_slowdown(finding.ratio)
        } else {
            Severity::Ok
        };
    }
    findings
}

/// Split-robustness of each size of a series: the largest smaller size
/// that violates it, searched from the largest down, with Bonferroni's
/// correction over the series' comparisons (the search stops at the
/// first violation, so not every p-value is known).
fn split_robustness<D: Defaults + ?Sized>(
    defaults: &D,
    group: &[usize],
    shapes: &[Shape],
    options: &Options,
) -> Vec<Finding> {
    let comparisons = (group.len() * group.len().saturating_sub(1) / 2).max(1);
    let mut findings = Vec::new();
    for (j, &large_index) in group.iter().enumerate() {
        let large_key = defaults.key(large_index);
        let large = (Which::Default(large_index), &shapes[j]);
        let large_median = shapes[j].median();
        let violation =
            group[..j]
                .iter()
                .zip(shapes)
                .rev()
                .find_map(|(&small_index, small_shape)| {
                    let size = defaults.key(small_index).size_bytes;
                    let (small, test, shared_rounds) =
                        smaller(defaults, large_index, small_index, options);
                    let small_shape = match small {
                        Which::Smaller(_) => small.shape(defaults),
                        Which::Default(_) => small_shape.clone(),
                    };
                    let small_median = small_shape.median();
                    if super::timer::bound([small_median, large_median], options.timer_resolution_s)
                    {
                        return None;
                    }
                    let k = large_key.size_bytes.div_ceil(size.max(1));
                    let factor = k as f64 * SPLIT_TOLERANCE;
                    let bound_median = small_shape.all.scaled(factor).median();
                    let ratio = large_median / bound_median;
                    let p_value = (p_value(defaults, large, (small, &small_shape), factor, test)
                        * comparisons as f64)
                        .min(1.0);
                    (ratio > 1.0 && p_value < options.alpha).then(|| Finding {
                        key: large_key.clone(),
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
        findings.extend(violation);
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{CaseData, Correction, Outliers, Test, DEFAULT_MARGIN};
    use crate::candidates::native::DEFAULT;
    use crate::collective::Collective;
    use crate::element::{Datatype, Op};

    fn case(size: u64, seconds: Vec<f64>) -> CaseData {
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey {
                operation: Collective::Bcast.into(),
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
