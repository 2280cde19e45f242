//! `default` compared launch against launch: the regression gate when the
//! baseline has several launches.
//!
//! Within one launch, observations are many and the test between two
//! samples is sharp; between launches, the placement, the clock and the
//! state of the machine change, and two launches of the same library
//! differ by more than their samples say. So each launch is reduced to
//! one number per case and candidate, its median of per-round medians, and
//! the model on their logarithms is additive:
//!
//!   ln median(launch l, case c, candidate j) = effect of (c, j)
//!                                            + effect of l (of l and c) + residual.
//!
//! - The launch effect (median over all cells of the launch's deviation
//!   from the cells' means) is the state of the machine in that launch. The
//!   new launch's effect, against the spread of the baseline launches'
//!   effects, is a *shift of the whole machine* (or of the whole library):
//!   reported once, never as ten regressions.
//! - `default` is compared through its ratio to the references measured
//!   in the same launch: the mean deviation of its case's competitors,
//!   of those that do not call its function where it has any (a regression
//!   of that function moves the others too), and a case without
//!   competitors: the median of every other cell within a factor of 8 in
//!   size, else the launch effect. The state of this machine does not
//!   move every size alike (one launch to the next: 32 KiB 2.5× faster,
//!   8 B unchanged), so one factor per launch would leave the sizes it
//!   fits worst flagged, and the cells of nearby sizes, moved by the state
//!   unlike the case, hid a 1.5× regression (found in 15 of 30 gate
//!   launches with them, 26 of 30 with the case's own competitors).
//! - That ratio's spread over the baseline launches is its variance
//!   between launches, moderated towards the variance all cases share
//!   ([`moderated`]): with three launches a case's own variance has two
//!   degrees of freedom, the moderated one more.
//! - A new launch whose rounds spread more than the baseline launches'
//!   did (a noisy launch) widens that interval by the difference: the
//!   spread of its per-round medians says how far its median may be off.
//! - The new launch's ratio is a regression when a one-sided t-test against
//!   the prediction interval of the baseline launches finds it larger by
//!   more than the tolerance, with Holm's correction across the compared
//!   cases.

use super::baseline::{
    slower_in_own_time, too_few_launches, Change, Comparison, Shift, LAUNCHES_NEEDED,
};
use super::{CaseKey, Correction, Options, Verdict};
use crate::candidates::native::DEFAULT;
use crate::stats::correction;
use crate::stats::describe::{mean, median, variance};
use crate::stats::moderated::{t_upper_quantile, t_upper_tail, Prior};

/// One launch of the baseline: its name and the verdicts of its cases
/// (each candidate's median of per-round medians is all that is read).
#[derive(Clone, Debug)]
pub struct Launch {
    pub name: String,
    /// `meta.start_time`, RFC 3339: the latest launch's verdicts are the
    /// ones violation changes compare with.
    pub start_time: String,
    pub checks: Vec<Verdict>,
    /// `meta.machine_state.calibration_s`, where the launch recorded it.
    pub calibration_s: Option<f64>,
}

/// The logarithm of the median of per-round medians of `candidate` in
/// `case`, if measured, and its standard error within the launch (0 when
/// unknown: a run written before it was recorded, or too few rounds).
fn log_median(checks: &[Verdict], key: &CaseKey, candidate: &str) -> Option<(f64, f64)> {
    let summary = checks
        .iter()
        .find(|v| &v.key == key)?
        .candidates
        .iter()
        .find(|c| c.name == candidate)?;
    let median = summary
        .round_median_s
        .filter(|m| m.is_finite() && *m > 0.0)?;
    let se = summary
        .round_median_log_se
        .filter(|se| se.is_finite())
        .unwrap_or(0.0);
    Some((median.ln(), se))
}

/// One case and candidate measured in every launch: the logarithms of its
/// medians in the baseline launches, and in the new one, with the
/// variance each launch's own rounds leave in them.
struct Cell {
    key: CaseKey,
    default: bool,
    /// A competitor that does not call `default`'s function
    /// ([`crate::candidates::independent_of_default`]).
    independent: bool,
    baseline: Vec<f64>,
    baseline_within: Vec<f64>,
    now: f64,
    now_within: f64,
    /// The rounds behind `now_within`: its degrees of freedom plus one.
    now_rounds: usize,
}

impl Cell {
    fn mean(&self) -> f64 {
        mean(&self.baseline)
    }
}

/// The cells every launch measured, in the new launch's order.
fn cells(baseline: &[Launch], current: &[Verdict]) -> Vec<Cell> {
    current
        .iter()
        .flat_map(|v| v.candidates.iter().map(move |c| (v, c)))
        .filter_map(|(v, c)| {
            let (now, now_se) = log_median(current, &v.key, &c.name)?;
            let (baseline, baseline_se): (Vec<f64>, Vec<f64>) = baseline
                .iter()
                .map(|l| log_median(&l.checks, &v.key, &c.name))
                .collect::<Option<Vec<_>>>()?
                .into_iter()
                .unzip();
            Some(Cell {
                key: v.key.clone(),
                default: c.name == DEFAULT,
                independent: crate::candidates::independent_of_default(&c.name),
                baseline,
                baseline_within: baseline_se.iter().map(|se| se * se).collect(),
                now,
                now_within: now_se * now_se,
                now_rounds: c.rounds,
            })
        })
        .collect()
}

/// log₂ of a size, 0 B counted as 1 B.
fn log2(bytes: u64) -> f64 {
    (bytes.max(1) as f64).log2()
}

/// The baseline launches made in the state of the machine the new launch
/// ran in (`now`, its calibration): those whose calibration is within
/// [`crate::meta::MachineState::CHANGE`] of it, where at least
/// [`LAUNCHES_NEEDED`] are, with the words that say so; else all of them.
/// One baseline launch in a slow state spreads every case's ratio, and a
/// 1.5× regression in a fast launch went unfound in 10 of 10 beside one.
pub fn in_state(baseline: &[Launch], now: Option<f64>) -> (Vec<Launch>, Vec<String>) {
    let change = crate::meta::MachineState::CHANGE;
    let states: Option<Vec<bool>> = baseline
        .iter()
        .map(|l| {
            let (then, now) = (l.calibration_s?, now?);
            Some(then.max(now) < change * then.min(now))
        })
        .collect();
    let Some(same) = states else {
        return (baseline.to_vec(), Vec::new());
    };
    let kept = same.iter().filter(|&&s| s).count();
    if kept < LAUNCHES_NEEDED || kept == baseline.len() {
        return (baseline.to_vec(), Vec::new());
    }
    let (judged, left): (Vec<_>, Vec<_>) = baseline.iter().zip(&same).partition(|(_, &s)| s);
    (
        judged.into_iter().map(|(l, _)| l.clone()).collect(),
        left.into_iter().map(|(l, _)| l.name.clone()).collect(),
    )
}

/// The words that begin the method when [`in_state`] left launches out.
pub fn in_state_words(judged: usize, left_out: &[String]) -> String {
    format!(
        "against the {judged} baseline launches made in this launch's state of the machine \
         (calibration within {}×); {} in another state left out ({})",
        crate::meta::MachineState::CHANGE,
        left_out.len(),
        left_out.join(", ")
    )
}

/// Compares `default` in `current` with two or more baseline launches (see
/// the module's model); the violation changes are left to the caller.
pub fn compare(
    baseline: &[Launch],
    current: &[Verdict],
    tolerance: f64,
    options: &Options,
) -> Comparison {
    compare_within(baseline, baseline, current, tolerance, options)
}

/// [`compare`] case by case against `baseline` (the launches in the new
/// launch's state, [`in_state`]), and the whole launch's shift against
/// `all` of them: a shift of the machine is what the other states are, and
/// leaving them out only takes the test's degrees of freedom (a 10× shift
/// read p = 0.027 against 3 of 6 launches, short of α = 0.01).
pub fn compare_within(
    all: &[Launch],
    baseline: &[Launch],
    current: &[Verdict],
    tolerance: f64,
    options: &Options,
) -> Comparison {
    let k = baseline.len();
    assert!(k >= 2, "the between-launch model needs two launches");
    let cells = cells(baseline, current);
    let effects = Effects::of(&cells, k);
    let threshold = (1.0 + tolerance).ln();
    let every_cell = self::cells(all, current);
    let shift = (!every_cell.is_empty())
        .then(|| Effects::of(&every_cell, all.len()).shift(threshold, options.alpha));
    let normalised = normalised(&cells, &effects);
    let df = (k - 1) as f64;
    let variances: Vec<f64> = normalised
        .iter()
        .map(|(_, then, _)| variance(then))
        .collect();
    let prior = Prior::estimate(&variances, df);
    // What one regression alone needs: Holm's first threshold.
    let first = options
        .correction
        .first_threshold(options.alpha, normalised.len());
    let mut changes: Vec<Change> = normalised
        .iter()
        .zip(&variances)
        .map(|((c, then, now), &own)| {
            let (variance, df) = prior.map_or((own, df), |p| p.moderate(own, df));
            change(
                c,
                (then, *now),
                (variance, df),
                effects.prediction,
                (threshold, first),
            )
        })
        .collect();
    let p_values: Vec<f64> = changes.iter().map(|c| c.p_value).collect();
    let adjusted = match options.correction {
        Correction::Holm => correction::holm(&p_values),
        Correction::None => p_values,
    };
    let ratios: Vec<f64> = changes.iter().map(|c| c.ratio).collect();
    let undecided = too_few_launches(k);
    for (i, (change, p)) in changes.iter_mut().zip(adjusted).enumerate() {
        change.p_adjusted = Some(p);
        let elsewhere: Vec<f64> = [&ratios[..i], &ratios[i + 1..]].concat();
        change.default_elsewhere = (!elsewhere.is_empty()).then(|| median(&elsewhere));
        change.regression = undecided.is_none()
            && p < options.alpha
            && change.normalised_ratio.is_some_and(|r| r > 1.0 + tolerance)
            && slower_in_own_time(change, shift.as_ref(), tolerance);
    }
    let names: Vec<&str> = baseline.iter().map(|l| l.name.as_str()).collect();
    let (only_in_baseline, only_in_current) = unmatched(baseline, current);
    Comparison {
        baseline: names.join(", "),
        launches: k,
        method: method(k, options.correction),
        undecided,
        tolerance,
        changes,
        shift,
        only_in_baseline,
        only_in_current,
        ..Comparison::default()
    }
}

/// How `default` was compared against `k` baseline launches, in words.
fn method(k: usize, correction: Correction) -> String {
    format!(
        "between launches: each case's median relative to its own competitors in the same \
         launch (those that do not call the library's function, where there are any), \
         against the spread of that ratio over {k} baseline launches (moderated t, \
         prediction interval widened by the new launch's own noise where it exceeds theirs), \
         {} across cases",
        match correction {
            Correction::Holm => "Holm's correction",
            Correction::None => "no correction",
        }
    )
}

/// The launch effects: each launch's median deviation from the cells'
/// means, robust to the few cells a regression moves.
struct Effects {
    /// Each baseline launch's.
    baseline: Vec<f64>,
    /// Their mean.
    usual: f64,
    /// The new launch's, from the usual.
    now: f64,
    /// The prediction interval's widening for one new launch of k + 1.
    prediction: f64,
}

impl Effects {
    fn of(cells: &[Cell], k: usize) -> Effects {
        let effect = |log: &dyn Fn(&Cell) -> f64| {
            let deviations: Vec<f64> = cells.iter().map(|c| log(c) - c.mean()).collect();
            median(&deviations)
        };
        let baseline: Vec<f64> = (0..k).map(|l| effect(&|c| c.baseline[l])).collect();
        let usual = mean(&baseline);
        Effects {
            now: effect(&|c| c.now) - usual,
            usual,
            prediction: (1.0 + 1.0 / k as f64).sqrt(),
            baseline,
        }
    }

    /// Whether the whole launch ran faster or slower than the baseline
    /// launches: its effect against their spread, two-sided.
    fn shift(&self, threshold: f64, alpha: f64) -> Shift {
        let k = self.baseline.len();
        let spread = variance(&self.baseline).sqrt() * self.prediction;
        let p_value = match spread {
            s if s > 0.0 => 2.0 * t_upper_tail(self.now.abs() / s, (k - 1) as f64),
            _ => f64::from(self.now == 0.0),
        }
        .min(1.0);
        Shift {
            factor: self.now.exp(),
            p_value,
            significant: p_value < alpha && self.now.abs() > threshold,
        }
    }
}

/// `default` of each case measured against the references of its own
/// launch, by their deviation from their usual. Its case's competitors,
/// measured in the same rounds, by their mean: each reads the same state
/// (the median of four, the mean of whichever two were in the middle,
/// spread 0.157 where their mean spread 0.111, docs/experiments.md); of those,
/// the ones that do not call `default`'s function where it has any (a
/// regression of that function moves the others with `default`: of
/// allreduce's nine in `competitors: all`, a slower `MPI_Allreduce` moves
/// the user-defined operator, the lane and hierarchical ones and the
/// duplicated and permuted communicators). A case without competitors:
/// every other cell within a factor of 8 in size, by their median (other
/// sizes, some moved by the state unlike the case); the launch's effect
/// where there are none. Per case: its cell, its log ratios in the
/// baseline launches, and now.
fn normalised<'c>(cells: &'c [Cell], effects: &Effects) -> Vec<(&'c Cell, Vec<f64>, f64)> {
    cells
        .iter()
        .filter(|c| c.default)
        .map(|c| {
            let own = |o: &&Cell| !o.default && o.key == c.key;
            let near = |o: &&Cell| {
                !(o.default && o.key == c.key)
                    && (log2(o.key.size_bytes) - log2(c.key.size_bytes)).abs() <= 3.0
            };
            let mut references: Vec<&Cell> = cells.iter().filter(own).collect();
            let centre: fn(&[f64]) -> f64 = match references.is_empty() {
                true => median,
                false => mean,
            };
            if references.iter().any(|o| o.independent) {
                references.retain(|o| o.independent);
            }
            if references.is_empty() {
                references = cells.iter().filter(near).collect();
            }
            let reference = |log: &dyn Fn(&Cell) -> f64, effect: f64| match references.len() {
                0 => effect,
                _ => {
                    let deviations: Vec<f64> =
                        references.iter().map(|o| log(o) - o.mean()).collect();
                    centre(&deviations)
                }
            };
            let then: Vec<f64> = (0..effects.baseline.len())
                .map(|l| c.baseline[l] - reference(&|o| o.baseline[l], effects.baseline[l]))
                .collect();
            let now = c.now - reference(&|o| o.now, effects.now + effects.usual);
            (c, then, now)
        })
        .collect()
}

/// One case's change: its normalised log ratio now (`ratios.1`) against
/// the baseline launches' (`ratios.0`), whose (moderated) variance and
/// degrees of freedom are `spread`, one-sided beyond the tolerance's
/// log `thresholds.0`; and the smallest ratio a p-value below
/// `thresholds.1` needs.
fn change(
    c: &Cell,
    ratios: (&[f64], f64),
    spread: (f64, f64),
    prediction: f64,
    thresholds: (f64, f64),
) -> Change {
    let (threshold, first) = thresholds;
    let ((then, now), (variance, df)) = (ratios, spread);
    let excess = now - mean(then);
    // The baseline launches' spread holds their own rounds' noise; a new
    // launch noisier than they were adds the difference (a noisy launch's
    // median can be off by more than launches usually differ, and must not
    // read as a regression).
    let noisier = (c.now_within - mean(&c.baseline_within)).max(0.0);
    let between = variance * prediction * prediction;
    let se = (between + noisier).sqrt();
    // The two parts are estimated from different samples (the baseline
    // launches, the new launch's rounds): their sum has the
    // Welch–Satterthwaite degrees of freedom, not the few of the launches
    // alone, which made a 10× regression in a noisy launch unprovable.
    let rounds_df = c.now_rounds.saturating_sub(1) as f64;
    let df = match noisier > 0.0 && rounds_df > 0.0 {
        true => (between + noisier).powi(2) / (between.powi(2) / df + noisier.powi(2) / rounds_df),
        false => df,
    };
    let p_value = match se {
        se if se > 0.0 => t_upper_tail((excess - threshold) / se, df),
        _ => f64::from(excess <= threshold),
    };
    let detectable = (threshold + t_upper_quantile(first, df) * se).exp();
    Change {
        key: c.key.clone(),
        baseline_median_s: c.mean().exp(),
        median_s: c.now.exp(),
        ratio: (c.now - c.mean()).exp(),
        normalised_ratio: Some(excess.exp()),
        p_value,
        p_adjusted: None,
        regression: false,
        detectable: Some(detectable),
        default_elsewhere: None,
    }
}

/// The cases of the latest baseline launch that this launch lacks, and
/// those no baseline launch has.
fn unmatched(baseline: &[Launch], current: &[Verdict]) -> (Vec<CaseKey>, Vec<CaseKey>) {
    let only_in_current = current
        .iter()
        .filter(|v| {
            !baseline
                .iter()
                .any(|l| l.checks.iter().any(|b| b.key == v.key))
        })
        .map(|v| v.key.clone())
        .collect();
    let latest = baseline
        .iter()
        .max_by(|a, b| a.start_time.cmp(&b.start_time));
    let only_in_baseline = latest
        .map(|l| {
            l.checks
                .iter()
                .filter(|b| !current.iter().any(|v| v.key == b.key))
                .map(|b| b.key.clone())
                .collect()
        })
        .unwrap_or_default();
    (only_in_baseline, only_in_current)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::report::fixture;
    use rand::{Rng, SeedableRng};

    const SIZES: [u64; 10] = [8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

    /// One launch of allreduce at every size of [`SIZES`]: `case(size)`
    /// gives `default`'s median and each competitor's, in µs.
    fn launch_of(mut case: impl FnMut(u64) -> (f64, Vec<(&'static str, f64)>)) -> Vec<Verdict> {
        SIZES
            .iter()
            .map(|&size| {
                let (default_us, competitors) = case(size);
                let competitors: Vec<(&str, f64, f64)> = competitors
                    .into_iter()
                    .map(|(name, us)| (name, us, 0.5))
                    .collect();
                fixture::check(
                    Collective::Allreduce,
                    size,
                    0,
                    default_us,
                    &competitors,
                    vec![],
                )
            })
            .collect()
    }

    /// One launch: in every case `default` and two competitors, their
    /// medians scaled by the machine's state `machine`, each cell by a
    /// random factor of spread `sigma` (log scale), and `default` at the
    /// size of `slow` by its factor.
    fn launch(
        rng: &mut impl Rng,
        machine: f64,
        sigma: f64,
        slow: Option<(u64, f64)>,
    ) -> Vec<Verdict> {
        let mut noise = || (sigma * normal(rng)).exp();
        launch_of(|size| {
            let base = (1.0 + size as f64 / 100.0) * machine;
            let slowdown = slow.filter(|s| s.0 == size).map_or(1.0, |s| s.1);
            let default_us = base * noise() * slowdown;
            let competitors = vec![
                ("allreduce_as_reduce_bcast", 1.3 * base * noise()),
                ("allreduce_as_allreduce_circulant", 1.6 * base * noise()),
            ];
            (default_us, competitors)
        })
    }

    /// Every candidate's median in `checks` times `factor` of its size:
    /// a state of the machine that moves sizes unalike.
    fn moved_by_state(checks: &mut [Verdict], factor: impl Fn(u64) -> f64) {
        for v in checks.iter_mut() {
            let factor = factor(v.key.size_bytes);
            for c in &mut v.candidates {
                c.round_median_s = c.round_median_s.map(|m| m * factor);
            }
        }
    }

    fn normal(rng: &mut impl Rng) -> f64 {
        let (u, v): (f64, f64) = (rng.gen(), rng.gen());
        (-2.0 * (1.0 - u).ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }

    fn options() -> Options {
        fixture::options()
    }

    /// The sizes `comparison` flags as regressions, in its order.
    fn regressed_sizes(comparison: &Comparison) -> Vec<u64> {
        comparison.regressions().map(|c| c.key.size_bytes).collect()
    }

    /// `k` baseline launches of the checks `checks` makes.
    fn launches(k: usize, mut checks: impl FnMut() -> Vec<Verdict>) -> Vec<Launch> {
        (0..k)
            .map(|l| Launch {
                name: format!("launch {l}"),
                start_time: String::new(),
                checks: checks(),
                calibration_s: None,
            })
            .collect()
    }

    fn baseline(rng: &mut impl Rng, k: usize, sigma: f64, machine_sigma: f64) -> Vec<Launch> {
        launches(k, || {
            let machine = (machine_sigma * normal(rng)).exp();
            launch(rng, machine, sigma, None)
        })
    }

    /// A/A: launches of one library on a machine whose state wanders by
    /// 20 % between launches, each case by 5 %: regressions at most at α's
    /// rate, and the machine's wandering is not a regression.
    #[test]
    fn identical_launches_give_false_regressions_at_alpha_at_most() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let (mut false_regressions, mut compared) = (0, 0);
        for _ in 0..200 {
            let base = baseline(&mut rng, 3, 0.05, 0.2);
            let machine = (0.2 * normal(&mut rng)).exp();
            let now = launch(&mut rng, machine, 0.05, None);
            let comparison = compare(&base, &now, 0.05, &options());
            false_regressions += comparison.regressions().count();
            compared += comparison.changes.len();
        }
        assert_eq!(compared, 2000);
        let rate = false_regressions as f64 / compared as f64;
        assert!(rate <= 0.05, "{false_regressions} of {compared}");
    }

    /// A 1.5× slower `default` at one size, against 3 baseline launches,
    /// on the same wandering machine: found nearly always, and another
    /// size flagged beside it at α's rate at most.
    #[test]
    fn a_regression_at_one_size_is_found() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let (mut found, mut others) = (0, 0);
        for _ in 0..100 {
            let base = baseline(&mut rng, 3, 0.05, 0.2);
            let machine = (0.2 * normal(&mut rng)).exp();
            let now = launch(&mut rng, machine, 0.05, Some((256, 1.5)));
            let comparison = compare(&base, &now, 0.05, &options());
            let sizes = regressed_sizes(&comparison);
            found += usize::from(sizes.contains(&256));
            others += usize::from(sizes.iter().any(|&s| s != 256));
        }
        assert!(found >= 90, "found in {found} of 100");
        assert!(others <= 5, "another size flagged in {others} of 100");
    }

    /// `detectable` is the test's boundary: a case's p-value is below
    /// Holm's first threshold exactly when its ratio is beyond it, and
    /// baseline launches that spread 4× wider hide larger regressions.
    #[test]
    fn the_detectable_regression_is_where_the_test_turns_significant() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let first = options().correction.first_threshold(0.05, SIZES.len());
        let mut widest = |sigma: f64| {
            let mut detectable = Vec::new();
            for _ in 0..50 {
                let base = baseline(&mut rng, 5, sigma, 0.2);
                let now = launch(&mut rng, 1.0, sigma, Some((256, 1.5)));
                for c in compare(&base, &now, 0.05, &options()).changes {
                    let d = c.detectable.expect("several launches");
                    let beyond = c.judged_ratio() > d;
                    assert_eq!(c.p_value < first, beyond, "{c:?}");
                    detectable.push(d);
                }
            }
            crate::stats::describe::median(&detectable)
        };
        let (narrow, wide) = (widest(0.05), widest(0.2));
        // Measured: 1.25× and 2.1×.
        assert!(narrow > 1.05 && narrow < 1.4, "{narrow}");
        assert!(wide > 1.5 * narrow, "{narrow} {wide}");
    }

    /// A machine whose new state makes large sizes 2.5× faster and leaves
    /// small ones (as this machine does from one launch to the next): no
    /// case is flagged, since its candidates moved together, and a
    /// regression at one size is still found.
    #[test]
    fn a_state_that_moves_sizes_unalike_is_no_regression() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(13);
        let faster_when_large = |checks: &mut Vec<Verdict>| {
            moved_by_state(checks, |size| if size >= 128 { 0.4 } else { 1.0 })
        };
        let (mut false_flags, mut found) = (0, 0);
        for _ in 0..50 {
            let base = baseline(&mut rng, 3, 0.03, 0.05);
            let mut now = launch(&mut rng, 1.0, 0.03, None);
            faster_when_large(&mut now);
            false_flags += compare(&base, &now, 0.05, &options()).regressions().count();
            let mut slower = launch(&mut rng, 1.0, 0.03, Some((2048, 1.5)));
            faster_when_large(&mut slower);
            let sizes = regressed_sizes(&compare(&base, &slower, 0.05, &options()));
            found += usize::from(sizes == [2048]);
        }
        assert!(
            false_flags <= 2,
            "{false_flags} false regressions in 50 launches"
        );
        assert!(found >= 45, "found in {found} of 50");
    }

    /// A new launch whose state made every size but one 1.4× slower, and
    /// `default` at that one size 1.5× slower (as a gate launch here read:
    /// allreduce 512 B slowed, its neighbours' cells slower by the state):
    /// against the case's own competitors it is found; against the cells
    /// of nearby sizes, which moved with the state, it hid.
    #[test]
    fn a_case_is_judged_against_its_own_competitors() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(23);
        let neighbours_slower = |checks: &mut Vec<Verdict>| {
            moved_by_state(checks, |size| if size == 256 { 1.0 } else { 1.4 })
        };
        let mut found = 0;
        for _ in 0..50 {
            let base = baseline(&mut rng, 5, 0.05, 0.05);
            let mut slower = launch(&mut rng, 1.0, 0.05, Some((256, 1.5)));
            neighbours_slower(&mut slower);
            let sizes = regressed_sizes(&compare(&base, &slower, 0.05, &options()));
            found += usize::from(sizes == [256]);
        }
        assert!(found >= 45, "found in {found} of 50");
    }

    /// A launch whose whole machine ran 2.5× faster (a shift, named) and
    /// whose competitors at one size ran 1.6× faster still, `default` there
    /// at 0.92× of the shift (as an A/A launch read allgather 1 KiB here):
    /// `default` reads about 1.5× slower beside them but is no slower than
    /// the shift makes it, and no regression; `default` there 1.6× slower
    /// (1.47× beyond the shift) is one.
    #[test]
    fn in_a_faster_launch_a_regression_is_slower_than_the_shift() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(31);
        let competitors_faster_at_64 = |checks: &mut Vec<Verdict>| {
            let case = checks.iter_mut().find(|v| v.key.size_bytes == 64).unwrap();
            for c in &mut case.candidates {
                let factor = if c.name == DEFAULT { 0.92 } else { 1.0 / 1.6 };
                c.round_median_s = c.round_median_s.map(|m| m * factor);
            }
        };
        let (mut false_flags, mut found) = (0, 0);
        for _ in 0..20 {
            let base = baseline(&mut rng, 5, 0.02, 0.02);
            let mut now = launch(&mut rng, 0.4, 0.02, None);
            competitors_faster_at_64(&mut now);
            let comparison = compare(&base, &now, 0.05, &options());
            assert!(comparison.shift.unwrap().significant);
            false_flags += comparison.regressions().count();
            let mut slower = launch(&mut rng, 0.4, 0.02, Some((64, 1.6)));
            competitors_faster_at_64(&mut slower);
            found += usize::from(
                compare(&base, &slower, 0.05, &options())
                    .regressions()
                    .any(|c| c.key.size_bytes == 64),
            );
        }
        assert_eq!(false_flags, 0, "false regressions in 20 shifted launches");
        assert_eq!(found, 20, "found in {found} of 20");
    }

    /// A launch that ran 0.7× faster as a whole, short of a named shift on
    /// a machine whose launches wander by 20 %, and `default` at one size
    /// 1.5× slower, at 1.05× its usual time (as gate launches read here):
    /// found, since `default` ran 0.7× at its other cases.
    #[test]
    fn in_a_launch_that_ran_faster_a_regression_is_slower_than_default_elsewhere() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(37);
        let (mut found, mut unnamed) = (0, 0);
        for _ in 0..20 {
            let base = baseline(&mut rng, 5, 0.02, 0.2);
            let slower = launch(&mut rng, 0.7, 0.02, Some((64, 1.5)));
            let comparison = compare(&base, &slower, 0.05, &options());
            unnamed += usize::from(!comparison.shift.unwrap().significant);
            let sizes = regressed_sizes(&comparison);
            found += usize::from(sizes == [64]);
        }
        assert!(unnamed >= 15, "a shift named in {} of 20", 20 - unnamed);
        assert_eq!(found, 20, "found in {found} of 20");
    }

    /// `competitors: all` of allreduce: two competitors of their own code
    /// and three that call `MPI_Allreduce` (the user-defined operator, the
    /// duplicated and permuted communicators). A 1.5× slower
    /// `MPI_Allreduce` at one size slows those three with `default`: found
    /// against the two (against all five, whose mean moved with it,
    /// `default` read 1.11×).
    #[test]
    fn references_that_call_default_s_function_do_not_judge_it() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        let mut launch = |slowed: f64| -> Vec<Verdict> {
            let mut noise = || (0.03 * normal(&mut rng)).exp();
            launch_of(|size| {
                let base = 1.0 + size as f64 / 100.0;
                let own_call = base * if size == 256 { slowed } else { 1.0 };
                let competitors = vec![
                    ("allreduce_as_reduce_bcast", 1.3 * base * noise()),
                    ("allreduce_as_allreduce_circulant", 1.6 * base * noise()),
                    ("allreduce_as_allreduce_user_op", 1.1 * own_call * noise()),
                    ("allreduce_as_dup_comm", own_call * noise()),
                    ("allreduce_as_permuted_comm", own_call * noise()),
                ];
                (own_call * noise(), competitors)
            })
        };
        let base = launches(5, || launch(1.0));
        let comparison = compare(&base, &launch(1.5), 0.05, &options());
        let sizes = regressed_sizes(&comparison);
        let ratios: Vec<f64> = comparison
            .changes
            .iter()
            .map(Change::judged_ratio)
            .collect();
        assert_eq!(sizes, [256], "{ratios:?}");
        let at_256 = ratios[SIZES.iter().position(|&s| s == 256).unwrap()];
        assert!((at_256 - 1.5).abs() < 0.15, "{ratios:?}");
        assert_eq!(
            compare(&base, &launch(1.0), 0.05, &options())
                .regressions()
                .count(),
            0
        );
    }

    /// Four competitors, each in one of two states per launch (±25 %,
    /// drawn apart), `default` steady: their mean spreads half as much as
    /// one of them, their median (the mean of whichever two are in the
    /// middle) 0.8 as much, so a case judged by the mean shows a regression
    /// from 1.48× (in the median case), by the median from 1.62×.
    #[test]
    fn references_that_switch_state_are_averaged() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(43);
        let mut launch = || -> Vec<Verdict> {
            let mut state = || if rng.gen::<bool>() { 1.25 } else { 1.0 / 1.25 };
            launch_of(|size| {
                let base = 1.0 + size as f64 / 100.0;
                let competitors = vec![
                    ("allreduce_as_reduce_bcast", 1.3 * base * state()),
                    (
                        "allreduce_as_reducescatterblock_allgather",
                        1.4 * base * state(),
                    ),
                    (
                        "allreduce_as_reducescatter_allgatherv",
                        1.5 * base * state(),
                    ),
                    ("allreduce_as_allreduce_circulant", 1.6 * base * state()),
                ];
                (base, competitors)
            })
        };
        let mut detectable = Vec::new();
        for _ in 0..40 {
            let base = launches(5, &mut launch);
            let comparison = compare(&base, &launch(), 0.05, &options());
            detectable.extend(comparison.changes.iter().filter_map(|c| c.detectable));
        }
        let median = crate::stats::describe::median(&detectable);
        assert!(median < 1.55, "shows from {median}×");
    }

    /// The references faster without `default` (this machine ran the
    /// multi-step mock-ups 1.6× faster in some launches while `default`
    /// stayed at 0.79 µs): `default` is no slower in its own time, and no
    /// regression; a real one at that size is still found.
    #[test]
    fn references_that_move_without_default_make_no_regression() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let competitors_faster = |checks: &mut Vec<Verdict>| {
            for v in checks.iter_mut().filter(|v| v.key.size_bytes <= 64) {
                for c in v.candidates.iter_mut().filter(|c| c.name != DEFAULT) {
                    c.round_median_s = c.round_median_s.map(|m| m * 0.62);
                }
            }
        };
        let (mut false_flags, mut found) = (0, 0);
        for _ in 0..50 {
            let base = baseline(&mut rng, 5, 0.01, 0.01);
            let mut now = launch(&mut rng, 1.0, 0.01, None);
            competitors_faster(&mut now);
            false_flags += compare(&base, &now, 0.05, &options()).regressions().count();
            let mut slower = launch(&mut rng, 1.0, 0.01, Some((16, 1.5)));
            competitors_faster(&mut slower);
            let sizes = regressed_sizes(&compare(&base, &slower, 0.05, &options()));
            found += usize::from(sizes == [16]);
        }
        assert_eq!(false_flags, 0, "false regressions in 50 launches");
        assert!(found >= 45, "found in {found} of 50");
    }

    /// One baseline launch of five in a slow state (its calibration 1.5×,
    /// its medians 1.3× slower at small sizes and 2.2× at large ones, each
    /// candidate by its own 25 % more or less, as this machine's were): a
    /// new launch in the fast state is judged
    /// against the four made in it, which the method names, and its 1.5×
    /// regression is found; judged against all five, far less often.
    /// Fewer than three in its state keep them all.
    #[test]
    fn the_baseline_launches_in_the_new_launch_s_state_judge_it() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(19);
        let (mut found_in_state, mut found_with_all) = (0, 0);
        for _ in 0..20 {
            let mut base = baseline(&mut rng, 5, 0.02, 0.02);
            for (l, launch) in base.iter_mut().enumerate() {
                launch.calibration_s = Some(if l == 4 { 0.75e-6 } else { 0.5e-6 });
            }
            for v in base[4].checks.iter_mut() {
                let factor = if v.key.size_bytes >= 512 { 2.2 } else { 1.3 };
                for c in &mut v.candidates {
                    let own = (0.25 * normal(&mut rng)).exp();
                    c.round_median_s = c.round_median_s.map(|m| m * factor * own);
                }
            }
            let now = launch(&mut rng, 1.0, 0.02, Some((256, 1.5)));
            let (judged, left_out) = in_state(&base, Some(0.49e-6));
            assert_eq!(
                (judged.len(), &left_out[..]),
                (4, &["launch 4".to_string()][..])
            );
            let words = in_state_words(judged.len(), &left_out);
            assert!(
                words.contains("1 in another state left out (launch 4)"),
                "{words}"
            );
            let found = |launches: &[Launch]| {
                compare(launches, &now, 0.05, &options())
                    .regressions()
                    .any(|c| c.key.size_bytes == 256)
            };
            found_in_state += usize::from(found(&judged));
            found_with_all += usize::from(found(&base));
            // Two of five in the new launch's state: all five judge it.
            let (all, none) = in_state(&base[2..], Some(0.49e-6));
            assert_eq!((all.len(), none.len()), (3, 0));
        }
        assert!(found_in_state >= 18, "found in {found_in_state} of 20");
        assert!(
            found_with_all < found_in_state,
            "{found_with_all} of 20 with every launch"
        );
    }

    /// Baseline launches left out of the case-by-case test for their state
    /// still count in the whole launch's shift: its test is the one against
    /// all six, and the cases' the one against the three kept.
    #[test]
    fn the_shift_is_tested_against_every_launch() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(29);
        let base = baseline(&mut rng, 6, 0.03, 0.05);
        let now = launch(&mut rng, 10.0, 0.03, None);
        let within = compare_within(&base, &base[..3], &now, 0.05, &options());
        let all = compare(&base, &now, 0.05, &options());
        let kept = compare(&base[..3], &now, 0.05, &options());
        let p = |c: &Comparison| c.shift.as_ref().unwrap().p_value;
        assert_eq!(p(&within), p(&all));
        assert!(p(&all) < p(&kept), "{} against {}", p(&all), p(&kept));
        let case_p = |c: &Comparison| c.changes.iter().map(|c| c.p_value).collect::<Vec<_>>();
        assert_eq!(case_p(&within), case_p(&kept));
        assert_eq!(within.launches, 3);
    }

    /// Every median of the new launch 2.5× lower (or higher): one shift of
    /// the machine, no regression, and a regression on top of it is still
    /// found.
    #[test]
    fn a_shift_of_the_whole_machine_is_named_once() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        let base = baseline(&mut rng, 4, 0.03, 0.05);
        for factor in [0.4, 2.5] {
            let now = launch(&mut rng, factor, 0.03, None);
            let comparison = compare(&base, &now, 0.05, &options());
            let shift = comparison.shift.expect("a shift is always estimated");
            assert!(shift.significant, "{shift:?}");
            assert!((shift.factor / factor - 1.0).abs() < 0.1, "{shift:?}");
            assert_eq!(comparison.regressions().count(), 0);
            let slower = launch(&mut rng, factor, 0.03, Some((64, 2.0)));
            let comparison = compare(&base, &slower, 0.05, &options());
            let sizes = regressed_sizes(&comparison);
            assert_eq!(sizes, [64]);
        }
        let same = launch(&mut rng, 1.0, 0.03, None);
        assert!(
            !compare(&base, &same, 0.05, &options())
                .shift
                .unwrap()
                .significant
        );
    }

    /// The new launch's `default` at one size 1.5× off its usual, as a
    /// launch whose rounds at that size spread widely shows (some rounds in
    /// a slow state): with that spread recorded, its uncertainty is the
    /// baseline launches' plus the excess, and it is no regression; the
    /// same 1.5× from quiet rounds is one, and a launch no noisier than
    /// the baseline ones is judged as before.
    #[test]
    fn a_noisy_launch_widens_its_own_interval() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(17);
        let with_se = |checks: &mut Vec<Verdict>, size: u64, se: f64| {
            for v in checks.iter_mut() {
                for c in &mut v.candidates {
                    c.round_median_log_se =
                        Some(if v.key.size_bytes == size && c.name == DEFAULT {
                            se
                        } else {
                            0.01
                        });
                }
            }
        };
        let mut base = baseline(&mut rng, 3, 0.03, 0.05);
        for l in &mut base {
            with_se(&mut l.checks, 512, 0.01);
        }
        let mut noisy = launch(&mut rng, 1.0, 0.03, Some((512, 1.5)));
        with_se(&mut noisy, 512, 0.2);
        assert_eq!(
            compare(&base, &noisy, 0.05, &options())
                .regressions()
                .count(),
            0
        );
        with_se(&mut noisy, 512, 0.01);
        let sizes = regressed_sizes(&compare(&base, &noisy, 0.05, &options()));
        assert_eq!(sizes, [512]);
    }

    /// A case whose `default` varies far more between launches than the
    /// others keeps its own wide variance: its wandering is not flagged.
    #[test]
    fn a_case_that_varies_more_keeps_its_own_variance() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        let wobbly = |rng: &mut rand::rngs::StdRng, checks: &mut Vec<Verdict>| {
            let factor = (0.4 * normal(rng)).exp();
            let case = checks.iter_mut().find(|v| v.key.size_bytes == 8).unwrap();
            for c in case.candidates.iter_mut().filter(|c| c.name == DEFAULT) {
                c.round_median_s = c.round_median_s.map(|m| m * factor);
            }
        };
        let (mut flagged, trials) = (0, 200);
        for _ in 0..trials {
            let mut base = baseline(&mut rng, 5, 0.02, 0.0);
            for l in &mut base {
                wobbly(&mut rng, &mut l.checks);
            }
            let mut now = launch(&mut rng, 1.0, 0.02, None);
            wobbly(&mut rng, &mut now);
            let comparison = compare(&base, &now, 0.05, &options());
            flagged += comparison
                .regressions()
                .filter(|c| c.key.size_bytes == 8)
                .count();
        }
        assert!(flagged <= trials / 10, "flagged {flagged} of {trials}");
    }
}
