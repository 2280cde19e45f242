//! From observations to verdicts: medians, slowdowns, two-sample tests,
//! severities, and PGMPI's universal guidelines. Runs on rank 0 and offline.

use crate::candidates::native::DEFAULT;
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use crate::stats::{self, correction, describe, mann_whitney, Alternative};
use serde::{Deserialize, Serialize};

pub mod baseline;
pub mod guidelines;

/// How bad a violation is (MPINPC's labels).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Ok,
    Low,
    Medium,
    MediumHigh,
    High,
    VeryHigh,
}

impl Severity {
    /// The severity of a significant slowdown `s` (DESIGN.md's thresholds).
    pub fn of_slowdown(s: f64) -> Severity {
        match s {
            s if s <= 1.0 || s.is_nan() => Severity::Ok,
            s if s < 1.10 => Severity::Low,
            s if s <= 1.50 => Severity::Medium,
            s if s <= 2.00 => Severity::MediumHigh,
            s if s <= 5.00 => Severity::High,
            _ => Severity::VeryHigh,
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Severity::Ok => "ok",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::MediumHigh => "medium-high",
            Severity::High => "high",
            Severity::VeryHigh => "very-high",
        }
    }
}

/// The two-sample test.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Test {
    /// Mann–Whitney U (Wilcoxon rank-sum) on all observations.
    Mwu,
    /// Welch's t-test.
    Welch,
    /// Two-sample Kolmogorov–Smirnov.
    Ks,
    /// Mann–Whitney U on the per-round medians.
    Rounds,
}

/// Multiple-comparison correction across all tests of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Correction {
    None,
    Holm,
}

/// Outlier filter applied per candidate and round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum Outliers {
    None,
    Tukey,
}

/// How to decide.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Options {
    pub alpha: f64,
    pub test: Test,
    pub correction: Correction,
    pub outliers: Outliers,
    /// The cost of synchronisation; differences below it are marked.
    pub noise_floor_s: f64,
}

/// A candidate's observations in one case, as measured or re-read.
#[derive(Clone, Debug)]
pub struct Sample {
    pub name: String,
    /// `None` when measured; the reason it was not otherwise.
    pub excluded: Option<Exclusion>,
    pub seconds: Vec<f64>,
    pub rounds: Vec<u32>,
    /// Observations discarded because a rank started late (`roundtime`).
    pub invalid: usize,
}

/// Why a candidate has no observations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum Exclusion {
    Wrong(String),
    Skipped(String),
}

/// The identity of a case.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseKey {
    pub collective: Collective,
    pub size_bytes: u64,
    pub count: usize,
    pub datatype: Datatype,
    pub op: Op,
    pub root: usize,
}

/// One case's samples.
#[derive(Clone, Debug)]
pub struct CaseData {
    pub key: CaseKey,
    pub samples: Vec<Sample>,
}

/// One candidate in a verdict.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CandidateSummary {
    pub name: String,
    /// `measured`, `wrong` or `skipped`.
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Passed verification (false for wrong and for skipped candidates).
    pub verified: bool,
    pub n: usize,
    /// Observations discarded as invalid (late start under `roundtime`).
    #[serde(default)]
    pub invalid: usize,
    pub outliers_removed: usize,
    pub median_s: Option<f64>,
    pub q1_s: Option<f64>,
    pub q3_s: Option<f64>,
    /// `median(default) / median(this)`.
    pub slowdown: Option<f64>,
    pub p_value: Option<f64>,
    pub p_adjusted: Option<f64>,
    pub significant: bool,
    /// The medians differ by less than the synchronisation noise floor.
    pub below_noise: bool,
}

/// The verdict of one case.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Verdict {
    #[serde(flatten)]
    pub key: CaseKey,
    pub candidates: Vec<CandidateSummary>,
    /// The fastest verified competitor.
    pub fastest: Option<String>,
    pub fastest_median_s: Option<f64>,
    /// `median(default) / median(fastest)`.
    pub slowdown: Option<f64>,
    pub p_value: Option<f64>,
    /// Set by the worst significant competitor.
    pub severity: Severity,
    /// The competitor that sets the severity.
    pub violated_by: Option<String>,
}

impl Verdict {
    pub fn default_candidate(&self) -> Option<&CandidateSummary> {
        self.candidates.iter().find(|c| c.name == DEFAULT)
    }
}

/// A test of one sample against another, as the options say.
pub fn compare(x: &Sample, y: &Sample, test: Test) -> stats::TestOutcome {
    match test {
        Test::Mwu => mann_whitney::test(
            &x.seconds,
            &y.seconds,
            Alternative::Greater,
            mann_whitney::Method::Auto,
        ),
        Test::Welch => stats::welch::test(&x.seconds, &y.seconds, Alternative::Greater),
        Test::Ks => stats::ks::test(&x.seconds, &y.seconds, Alternative::Greater),
        Test::Rounds => mann_whitney::test(
            &round_medians(x),
            &round_medians(y),
            Alternative::Greater,
            mann_whitney::Method::Auto,
        ),
    }
}

/// The observations of each round, in round order.
fn by_round(sample: &Sample) -> Vec<(u32, Vec<f64>)> {
    let mut rounds: Vec<(u32, Vec<f64>)> = Vec::new();
    for (&s, &r) in sample.seconds.iter().zip(&sample.rounds) {
        match rounds.iter_mut().find(|(round, _)| *round == r) {
            Some((_, seconds)) => seconds.push(s),
            None => rounds.push((r, vec![s])),
        }
    }
    rounds.sort_by_key(|(r, _)| *r);
    rounds
}

/// The median of each round's observations.
pub fn round_medians(sample: &Sample) -> Vec<f64> {
    by_round(sample)
        .iter()
        .map(|(_, seconds)| describe::median(seconds))
        .collect()
}

/// Drops Tukey outliers per round; returns how many were removed.
fn filter_outliers(sample: &mut Sample) -> usize {
    let (mut seconds, mut kept_rounds) = (Vec::new(), Vec::new());
    let mut removed = 0;
    for (r, of_round) in by_round(sample) {
        let (kept, dropped) = stats::outliers::tukey(&of_round);
        removed += dropped;
        kept_rounds.extend(std::iter::repeat_n(r, kept.len()));
        seconds.extend(kept);
    }
    sample.seconds = seconds;
    sample.rounds = kept_rounds;
    removed
}

/// Verdicts for every case; p-values corrected across the whole run.
pub fn verdicts(cases: &[CaseData], options: &Options) -> Vec<Verdict> {
    let mut verdicts: Vec<Verdict> = cases.iter().map(|c| verdict(c, options)).collect();
    if options.correction == Correction::Holm {
        let slots: Vec<(usize, usize)> = verdicts
            .iter()
            .enumerate()
            .flat_map(|(v, verdict)| {
                verdict
                    .candidates
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.p_value.is_some())
                    .map(move |(c, _)| (v, c))
            })
            .collect();
        let raw: Vec<f64> = slots
            .iter()
            .map(|&(v, c)| verdicts[v].candidates[c].p_value.unwrap_or(1.0))
            .collect();
        for (&(v, c), adjusted) in slots.iter().zip(correction::holm(&raw)) {
            let candidate = &mut verdicts[v].candidates[c];
            candidate.p_adjusted = Some(adjusted);
            candidate.significant =
                adjusted < options.alpha && candidate.slowdown.is_some_and(|s| s > 1.0);
        }
        for verdict in &mut verdicts {
            settle(verdict);
        }
    }
    verdicts
}

fn verdict(case: &CaseData, options: &Options) -> Verdict {
    let mut samples = case.samples.clone();
    let mut removed = vec![0; samples.len()];
    if options.outliers == Outliers::Tukey {
        for (sample, removed) in samples.iter_mut().zip(&mut removed) {
            *removed = filter_outliers(sample);
        }
    }
    let default = samples
        .iter()
        .find(|s| s.name == DEFAULT && s.excluded.is_none() && !s.seconds.is_empty());
    let default_median = default.map(|d| describe::median(&d.seconds));
    let candidates = samples
        .iter()
        .zip(removed)
        .map(|(sample, outliers_removed)| {
            let (status, reason) = match &sample.excluded {
                None => ("measured", None),
                Some(Exclusion::Wrong(why)) => ("wrong", Some(why.clone())),
                Some(Exclusion::Skipped(why)) => ("skipped", Some(why.clone())),
            };
            let measured = sample.excluded.is_none() && !sample.seconds.is_empty();
            let summary = measured.then(|| describe::summarize(&sample.seconds));
            let median = summary.as_ref().map(|s| s.median);
            let slowdown = match (default_median, median) {
                (Some(d), Some(m)) if m > 0.0 => Some(d / m),
                _ => None,
            };
            let p_value = match default {
                Some(d) if measured && sample.name != DEFAULT => {
                    Some(compare(d, sample, options.test).p_value)
                }
                _ => None,
            };
            let significant =
                p_value.is_some_and(|p| p < options.alpha) && slowdown.is_some_and(|s| s > 1.0);
            CandidateSummary {
                name: sample.name.clone(),
                status: status.to_string(),
                reason,
                verified: sample.excluded.is_none(),
                n: sample.seconds.len(),
                invalid: sample.invalid,
                outliers_removed,
                median_s: median,
                q1_s: summary.as_ref().map(|s| s.q1),
                q3_s: summary.as_ref().map(|s| s.q3),
                slowdown,
                p_value,
                p_adjusted: None,
                significant,
                below_noise: match (default_median, median) {
                    (Some(d), Some(m)) => (d - m).abs() < options.noise_floor_s,
                    _ => false,
                },
            }
        })
        .collect();
    let mut verdict = Verdict {
        key: case.key.clone(),
        candidates,
        fastest: None,
        fastest_median_s: None,
        slowdown: None,
        p_value: None,
        severity: Severity::Ok,
        violated_by: None,
    };
    settle(&mut verdict);
    verdict
}

/// Fills in the fastest competitor and the severity from the candidates.
fn settle(verdict: &mut Verdict) {
    let competitors = || {
        verdict
            .candidates
            .iter()
            .filter(|c| c.name != DEFAULT && c.median_s.is_some())
    };
    let fastest = competitors().min_by(|a, b| {
        a.median_s
            .partial_cmp(&b.median_s)
            .expect("medians are numbers")
    });
    let worst = competitors().filter(|c| c.significant).max_by(|a, b| {
        a.slowdown
            .partial_cmp(&b.slowdown)
            .expect("slowdowns are numbers")
    });
    let (fastest_name, fastest_median, slowdown, p) = match fastest {
        Some(f) => (
            Some(f.name.clone()),
            f.median_s,
            f.slowdown,
            f.p_adjusted.or(f.p_value),
        ),
        None => (None, None, None, None),
    };
    let (severity, by) = match worst {
        Some(w) => (
            Severity::of_slowdown(w.slowdown.unwrap_or(1.0)),
            Some(w.name.clone()),
        ),
        None => (Severity::Ok, None),
    };
    verdict.fastest = fastest_name;
    verdict.fastest_median_s = fastest_median;
    verdict.slowdown = slowdown;
    verdict.p_value = p;
    verdict.severity = severity;
    verdict.violated_by = by;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn sample(name: &str, seconds: Vec<f64>, rounds: u32) -> Sample {
        let n = seconds.len() as u32;
        Sample {
            name: name.into(),
            excluded: None,
            rounds: (0..n).map(|i| i * rounds / n.max(1)).collect(),
            seconds,
            invalid: 0,
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
            key: CaseKey {
                collective: Collective::Allreduce,
                size_bytes: 8,
                count: 8,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            samples: vec![
                sample(DEFAULT, default, 10),
                sample("other", competitor, 10),
            ],
        }
    }

    fn options(test: Test) -> Options {
        Options {
            alpha: 0.05,
            test,
            correction: Correction::None,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
        }
    }

    #[test]
    fn a_a_comparisons_flag_violations_at_about_alpha() {
        // 1000 comparisons of two samples of one distribution: the number
        // flagged is Binomial(1000, 0.05) for a one-sided test at α = 0.05
        // (mean 50, sd 6.9); each test must stay within about 3 sd.
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let cases: Vec<CaseData> = (0..1000)
            .map(|_| case(timings(&mut rng, 60), timings(&mut rng, 60)))
            .collect();
        for test in [Test::Mwu, Test::Welch, Test::Ks, Test::Rounds] {
            let flagged = verdicts(&cases, &options(test))
                .iter()
                .filter(|v| v.severity != Severity::Ok)
                .count();
            eprintln!("A/A: {test:?} flagged {flagged} of 1000");
            let max = if test == Test::Rounds { 80 } else { 72 };
            assert!(
                (20..=max).contains(&flagged),
                "{test:?} flagged {flagged} of 1000"
            );
        }
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

    #[test]
    fn holm_adjusts_across_the_run() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let cases: Vec<CaseData> = (0..50)
            .map(|_| case(timings(&mut rng, 40), timings(&mut rng, 40)))
            .collect();
        let mut o = options(Test::Mwu);
        o.correction = Correction::Holm;
        let v = verdicts(&cases, &o);
        assert!(
            v.iter().all(|v| v.severity == Severity::Ok),
            "no A/A case survives Holm"
        );
        let c = &v[0].candidates[1];
        assert!(c.p_adjusted.unwrap() >= c.p_value.unwrap());
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
