//! The usual time per candidate (Kluge et al. 2005) (`stats::usual`), as the analysis
//! uses it: fitted on the candidate's valid observations before any outlier
//! filter, with the run's timer resolution; the histogram a plot needs; and
//! the `--outliers tmax` filter.

use crate::case::{Outcome, Sample};
use crate::stats::describe::Selected;
use crate::stats::usual::{self, Histogram, Usual, Windows};
use serde::{Deserialize, Serialize};

/// The most bins a stored histogram has: enough to see a shape, small
/// enough for `results.json`.
pub const PLOT_BINS: usize = 40;

/// The `q_max` of `--qmax` unless told otherwise.
pub const DEFAULT_QMAX: f64 = 0.95;

/// One candidate's usual time, overhead and the histogram behind them, as
/// `results.json` keeps it (the fit's fields, then `histogram`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UsualTime {
    #[serde(flatten)]
    pub fit: Usual,
    /// At most [`PLOT_BINS`] bins of whole windows from t_min to about
    /// twice the usual error (so that t_max is always inside), the rest
    /// counted in `beyond`.
    pub histogram: Histogram,
}

/// The usual time of `sample`: None unless measured with at least
/// [`usual::MIN_OBSERVATIONS`] valid observations and a known timer
/// resolution (observations analysed without their `results.json` have none).
/// `selected`: its observations' order statistics, if selected already
/// with the q_max quantile among them.
pub fn of(
    sample: &Sample,
    selected: Option<&Selected>,
    resolution_s: f64,
    qmax: f64,
) -> Option<UsualTime> {
    if sample.outcome != Outcome::Measured {
        return None;
    }
    let (fit, windows) = usual::fit_with_windows(&sample.seconds, selected, resolution_s, qmax)?;
    let histogram = plot_histogram(&fit, &windows);
    Some(UsualTime { fit, histogram })
}

/// Bins of g windows, g chosen so that at most [`PLOT_BINS`] bins reach
/// past t_max: to the last occupied window, but no further than twice the
/// usual windows 0 … k_q (and at least one window past them).
fn plot_histogram(fit: &Usual, windows: &Windows) -> Histogram {
    let usual_windows = fit.quantile_window.saturating_add(1);
    let last = windows.occupied.last().map_or(0, |&(k, _)| k);
    let reach = usual_windows
        .saturating_add(1)
        .max(last.saturating_add(1).min(usual_windows.saturating_mul(2)));
    let per_bin = reach.div_ceil(PLOT_BINS as u64).max(1);
    let bins = reach.div_ceil(per_bin) as usize;
    fit.histogram_of_windows(&windows.occupied, per_bin, bins)
}

/// `--outliers tmax`: drops the observations above the candidate's t_max
/// (whatever their round); returns how many. A round left without
/// observations is then a round fewer.
pub fn drop_above_tmax(sample: &mut Sample, fit: &Usual) -> usize {
    let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
    for (&s, &r) in sample.seconds.iter().zip(&sample.rounds) {
        if s <= fit.tmax_s {
            seconds.push(s);
            rounds.push(r);
        }
    }
    let dropped = sample.seconds.len() - seconds.len();
    sample.seconds = seconds;
    sample.rounds = rounds;
    dropped
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{
        verdicts, CaseData, CaseKey, Correction, Options, Outliers, Test, DEFAULT_MARGIN,
    };
    use crate::candidates::native::DEFAULT;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    const NS: f64 = 1e-9;

    /// `n` times of 10 µs plus a discretised exponential error of mean
    /// `mean_ns` (whole nanoseconds), over `rounds` rounds; the rounds in
    /// `delayed` get one time 1 ms later each. Returns the sample and the
    /// indices of the delayed times.
    fn sample(
        name: &str,
        n: usize,
        mean_ns: f64,
        delayed: &[u32],
        seed: u64,
    ) -> (Sample, Vec<usize>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let rounds = 10u32;
        let (mut seconds, mut of_round, mut late) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            let round = i as u32 * rounds / n as u32;
            let ticks = (-(1.0 - rng.gen::<f64>()).ln() * mean_ns).floor();
            let mut t = 10e-6 + ticks * NS;
            if delayed.contains(&round) && !of_round.contains(&round) {
                t += 1e-3;
                late.push(i);
            }
            seconds.push(t);
            of_round.push(round);
        }
        let sample = Sample {
            name: name.into(),
            outcome: Outcome::Measured,
            seconds,
            rounds: of_round,
            invalid_rounds: Vec::new(),
        };
        (sample, late)
    }

    fn case(samples: Vec<Sample>) -> CaseData {
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(8),
            samples,
            smaller: None,
        }
    }

    fn options(outliers: Outliers, resolution_s: f64) -> Options {
        Options {
            alpha: 0.05,
            test: Test::Rounds,
            correction: Correction::Holm,
            outliers,
            noise_floor_s: 0.0,
            margin: DEFAULT_MARGIN,
            qmax: DEFAULT_QMAX,
            timer_resolution_s: resolution_s,
            fail_on: None,
        }
    }

    #[test]
    fn tmax_drops_exactly_the_delayed_times_and_reports_the_unfiltered_fit() {
        // 400 times with exponential errors of mean 200 ns, 4 of them 1 ms
        // late: maximum likelihood drags t_max out to tens of µs (the mean
        // error grows by 4 ms / 400), above every undelayed time and far
        // below the delayed ones.
        let (default, late) = sample(DEFAULT, 400, 200.0, &[1, 4, 6, 9], 1);
        let (other, _) = sample("other", 400, 200.0, &[], 2);
        let cases = [case(vec![default.clone(), other])];
        let unfiltered = verdicts(&cases, &options(Outliers::None, NS));
        let filtered = verdicts(&cases, &options(Outliers::Tmax, NS));
        let (d, d0) = (&filtered[0].candidates[0], &unfiltered[0].candidates[0]);
        let usual = d.usual.as_ref().unwrap();
        // The usual time is the fit on all valid times, filter or not.
        assert_eq!(Some(usual), d0.usual.as_ref());
        assert_eq!((usual.fit.n, usual.fit.above_tmax), (400, 4));
        assert_eq!(
            (d.outliers_removed, d.n, d0.outliers_removed, d0.n),
            (4, 396, 0, 400)
        );
        for (i, &t) in default.seconds.iter().enumerate() {
            assert_eq!(t > usual.fit.tmax_s, late.contains(&i), "time {i}: {t}");
        }
        // 4 × (1 ms − t_err,max) of about 8 ms in all.
        assert!(
            usual.fit.overhead_share > 0.4,
            "{}",
            usual.fit.overhead_share
        );
        // Every round keeps observations; the filtered median is the
        // undelayed times'.
        assert_eq!(d.rounds, 10);
        assert!(d.median_s.unwrap() < 11e-6);
        // The competitor, without delays, keeps its exponential fit and
        // loses only what lies above its t_max (about 5 %).
        let o = &filtered[0].candidates[1];
        let fit = &o.usual.as_ref().unwrap().fit;
        assert_eq!(fit.model, crate::stats::usual::Model::Exponential);
        assert!(fit.lambda_ci[0] <= 1.0 / (200.0 * NS) && 1.0 / (200.0 * NS) <= fit.lambda_ci[1]);
        assert_eq!(o.outliers_removed, fit.above_tmax);
        assert!(
            (5..=40).contains(&o.outliers_removed),
            "{}",
            o.outliers_removed
        );
    }

    #[test]
    fn no_usual_time_without_resolution_or_enough_observations() {
        let (default, _) = sample(DEFAULT, 400, 200.0, &[3], 3);
        let (few, _) = sample("few", 19, 200.0, &[], 4);
        let cases = [case(vec![default, few])];
        for resolution in [0.0, NS] {
            let v = &verdicts(&cases, &options(Outliers::Tmax, resolution))[0];
            let (d, f) = (&v.candidates[0], &v.candidates[1]);
            assert_eq!(d.usual.is_some(), resolution > 0.0);
            assert_eq!(d.outliers_removed > 0, resolution > 0.0);
            assert!(f.usual.is_none() && f.outliers_removed == 0 && f.n == 19);
        }
    }

    #[test]
    fn the_stored_histogram_is_small_and_reaches_past_tmax() {
        // A fit dragged to millions of windows still stores at most 40 bins.
        let (mut s, _) = sample(DEFAULT, 300, 50.0, &[], 5);
        s.seconds[7] = 0.5;
        let u = of(&s, None, NS, 0.95).unwrap();
        let h = &u.histogram;
        assert!(
            h.counts.len() <= PLOT_BINS && h.counts.len() >= 2,
            "{}",
            h.counts.len()
        );
        assert_eq!(h.edges_s.len(), h.counts.len() + 1);
        assert!(*h.edges_s.last().unwrap() > u.fit.tmax_s);
        assert_eq!(h.counts.iter().sum::<u64>() + h.beyond, 300);
        // A tidy sample: windows of the Freedman–Diaconis rule, t_max
        // inside, the tail beyond twice the usual error not drawn.
        let (s, _) = sample(DEFAULT, 1000, 300.0, &[], 6);
        let u = of(&s, None, NS, 0.95).unwrap();
        let h = &u.histogram;
        assert!(h.counts.len() <= PLOT_BINS);
        let reach = h.windows_per_bin * h.counts.len() as u64;
        assert_eq!(reach, 2 * (u.fit.quantile_window + 1));
        assert!(h.beyond > 0);
        assert!((h.edges_s[0] - (u.fit.tmin_s - 0.5 * NS)).abs() < 1e-15);
        let json = serde_json::to_value(&u).unwrap();
        for key in [
            "model",
            "lambda",
            "window_s",
            "tmin_s",
            "tmax_s",
            "qmax",
            "overhead_share",
            "fit_p",
        ] {
            assert!(json.get(key).is_some(), "{key} missing in {json}");
        }
        assert_eq!(
            json["histogram"]["counts"].as_array().unwrap().len(),
            h.counts.len()
        );
        assert_eq!(serde_json::from_value::<UsualTime>(json).unwrap(), u);
    }
}
