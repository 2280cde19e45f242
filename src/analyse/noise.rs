//! The noise verdict of a run: was the machine quiet enough for the
//! slowdowns the user asked about to show?
//!
//! The rule. Let s* be the smallest slowdown the run is asked about: the
//! least slowdown of `--fail-on`'s severity (medium 1.10, medium-high 1.5,
//! high 2, very-high 5), but at least twice the `--margin`'s excess (1.10
//! for 1.05) — a violation must beat the margin, so an ideal run's
//! sensitivity is just above it, and the run is asked to resolve a
//! slowdown as far above the margin as the margin is above none — which is
//! also s* without `--fail-on` or with `low`/`inconclusive`. The run is
//! **noisy** when most cases are undecided and could not have flagged a
//! competitor s* times faster than `default`: inconclusive with a
//! sensitivity above s* (a case whose sensitivity is `none`, though its
//! rounds could give a significant p, counts as infinitely insensitive,
//! and so does a case whose medians the timer cannot resolve
//! (`analyse::timer`): a run whose cases mostly cannot be measured is
//! noisy; cases powerless for their rounds are left out, the rounds are to
//! blame there and a warning says so). A decided case needs no more power:
//! *holds* is shown by its own test, *violated* by its. Counting every
//! case's sensitivity instead called 5 of 6 identical launches of
//! inputs/quick.yaml at 300 ms on 2 bound ranks noisy (median case
//! sensitivity 1.12–1.2×) while they decided 6–8 of 10 cases alike.
//! Otherwise it is **quiet**.
//!
//! The median candidate's overhead share (Kluge et al. 2005:
//! Σ max(0, t − t_max) / Σ t) is reported beside the verdict, against
//! 1 − 1/s* (the time an s* slowdown adds), but takes no part: the tests
//! compare medians of rounds, which a tail of late calls does not move,
//! and a tail that does move them shows in the sensitivities. Until 29 Nov
//! a share above the limit made the run noisy: in 24 launches of
//! quick.yaml at 300 ms on 2 bound ranks the shares straddled it (6–16 %
//! against 9.1 %), and it alone ended 9 of them undecided, launches whose
//! cases were decided as often as the others'. The noise floor (the
//! barrier's median) is reported too, absolute and relative to
//! `default`'s medians, and takes no part either: it is a cost every
//! candidate pays alike, not noise, and slowdowns within it are already
//! marked `~`.

use super::{Options, Severity, Verdict};
use crate::candidates::native::DEFAULT;
pub use crate::meta::{Noise, NoiseVerdict};
use crate::stats::describe;

/// Where a severity begins (the infimum of its slowdowns): medium 1.10,
/// medium-high 1.5, high 2, very-high 5; 1 for ok and low.
pub fn least_slowdown(severity: Severity) -> f64 {
    match severity {
        Severity::Ok | Severity::Low => 1.0,
        Severity::Medium => 1.10,
        Severity::MediumHigh => 1.50,
        Severity::High => 2.00,
        Severity::VeryHigh => 5.00,
    }
}

/// s* and where it comes from (see the module's rule).
pub fn slowdown_of_interest(options: &Options) -> (f64, String) {
    // Rounded so that it prints as the user would write it (1.1, not
    // 1.1000000000000001).
    let beyond_margin = ((2.0 * options.margin - 1.0) * 1e9).round() / 1e9;
    match options.fail_on {
        Some(s) if least_slowdown(s) >= beyond_margin => {
            (least_slowdown(s), format!("--fail-on {}", s.label()))
        }
        _ => (beyond_margin, "twice the --margin's excess".into()),
    }
}

/// The noise verdict of `checks`; None when nothing can be judged (no case
/// with a sensitivity and no candidate with a usual time).
pub fn assess(checks: &[Verdict], options: &Options) -> Option<Noise> {
    let (care, source) = slowdown_of_interest(options);
    let judged: Vec<&Verdict> = checks
        .iter()
        .filter(|v| {
            (v.timer_bound || !v.powerless) && v.measured_competitors().any(|c| c.p_value.is_some())
        })
        .collect();
    let sensitivities: Vec<f64> = judged
        .iter()
        .map(|v| v.sensitivity.unwrap_or(f64::INFINITY))
        .collect();
    let shares = overhead_shares(checks);
    if sensitivities.is_empty() && shares.is_empty() {
        return None;
    }
    let finite = |x: f64| Some(x).filter(|x| x.is_finite());
    let median_of = |values: &[f64]| match values {
        [] => None,
        v => Some(describe::median(v)),
    };
    let max_of = |values: &[f64]| values.iter().copied().reduce(f64::max);
    let limit = 1.0 - 1.0 / care;

    let sensitivity_median = median_of(&sensitivities);
    let cases_above = judged
        .iter()
        .filter(|v| !v.decided() && v.sensitivity.is_none_or(|s| s > care))
        .count();
    let timer_bound = checks.iter().filter(|v| v.timer_bound).count();
    let insensitive = 2 * cases_above > judged.len();
    let share_values: Vec<f64> = shares.iter().map(|(s, _)| *s).collect();
    let share_median = median_of(&share_values);
    let worst = shares
        .iter()
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(s, who)| (*s, who.clone()));

    let floor = options.noise_floor_s;
    let floor_shares = floor_shares(checks, floor);

    let mut noise = Noise {
        verdict: if insensitive {
            NoiseVerdict::Noisy
        } else {
            NoiseVerdict::Quiet
        },
        reason: String::new(),
        slowdown_of_interest: care,
        slowdown_source: source,
        cases: sensitivities.len(),
        sensitivity_median: sensitivity_median.and_then(finite),
        sensitivity_max: max_of(&sensitivities).and_then(finite),
        cases_above,
        candidates: shares.len(),
        overhead_share_median: share_median,
        overhead_share_max: worst.as_ref().map(|w| w.0),
        overhead_share_max_of: worst.map(|w| w.1),
        overhead_share_limit: limit,
        qmax: options.qmax,
        noise_floor_s: floor,
        noise_floor_share_median: median_of(&floor_shares),
        noise_floor_share_max: max_of(&floor_shares),
    };
    noise.reason = reason(&noise, timer_bound);
    Some(noise)
}

/// Every candidate's overhead share, with whose it is (`case: name`).
fn overhead_shares(checks: &[Verdict]) -> Vec<(f64, String)> {
    checks
        .iter()
        .flat_map(|v| {
            v.candidates.iter().filter_map(move |c| {
                let u = c.usual.as_ref()?;
                let case = format!("{} {} B", v.key.operation.name(), v.key.size_bytes);
                Some((u.fit.overhead_share, format!("{case}: {}", c.name)))
            })
        })
        .collect()
}

/// The noise floor as a share of `default`'s median, per case.
fn floor_shares(checks: &[Verdict], floor: f64) -> Vec<f64> {
    checks
        .iter()
        .filter_map(|v| {
            let d = v.candidates.iter().find(|c| c.name == DEFAULT)?;
            let median = d.round_median_s.filter(|&m| m > 0.0)?;
            Some(floor / median)
        })
        .collect()
}

/// The noise verdict in words: the cases too insensitive to decide
/// (`timer_bound` of them too short for the timer), then the candidates'
/// overhead shares.
fn reason(noise: &Noise, timer_bound: usize) -> String {
    let care = noise.slowdown_of_interest;
    let insensitive = 2 * noise.cases_above > noise.cases;
    let times = |s: Option<f64>| match s {
        Some(s) => format!("{s:.3}×"),
        None => "none".into(),
    };
    let mut parts: Vec<String> = Vec::new();
    if noise.cases > 0 {
        parts.push(format!(
                "{} of {} cases undecided and unable to flag {care}× ({}){}, {} half; median case sensitivity {}",
                noise.cases_above,
                noise.cases,
                noise.slowdown_source,
                match timer_bound {
                    0 => String::new(),
                    n => format!(" ({n} too short for the timer)"),
                },
                if insensitive { "more than" } else { "at most" },
                times(noise.sensitivity_median),
        ));
    }
    match (noise.overhead_share_median, noise.overhead_share_max, &noise.overhead_share_max_of) {
        (Some(median), Some(max), Some(who)) => {
            let overheads = median > noise.overhead_share_limit;
            parts.push(format!(
                "median overhead share {:.1} % {} {:.1} % (the time a {care}× slowdown adds{}), largest {:.1} % ({who})",
                100.0 * median,
                if overheads { ">" } else { "≤" },
                100.0 * noise.overhead_share_limit,
                if overheads { "; a tail the medians that decide do not see" } else { "" },
                100.0 * max,
            ))
        }
        _ => parts.push(
            "no usual times (fewer than 20 observations per candidate, or the timer resolution unknown)".into(),
        ),
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{verdicts, CaseData, CaseKey, Conclusion, Sample};
    use crate::case::Outcome;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn options(fail_on: Option<Severity>) -> Options {
        Options {
            noise_floor_s: 1e-6,
            fail_on,
            ..Options::default()
        }
    }

    fn normal(rng: &mut ChaCha8Rng) -> f64 {
        let (u, v): (f64, f64) = (rng.gen(), rng.gen());
        (-2.0 * (1.0 - u).ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    /// Ten rounds of 30 times around `center`: each round shifted by a
    /// log-normal factor of spread `round_sigma` (what makes a machine
    /// noisy for the per-round test), each time with a small exponential
    /// error, and a share `delayed` of times 100 × `center` late.
    fn sample(
        rng: &mut ChaCha8Rng,
        name: &str,
        center: f64,
        round_sigma: f64,
        delayed: f64,
    ) -> Sample {
        let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
        for round in 0..10 {
            let shift = (round_sigma * normal(rng)).exp();
            for _ in 0..30 {
                let error = -(1.0 - rng.gen::<f64>()).ln() * 0.02;
                let late = if rng.gen::<f64>() < delayed {
                    100.0
                } else {
                    0.0
                };
                seconds.push(center * (shift * (1.0 + error) + late));
                rounds.push(round);
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

    /// Five cases whose `default` is 1.2 times slower than its competitor.
    fn cases(seed: u64, round_sigma: f64, delayed: f64) -> Vec<CaseData> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..5)
            .map(|i| CaseData {
                overlapped: None,
                calibration: None,
                key: CaseKey::allreduce_bytes(8 << i),
                samples: vec![
                    sample(&mut rng, DEFAULT, 12e-6, round_sigma, delayed),
                    sample(&mut rng, "competitor", 10e-6, round_sigma, delayed),
                ],
                smaller: None,
            })
            .collect()
    }

    fn noise(cases: &[CaseData], options: &Options) -> (Noise, Vec<Conclusion>) {
        let checks = verdicts(cases, options);
        let conclusions = checks.iter().map(|c| c.conclusion).collect();
        (
            assess(&checks, options).expect("something to judge"),
            conclusions,
        )
    }

    #[test]
    fn the_slowdown_of_interest_is_fail_on_s_else_twice_the_margin() {
        let of = |fail_on| slowdown_of_interest(&options(fail_on));
        let margin = (1.1, "twice the --margin's excess".to_string());
        assert_eq!(of(None), margin);
        assert_eq!(of(Some(Severity::Low)), margin);
        // Medium begins where twice the margin's excess is.
        assert_eq!(of(Some(Severity::Medium)).0, 1.10);
        assert_eq!(of(Some(Severity::MediumHigh)).0, 1.5);
        assert_eq!(of(Some(Severity::High)).0, 2.0);
        assert_eq!(of(Some(Severity::VeryHigh)).0, 5.0);
        // Each is where its severity begins.
        for s in [
            Severity::Medium,
            Severity::MediumHigh,
            Severity::High,
            Severity::VeryHigh,
        ] {
            assert_eq!(Severity::of_slowdown(least_slowdown(s) * 1.001), s);
            assert!(Severity::of_slowdown(least_slowdown(s) * 0.999) < s);
        }
    }

    #[test]
    fn a_known_slowdown_hidden_by_round_noise_makes_the_run_noisy() {
        // Quiet rounds: the 1.2× slowdown is found in every case and the
        // run could have found 1.1×.
        let (quiet, found) = noise(&cases(1, 0.005, 0.0), &options(None));
        assert!(
            found.iter().all(|&c| c == Conclusion::Violated),
            "{found:?}"
        );
        assert_eq!(quiet.verdict, NoiseVerdict::Quiet, "{}", quiet.reason);
        assert!(quiet.sensitivity_median.unwrap() <= 1.1, "{quiet:?}");
        assert_eq!(
            (quiet.cases, quiet.cases_above, quiet.candidates),
            (5, 0, 10)
        );
        assert!(quiet.overhead_share_median.unwrap() < quiet.overhead_share_limit);
        // Rounds that differ by ±30 %: the slowdown hides, and the verdict
        // says why with its numbers.
        let (noisy, found) = noise(&cases(2, 0.3, 0.0), &options(None));
        assert!(
            found.iter().any(|&c| c != Conclusion::Violated),
            "{found:?}"
        );
        assert_eq!(noisy.verdict, NoiseVerdict::Noisy, "{}", noisy.reason);
        let median = noisy.sensitivity_median.unwrap_or(f64::INFINITY);
        assert!(median > 1.2, "{noisy:?}");
        assert!(noisy.cases_above >= 3, "{noisy:?}");
        assert!(
            noisy.reason.contains(
                " of 5 cases undecided and unable to flag 1.1× (twice the --margin's excess), more than half; median case sensitivity "
            ),
            "{}",
            noisy.reason
        );
        // The same data are quiet for someone who only asks about
        // very-high (5×) slowdowns.
        let (coarse, _) = noise(&cases(2, 0.3, 0.0), &options(Some(Severity::VeryHigh)));
        assert_eq!(coarse.verdict, NoiseVerdict::Quiet, "{}", coarse.reason);
        assert!(
            coarse
                .reason
                .contains("unable to flag 5× (--fail-on very-high), at most half"),
            "{}",
            coarse.reason
        );
    }

    #[test]
    fn rare_huge_delays_are_reported_but_leave_the_decided_run_quiet() {
        // 3 % of the calls 100 times late: a third or more of the time is
        // overhead, but the per-round medians do not care: the known 1.2×
        // slowdown is found in every case, so the run decided.
        let (noisy, found) = noise(&cases(3, 0.005, 0.03), &options(None));
        assert!(
            found.iter().all(|&c| c == Conclusion::Violated),
            "{found:?}"
        );
        assert!(noisy.sensitivity_median.unwrap() <= 1.1, "{noisy:?}");
        assert_eq!(noisy.verdict, NoiseVerdict::Quiet, "{}", noisy.reason);
        let share = noisy.overhead_share_median.unwrap();
        assert!(share > 0.3, "{noisy:?}");
        assert!((noisy.overhead_share_limit - (1.0 - 1.0 / 1.1)).abs() < 1e-12);
        assert!(
            noisy.reason.contains(&format!(
                "median overhead share {:.1} % > 9.1 % (the time a 1.1× slowdown adds; a tail the medians that decide do not see)",
                100.0 * share
            )),
            "{}",
            noisy.reason
        );
        assert!(noisy
            .overhead_share_max_of
            .unwrap()
            .starts_with("allreduce "));
        // The noise floor's share of default's median: 1 µs of 12 µs.
        let floor = noisy.noise_floor_share_median.unwrap();
        assert!((0.07..0.09).contains(&floor), "{floor}");
    }

    #[test]
    fn powerless_cases_are_left_out_and_nothing_to_judge_is_no_verdict() {
        let mut o = options(None);
        assert_eq!(assess(&[], &o), None);
        // Three rounds of one time each: no test can be significant, and
        // too few times for a usual time.
        let mut few = cases(4, 0.005, 0.0);
        for case in &mut few {
            for s in &mut case.samples {
                s.seconds.truncate(3);
                s.rounds = vec![0, 1, 2];
            }
        }
        let checks = verdicts(&few, &o);
        assert!(checks.iter().all(|c| c.powerless));
        assert_eq!(assess(&checks, &o), None);
        // Without a timer resolution the rule rests on the sensitivity alone.
        o.timer_resolution_s = 0.0;
        let (n, _) = noise(&cases(1, 0.005, 0.0), &o);
        assert_eq!(
            (n.verdict, n.candidates, n.overhead_share_median),
            (NoiseVerdict::Quiet, 0, None)
        );
        assert!(n.reason.contains("no usual times"), "{}", n.reason);
    }

    #[test]
    fn cases_the_timer_cannot_resolve_are_inconclusive_and_make_the_run_noisy() {
        // Medians of 12 and 10 µs; a 3 µs granularity puts both within 5
        // ticks, a 1.9 µs one puts neither.
        let quiet = cases(1, 0.005, 0.0);
        let mut o = options(None);
        o.timer_resolution_s = 1.9e-6;
        let (resolved, found) = noise(&quiet, &o);
        assert_eq!(resolved.verdict, NoiseVerdict::Quiet, "{}", resolved.reason);
        assert!(
            found.iter().all(|&c| c == Conclusion::Violated),
            "{found:?}"
        );
        o.timer_resolution_s = 3e-6;
        let checks = verdicts(&quiet, &o);
        for c in &checks {
            assert_eq!(c.conclusion, Conclusion::Inconclusive, "{c:?}");
            assert!(c.timer_bound && c.powerless, "{c:?}");
            assert_eq!((c.severity, c.sensitivity), (Severity::Ok, None), "{c:?}");
            assert!(c.candidates.iter().all(|s| !s.significant), "{c:?}");
        }
        let n = assess(&checks, &o).expect("judged");
        assert_eq!(n.verdict, NoiseVerdict::Noisy, "{}", n.reason);
        assert!(
            n.reason
                .contains("5 of 5 cases undecided and unable to flag 1.1× (twice the --margin's excess) (5 too short for the timer), more than half"),
            "{}",
            n.reason
        );
        let meta = crate::meta::Meta {
            timer: "MPI_Wtime".into(),
            timer_resolution_s: 3e-6,
            ..Default::default()
        };
        assert_eq!(
            crate::analyse::timer::warning(&checks, &meta).as_deref(),
            Some("5 of 5 cases are powerless: their medians lie within 5 ticks (15.00 µs) of the measured granularity of the timer MPI_Wtime (3.00 µs); use a finer timer or larger sizes")
        );
        assert_eq!(
            crate::analyse::timer::warning(&verdicts(&quiet, &options(None)), &meta),
            None
        );
        // Analysed again, the run keeps one timer warning, and loses it
        // once no case is bound.
        let mut again = meta.clone();
        crate::analyse::timer::warn(&mut again, &checks);
        crate::analyse::timer::warn(&mut again, &checks);
        assert_eq!(again.warnings.len(), 1, "{:?}", again.warnings);
        crate::analyse::timer::warn(&mut again, &verdicts(&quiet, &options(None)));
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
    }
}
