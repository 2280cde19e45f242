//! One case's verdict: each competitor against `default`, by the test the
//! options choose, its severity and the case's conclusion.

use super::rounds::{Middles, Shape};
use super::*;
use crate::candidates::native::DEFAULT;
use crate::case::Overlapped;
use crate::stats::describe::{self, Selected, Statistic};
use crate::stats::{self, correction, mann_whitney, power, Alternative};
use std::borrow::Cow;
use std::cmp::Ordering;

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

/// The summary of one candidate, without the comparison with `default`;
/// `selected` holds its observations' quartiles if measured. Its latency
/// weighs the rounds by the case's common `weights`
/// ([`rounds::common_weights`]), by its own counts where no round weighs
/// anything there.
fn summarise(
    sample: &Sample,
    (rounds, weights): (&RoundMedians, &[(u32, usize)]),
    selected: Option<&Selected>,
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
        .then(|| selected.map(Selected::quartiles))
        .flatten();
    let round_medians_s = match measured {
        true => rounds.medians(),
        false => Vec::new(),
    };
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
        round_median_s: measured
            .then(|| {
                rounds
                    .weighted_median_in(weights)
                    .or_else(|| rounds.weighted_median())
            })
            .flatten(),
        round_median_log_se: measured.then(|| rounds.log_median_se()).flatten(),
        round_medians_s,
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

pub(super) fn verdict(case: &CaseData, options: &Options) -> Verdict {
    decide(case, options).0
}

/// The verdict of `case` without its disturbed rounds ([`disturbed`]),
/// the shape of its `default` sample ([`verdict_and_default_shape`]), and
/// the case as decided: what the universal guidelines and a baseline
/// compare.
pub(super) fn decide<'a>(
    case: &'a CaseData,
    options: &Options,
) -> (Verdict, Option<Shape>, Cow<'a, CaseData>) {
    // Each sample's rounds once: finding the disturbed ones and, where none
    // is set aside, every comparison of the verdict take them.
    let rounds: Vec<RoundMedians> = case.samples.iter().map(RoundMedians::of).collect();
    let (kept, disturbance) = disturbed::set_aside(case, &rounds);
    let rounds = disturbance.is_none().then_some(rounds);
    let (mut verdict, shape) = verdict_and_default_shape(&kept, options, rounds);
    verdict.disturbed = disturbance;
    verdict.overlap = overlap(&kept, &verdict);
    verdict.state = super::state::split(&kept, &verdict, options);
    (verdict, shape, kept)
}

/// A nonblocking case's overlap: `default`'s median against the overlapped
/// call's (each the median of its per-round medians), with the computation
/// between them; and its quartiles round by round, where there are at
/// least 4 rounds with both.
fn overlap(case: &CaseData, verdict: &Verdict) -> Option<Overlap> {
    let overlapped = case.overlapped.as_ref()?;
    let pure_s = verdict.default_candidate()?.round_median_s?;
    let with = RoundMedians::of(&overlapped.sample);
    let overlapped_median_s = with.weighted_median()?;
    let percent =
        |pure_s, both_s| 100.0 * Overlapped::overlap(pure_s, overlapped.compute_s, both_s);
    let by_round: Vec<f64> = case
        .samples
        .iter()
        .find(|s| s.name == DEFAULT)
        .map(|alone| {
            let (pure, both) = RoundMedians::of(alone).paired(&with);
            pure.into_iter()
                .zip(both)
                .map(|(p, b)| percent(p, b))
                .collect()
        })
        .unwrap_or_default();
    let by_round_percent = (by_round.len() >= 4)
        .then(|| describe::quartiles(&by_round))
        .flatten()
        .map(|[low, _, high]| [low, high]);
    Some(Overlap {
        compute_s: overlapped.compute_s,
        overlapped_median_s,
        percent: percent(pure_s, overlapped_median_s),
        by_round_percent,
    })
}

/// The verdict of `case` as it is (`rounds`: its samples' rounds, if
/// already summarised), and the shape of its (first) `default` sample as
/// the verdict selected it: what [`Decisions`] keeps of it need not be
/// selected again. None when the outlier filter dropped some of its
/// observations or its selection cannot give it ([`Middles::of_selected`]).
fn verdict_and_default_shape(
    case: &CaseData,
    options: &Options,
    rounds: Option<Vec<RoundMedians>>,
) -> (Verdict, Option<Shape>) {
    let Filtered {
        samples,
        selected,
        removed,
        fits,
        whole,
    } = filtered(case, options);
    let mut rounds = rounds_of(&samples, rounds, &whole);
    let weights = rounds::common_weights(&rounds);
    let mut candidates: Vec<CandidateSummary> = samples
        .iter()
        .zip(&rounds)
        .zip(&selected)
        .zip(removed)
        .zip(fits)
        .map(|((((sample, rounds), selected), removed), fit)| {
            summarise(sample, (rounds, &weights), selected.as_ref(), removed, fit)
        })
        .collect();
    let (default, compared) = default_and_compared(&samples, &candidates);
    let timer_bound = default.is_some()
        && timer::bound(
            default
                .iter()
                .chain(&compared)
                .filter_map(|&c| candidates[c].round_median_s),
            options.timer_resolution_s,
        );
    if let Some(d) = default {
        let tested = Tested {
            samples: &samples,
            rounds: &rounds,
            weights: &weights,
            default: d,
            compared: &compared,
        };
        compare_with_default(&mut candidates, &tested, options);
    }
    adjust(&mut candidates, &compared, timer_bound, options);
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
        disturbed: None,
        overlap: None,
        state: None,
    };
    settle(&mut verdict, options);
    let default_shape = case
        .samples
        .iter()
        .position(|s| s.name == DEFAULT)
        .filter(|&d| whole[d])
        .and_then(|d| {
            let all = Middles::of_selected(selected[d].as_ref()?)?;
            let rounds = std::mem::take(&mut rounds[d]);
            Some(Shape { all, rounds })
        });
    (verdict, default_shape)
}

/// Each candidate's rounds once, for every comparison that follows: as
/// `given` for the samples the filter left whole.
fn rounds_of(
    samples: &[Cow<Sample>],
    given: Option<Vec<RoundMedians>>,
    whole: &[bool],
) -> Vec<RoundMedians> {
    match given {
        Some(given) => samples
            .iter()
            .zip(given)
            .zip(whole)
            .map(|((sample, given), &whole)| match whole {
                true => given,
                false => RoundMedians::of(sample),
            })
            .collect(),
        None => samples.iter().map(|s| RoundMedians::of(s)).collect(),
    }
}

/// `default`'s index where it has a median, and the competitors with one
/// beside it (none without `default`).
fn default_and_compared(
    samples: &[Cow<Sample>],
    candidates: &[CandidateSummary],
) -> (Option<usize>, Vec<usize>) {
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
    (default, compared)
}

/// A case's samples after the outlier filter, with what was found on the
/// way, one entry per sample.
struct Filtered<'c> {
    samples: Vec<Cow<'c, Sample>>,
    /// Its quartiles (and, where whole, its usual time's quantile).
    selected: Vec<Option<Selected>>,
    /// How many observations the filter dropped.
    removed: Vec<usize>,
    /// The usual-time fit, from the sample before filtering.
    fits: Vec<Option<UsualTime>>,
    /// Whether the filter left the sample whole.
    whole: Vec<bool>,
}

/// The samples of `case` through `options.outliers`' filter.
fn filtered<'c>(case: &'c CaseData, options: &Options) -> Filtered<'c> {
    // Each measured candidate's order statistics once: its quartiles and
    // its usual time's empirical q_max quantile.
    let statistics = [
        Statistic::Quantile(0.25),
        Statistic::Median,
        Statistic::Quantile(0.75),
        Statistic::Quantile(options.qmax),
    ];
    let selected: Vec<Option<Selected>> = case
        .samples
        .iter()
        .map(|s| match s.outcome {
            Outcome::Measured => Selected::of(&s.seconds, &statistics),
            _ => None,
        })
        .collect();
    let mut samples: Vec<Cow<Sample>> = case.samples.iter().map(Cow::Borrowed).collect();
    let fits: Vec<Option<UsualTime>> = samples
        .iter()
        .zip(&selected)
        .map(|(s, selected)| {
            usual::of(
                s,
                selected.as_ref(),
                options.timer_resolution_s,
                options.qmax,
            )
        })
        .collect();
    let mut removed = vec![0; samples.len()];
    for ((sample, removed), fit) in samples.iter_mut().zip(&mut removed).zip(&fits) {
        *removed = match (options.outliers, fit) {
            (Outliers::None, _) | (Outliers::Tmax, None) => 0,
            (Outliers::Tukey, _) => filter_outliers(sample.to_mut()),
            (Outliers::Tmax, Some(fit)) => usual::drop_above_tmax(sample.to_mut(), &fit.fit),
        };
    }
    // A filter only drops observations: a sample as long as before is the
    // same observations, whose order statistics and rounds stay.
    let whole: Vec<bool> = samples
        .iter()
        .zip(&case.samples)
        .map(|(kept, original)| kept.seconds.len() == original.seconds.len())
        .collect();
    let selected: Vec<Option<Selected>> = selected
        .into_iter()
        .zip(&samples)
        .zip(&whole)
        .map(|((selected, sample), &whole)| match whole {
            true => selected,
            false => Selected::of(&sample.seconds, &describe::QUARTILES),
        })
        .collect();
    Filtered {
        samples,
        selected,
        removed,
        fits,
        whole,
    }
}

/// What `default` is compared with: every sample and its rounds, which
/// one is `default`, and the competitors measured beside it.
struct Tested<'t, 'c> {
    samples: &'t [Cow<'c, Sample>],
    rounds: &'t [RoundMedians],
    /// The case's common round weights ([`rounds::common_weights`]).
    weights: &'t [(u32, usize)],
    default: usize,
    compared: &'t [usize],
}

/// Each compared competitor's slowdown, one-sided p-values against the
/// margin (violated; equivalent or slower) and sensitivity.
fn compare_with_default(candidates: &mut [CandidateSummary], tested: &Tested, options: &Options) {
    let d = tested.default;
    let threshold = options
        .correction
        .first_threshold(options.alpha, tested.compared.len());
    let default_median = candidates[d].round_median_s.expect("measured");
    for &c in tested.compared {
        let (xs, ys) = tested_values(
            (&tested.samples[d], &tested.rounds[d]),
            (&tested.samples[c], &tested.rounds[c]),
            options.test,
        );
        let p = |x: &[f64], y: &[f64], alternative| {
            test_values(options.test, x, y, alternative).p_value
        };
        let summary = &mut candidates[c];
        let median = summary.round_median_s.expect("measured");
        // Paired, the slowdown is what the test tests: the median of the
        // rounds' ratios. The ratio of the two medians swung between 1.00
        // and 1.17 for identical calls whose rounds split between two
        // states of the machine (each median fell in either state).
        let paired = match options.test {
            Test::Paired | Test::Sign => {
                tested.rounds[d].ratio_in(&tested.rounds[c], tested.weights)
            }
            _ => None,
        };
        summary.slowdown = Some(paired.unwrap_or(default_median / median));
        summary.below_noise = (default_median - median).abs() < options.noise_floor_s;
        // Default's rounds divided by the margin: "more than the margin
        // slower" and "less than the margin slower" are the two sides of
        // one boundary.
        let at_margin = |x: &[f64]| -> Vec<f64> { x.iter().map(|v| v / options.margin).collect() };
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

/// The compared competitors' p-values corrected for their number, and
/// which are significant: below alpha, slower than the margin, and timed
/// by a timer that resolves them.
fn adjust(
    candidates: &mut [CandidateSummary],
    compared: &[usize],
    timer_bound: bool,
    options: &Options,
) {
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
}

/// `x` against `y`, where they differ by more than `within`; else
/// `tie`. Medians equal at the timer's ticks differ by rounding alone,
/// which the raw files' picoseconds change: `analyze` must pick the
/// competitor `run` picked (by name, the same whatever the order).
fn same_or(x: f64, y: f64, within: f64, tie: impl Fn() -> Ordering) -> Ordering {
    match (x - y).abs() <= within {
        true => tie(),
        false => x.partial_cmp(&y).expect("numbers"),
    }
}

/// Fills in the severity, the competitor the case is summarised by, its
/// sensitivity and the conclusion from the candidates.
fn settle(verdict: &mut Verdict, options: &Options) {
    let by_median = |a: &&CandidateSummary, b: &&CandidateSummary| {
        let median = |c: &CandidateSummary| c.round_median_s.unwrap_or(f64::INFINITY);
        let (x, y) = (median(a), median(b));
        same_or(x, y, 1e-12, || a.name.cmp(&b.name))
    };
    let fastest = verdict.measured_competitors().min_by(by_median);
    // A case the timer cannot resolve is never violated nor shown to hold.
    let timer_bound = verdict.timer_bound;
    let worst = verdict
        .measured_competitors()
        .filter(|c| c.significant && !timer_bound)
        .max_by(|a, b| {
            let (x, y) = (a.slowdown.unwrap_or(0.0), b.slowdown.unwrap_or(0.0));
            same_or(x, y, 1e-9 * x.abs(), || b.name.cmp(&a.name))
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
    let (conclusion, reason) = conclusion(verdict, worst.is_some(), holds, options);
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

/// The case's conclusion from `default`'s outcome, whether a competitor
/// is significantly faster (`violated`) and whether every one was shown
/// equivalent or slower (`holds`), with why where it needs saying.
fn conclusion(
    verdict: &Verdict,
    violated: bool,
    holds: bool,
    options: &Options,
) -> (Conclusion, Option<String>) {
    match verdict.default_candidate() {
        Some(d) if d.outcome.is_wrong() => (
            Conclusion::LibraryWrong,
            d.outcome.reason().map(String::from),
        ),
        Some(d) if d.round_median_s.is_some() => match (violated, holds) {
            (true, _) => (Conclusion::Violated, None),
            (false, true) => (Conclusion::Holds, None),
            (false, false) => (
                Conclusion::Inconclusive,
                verdict.timer_bound.then(|| timer::reason(options)),
            ),
        },
        Some(d) => (
            Conclusion::Unmeasured,
            Some(d.outcome.reason().unwrap_or("not measured").to_string()),
        ),
        None => (Conclusion::Unmeasured, Some("not measured".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Medians that differ by rounding alone (CI: `run` and `analyze` of
    /// the same observations named different competitors) tie, and the
    /// name decides, whichever comes first.
    #[test]
    fn medians_within_a_picosecond_tie_and_the_name_decides() {
        let by_name = |a: &str, b: &str| a.cmp(b);
        let x = 1.234_000_000_000_1e-6;
        let y = 1.234_000_000_000_4e-6;
        assert_eq!(
            same_or(x, y, 1e-12, || by_name("b_user_op", "a_reduce_bcast")),
            Ordering::Greater
        );
        assert_eq!(
            same_or(y, x, 1e-12, || by_name("a_reduce_bcast", "b_user_op")),
            Ordering::Less
        );
        assert_eq!(
            same_or(1e-6, 2e-6, 1e-12, || Ordering::Equal),
            Ordering::Less
        );
    }
    use crate::analyse::defaults::Spilled;
    use crate::collective::Collective;
    use crate::meta::Meta;
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
            overlapped: None,
            calibration: None,
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

    /// 40 rounds of a call on a machine of two states, 0.9 and 1.5 µs,
    /// each time within 1 %: `round` says how many observations a round
    /// has and whether it ran in the slow state.
    fn two_states(rng: &mut impl Rng, name: &str, round: impl Fn(u32) -> (usize, bool)) -> Sample {
        let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
        for r in 0..40u32 {
            let (n, slow) = round(r);
            let level = if slow { 1.5e-6 } else { 0.9e-6 };
            for _ in 0..n {
                seconds.push(level * (1.0 + 0.01 * rng.gen::<f64>()));
                rounds.push(r);
            }
        }
        Sample {
            name: name.into(),
            outcome: Outcome::Measured,
            seconds,
            rounds,
            invalid_rounds: Vec::new(),
        }
    }

    #[test]
    fn identical_candidates_read_alike_whatever_their_observations_per_round() {
        // A/A on a machine with two states: 19 rounds at 0.9 µs, then 21
        // at 1.5 µs, every candidate alike within 1 %. `default`'s slots
        // kept 50 observations a round in the fast state and 500 in the
        // slow one, the copy's the other way round (as roundtime's slots
        // do, candidate by candidate). Weighted by their own counts the
        // two read 1.5 and 0.9 µs, a slowdown of 1.67 beside a verdict of
        // *holds*; weighted alike, the same rounds decide both.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        let mut sample_of = |name: &str, fast: usize, slow: usize| {
            two_states(&mut rng, name, |round| match round < 19 {
                true => (fast, false),
                false => (slow, true),
            })
        };
        let case = CaseData {
            samples: vec![sample_of(DEFAULT, 50, 500), sample_of("copy", 500, 50)],
            ..case(vec![], vec![])
        };
        let v = verdict(&case, &options(Test::Paired));
        let slowdown = v.slowdown.expect("compared");
        assert!((slowdown - 1.0).abs() < 0.02, "{slowdown}: {v:?}");
        assert_eq!(v.conclusion, Conclusion::Holds, "{v:?}");
        let medians: Vec<f64> = v
            .candidates
            .iter()
            .filter_map(|c| c.round_median_s)
            .collect();
        assert!((medians[0] / medians[1] - 1.0).abs() < 0.02, "{medians:?}");
    }

    #[test]
    fn the_paired_slowdown_is_the_median_of_the_rounds_ratios() {
        // Identical calls on a machine whose rounds split evenly between
        // 0.9 and 1.5 µs, but round 0 was slow for `default` alone and
        // round 1 fast for the copy alone: `default`'s median falls in the
        // slow state, the copy's in the fast one, a ratio of medians of
        // 1.67, while 38 of 40 rounds say 1.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
        let mut sample_of = |name: &str, slow: &dyn Fn(u32) -> bool| {
            two_states(&mut rng, name, |round| (100, slow(round)))
        };
        let case = CaseData {
            samples: vec![
                sample_of(DEFAULT, &|r| r % 2 == 1 || r == 0),
                sample_of("copy", &|r| r % 2 == 1 && r != 1),
            ],
            ..case(vec![], vec![])
        };
        let paired = verdict(&case, &options(Test::Paired));
        let slowdown = paired.slowdown.expect("compared");
        assert!((slowdown - 1.0).abs() < 0.01, "{slowdown}: {paired:?}");
        assert_eq!(paired.conclusion, Conclusion::Holds, "{paired:?}");
        // Unpaired, the slowdown stays the ratio of the medians.
        let unpaired = verdict(&case, &options(Test::Rounds));
        let medians: Vec<f64> = unpaired
            .candidates
            .iter()
            .filter_map(|c| c.round_median_s)
            .collect();
        assert!(medians[0] / medians[1] > 1.2, "{medians:?}");
        assert_eq!(unpaired.slowdown, Some(medians[0] / medians[1]));
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

    /// Each round's median is kept in round order, after the outlier
    /// filter, and the slowdowns' median of them is theirs; a candidate
    /// without observations keeps none.
    #[test]
    fn every_round_s_median_is_kept_in_round_order() {
        let default = sample(DEFAULT, vec![3.0, 1.0, 2.0, 10.0, 20.0, 30.0, 5.0], 3);
        let mut empty = sample("other", Vec::new(), 3);
        empty.invalid_rounds = vec![0, 1];
        let v = &verdicts(
            &[CaseData {
                overlapped: None,
                calibration: None,
                key: CaseKey::allreduce_bytes(8),
                samples: vec![default, empty],
                smaller: None,
            }],
            &options(Test::Rounds),
        )[0];
        // Rounds 0 0 0 1 1 2 2 (i * 3 / 7): medians 2, 15, 17.5.
        assert_eq!(v.candidates[0].round_medians_s, [2.0, 15.0, 17.5]);
        assert_eq!(v.candidates[0].round_median_s, Some(15.0));
        assert!(v.candidates[1].round_medians_s.is_empty());
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
                operation: collective.into(),
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
        // The outlier filters too: `default`'s shape is kept from its
        // verdict only when no observation was dropped (both happen here:
        // equal times are never outliers).
        cases[1].samples[0].seconds.fill(12e-6);
        for (test, outliers) in [
            (Test::Mwu, Outliers::None),
            (Test::Paired, Outliers::None),
            (Test::Rounds, Outliers::Tukey),
            (Test::Rounds, Outliers::Tmax),
        ] {
            let options = Options {
                outliers,
                timer_resolution_s: 1e-9,
                ..options(test)
            };
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
            let measured_defaults = at_once.checks.iter().map(|v| &v.candidates[0]);
            let removed: Vec<usize> = measured_defaults
                .filter(|d| d.n > 0)
                .map(|d| d.outliers_removed)
                .collect();
            if outliers != Outliers::None {
                assert!(
                    removed.contains(&0) && removed.iter().any(|&r| r > 0),
                    "{outliers:?}: {removed:?}"
                );
            }
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
