//! A hand-made run for the renderers' tests. Built from JSON, as
//! `results.json` would hold it, so that fields added with a serde default
//! elsewhere leave these tests alone.

use crate::analyse::Results;
use crate::analyse::{
    CandidateSummary, Correction, Options, Outliers, Severity, Test, Verdict, DEFAULT_MARGIN,
};
use crate::collective::Collective;
use crate::meta::Meta;
use serde_json::{json, Value};

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("the fixture matches the types")
}

/// Asserts that `text` holds every one of `parts`, naming the first missing.
pub fn assert_contains(text: &str, parts: &[&str]) {
    for part in parts {
        assert!(text.contains(part), "{part:?} missing in\n{text}");
    }
}

/// A measured candidate: median `m` µs against the default's
/// `default_us`, raw p-value `p`, adjusted p-value `3p`; significant as
/// the shipped rule has it: adjusted p below α and a slowdown above the
/// default margin.
pub fn measured(name: &str, default_us: f64, m: f64, p: Option<f64>) -> CandidateSummary {
    let slowdown = default_us / m;
    let adjusted = p.map(|p| (p * 3.0).min(1.0));
    from_json(json!({
        "name": name,
        "status": "measured",
        "verified": true,
        "n": 100,
        "outliers_removed": 2,
        "median_s": m * 1e-6,
        "round_median_s": m * 1e-6,
        "rounds": 10,
        "q1_s": m * 0.95e-6,
        "q3_s": m * 1.1e-6,
        "slowdown": slowdown,
        "p_value": p,
        "p_adjusted": adjusted,
        "significant": adjusted.is_some_and(|p| p < 0.05) && slowdown > DEFAULT_MARGIN,
        "below_noise": ((default_us - m) * 1e-6).abs() < 0.5e-6,
    }))
}

pub fn excluded(name: &str, status: &str, reason: &str) -> CandidateSummary {
    from_json(json!({
        "name": name,
        "status": status,
        "reason": reason,
        "verified": status != "wrong",
        "n": 0,
        "outliers_removed": 0,
        "median_s": null,
        "q1_s": null,
        "q3_s": null,
        "slowdown": null,
        "p_value": null,
        "p_adjusted": null,
        "significant": false,
        "below_noise": false,
    }))
}

fn key(collective: Collective, size_bytes: u64, root: usize) -> Value {
    json!({
        "collective": collective,
        "size_bytes": size_bytes,
        "count": size_bytes,
        "datatype": "byte",
        "op": "bor",
        "root": root,
    })
}

/// A verdict whose default takes `default_us` and whose competitors
/// take the given medians (µs) with the given raw p-values.
pub fn check(
    collective: Collective,
    size_bytes: u64,
    root: usize,
    default_us: f64,
    competitors: &[(&str, f64, f64)],
    others: Vec<CandidateSummary>,
) -> Verdict {
    let mut candidates = vec![measured("default", default_us, default_us, None)];
    candidates.extend(
        competitors
            .iter()
            .map(|&(name, m, p)| measured(name, default_us, m, Some(p))),
    );
    candidates.extend(others);
    let competitors = || {
        candidates
            .iter()
            .filter(|c| c.name != "default" && c.median_s.is_some())
    };
    let fastest = competitors().min_by(|a, b| a.median_s.partial_cmp(&b.median_s).unwrap());
    let worst = competitors()
        .filter(|c| c.significant)
        .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap());
    let shown = worst.or(fastest);
    let mut verdict = key(collective, size_bytes, root);
    let fields = json!({
        "verdict": if worst.is_some() { "violated" } else { "holds" },
        "candidates": candidates,
        "competitor": shown.map(|f| f.name.clone()),
        "competitor_median_s": shown.and_then(|f| f.median_s),
        "fastest": fastest.map(|f| f.name.clone()),
        "slowdown": shown.and_then(|f| f.slowdown),
        "p_value": shown.and_then(|f| f.p_adjusted),
        "sensitivity": 1.2,
        "severity": worst.map_or(Severity::Ok, |w| Severity::of_slowdown(w.slowdown.unwrap())),
        "violated_by": worst.map(|w| w.name.clone()),
    });
    verdict
        .as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    from_json(verdict)
}

/// Allreduce at 8 B (ok) and 8 KiB (medium-high, with a wrong and a
/// skipped competitor); bcast at 8 B only (very-high) and root 2;
/// scatter at 1 MiB with the default never measured; a monotony
/// violation of allreduce and a baseline regression of bcast.
pub fn results() -> Results {
    let monotony = with(
        key(Collective::Allreduce, 8192, 0),
        json!({"other_size_bytes": 8, "median_s": 5e-6, "bound_s": 10e-6, "ratio": 2.0,
               "p_value": 1e-4, "severity": "medium-high"}),
    );
    from_json(json!({
        "meta": meta(),
        "complete": true,
        "checks": checks(),
        "guidelines": {"monotony": [monotony], "split_robustness": []},
        "baseline": baseline(),
    }))
}

/// The run's facts: Open MPI on 8 processes, 2 nodes.
fn meta() -> Meta {
    Meta {
        tool: "pgcheck".into(),
        tool_version: "0.1.0".into(),
        mpi_library: "Open MPI v4.1.6 <test & build>\nsecond line".into(),
        processes: 8,
        nodes: 2,
        ppn: 4,
        budget_s: 1.0,
        rounds: 10,
        alpha: 0.05,
        test: "mwu".into(),
        correction: "holm".into(),
        plan_s: 12.0,
        wall_s: 12.4,
        noise_floor_s: 2e-6,
        ..Meta::default()
    }
}

/// The checks of [`results`].
fn checks() -> Vec<Verdict> {
    let wrong = excluded(
        "allreduce_as_allreduce_lane",
        "wrong",
        "rank 3: element 17 is 4, expected 5",
    );
    let skipped = excluded(
        "allreduce_as_allreduce_hier",
        "skipped",
        "needs a commutative operator | not given",
    );
    let mut unmeasured = check(Collective::Scatter, 1 << 20, 0, 100.0, &[], vec![]);
    unmeasured.candidates = vec![excluded("default", "skipped", "interrupted")];
    unmeasured.conclusion = crate::analyse::Conclusion::Unmeasured;
    unmeasured.reason = Some("interrupted".into());
    vec![
        check(
            Collective::Allreduce,
            8,
            0,
            10.0,
            &[
                ("allreduce_as_reduce_bcast", 12.0, 0.9),
                ("allreduce_as_reducescatter_allgather", 10.2, 0.3),
            ],
            vec![],
        ),
        check(
            Collective::Allreduce,
            8192,
            0,
            100.0,
            &[
                ("allreduce_as_reduce_bcast", 120.0, 0.8),
                ("allreduce_as_reducescatter_allgather", 55.0, 1e-6),
            ],
            vec![wrong, skipped],
        ),
        check(
            Collective::Bcast,
            8,
            2,
            600.0,
            &[("bcast_as_scatter_allgather", 100.0, 1e-9)],
            vec![],
        ),
        unmeasured,
    ]
}

/// A case's key with `fields` added.
fn with(mut key: Value, fields: Value) -> Value {
    key.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    key
}

/// The comparison with a baseline: bcast a regression, allreduce 8 B
/// slower but not shown, a violation removed and one remaining.
fn baseline() -> Value {
    let regression = with(
        key(Collective::Bcast, 8, 2),
        json!({"baseline_median_s": 300e-6, "median_s": 600e-6, "ratio": 2.0,
               "p_value": 1e-5, "regression": true}),
    );
    // Beyond the tolerance, but within what launches vary by: not shown.
    let unshown = with(
        key(Collective::Allreduce, 8, 0),
        json!({"baseline_median_s": 10e-6, "median_s": 14e-6, "ratio": 1.4,
               "p_value": 0.2, "regression": false}),
    );
    let side = |verdict: &str, by: Option<&str>, slowdown: Option<f64>, severity: &str| json!({"verdict": verdict, "violated_by": by, "slowdown": slowdown, "severity": severity});
    let removed = with(
        key(Collective::Allreduce, 8, 0),
        json!({"transition": "removed", "baseline_violated": 4, "baseline_launches": 5,
               "baseline": side("violated", Some("allreduce_as_library_ring"), Some(1.5), "medium"),
               "now": side("holds", None, None, "ok"),
               "library_competitor": null, "library_slowdown": null, "new_algorithm_family": null}),
    );
    let remaining = with(
        key(Collective::Bcast, 8, 2),
        json!({"transition": "remaining", "baseline_violated": 5, "baseline_launches": 5,
               "baseline": side("violated", Some("bcast_as_library_binomial"), Some(3.0), "high"),
               "now": side("violated", Some("bcast_as_scatter_allgather"), Some(6.0), "very-high"),
               "library_competitor": null, "library_slowdown": null,
               "new_algorithm_family": "mockup"}),
    );
    json!({"baseline": "main/results.json", "tolerance": 0.05, "changes": [regression, unshown],
           "only_in_baseline": [key(Collective::Gather, 8, 0)], "only_in_current": [],
           "violations": [removed, remaining]})
}

/// [`results`] with a usual time for every measured candidate (200 times
/// from its median on, with a discretised exponential error of a tenth of
/// it, 1 ns ticks) and the noise verdict of the rule (margin 1.05) with
/// `q_max` 0.95.
pub fn results_with_usual() -> Results {
    use crate::analyse::{noise, usual, Options, Sample};
    use crate::case::Outcome;
    let mut results = results();
    let mut x: u64 = 7;
    for check in &mut results.checks {
        for c in &mut check.candidates {
            let Some(median) = c.median_s else { continue };
            let seconds: Vec<f64> = (0..200)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let u = (x >> 11) as f64 / (1u64 << 53) as f64;
                    let ticks = (-(1.0 - u).ln() * median * 0.1 / 1e-9).floor();
                    median + ticks * 1e-9
                })
                .collect();
            let sample = Sample {
                name: c.name.clone(),
                outcome: Outcome::Measured,
                rounds: (0..200).map(|i| i / 20).collect(),
                seconds,
                invalid_rounds: Vec::new(),
            };
            c.usual = usual::of(&sample, None, 1e-9, 0.95);
        }
    }
    let options = Options {
        noise_floor_s: results.meta.noise_floor_s,
        ..options()
    };
    results.meta.qmax = 0.95;
    results.meta.noise = noise::assess(&results.checks, &options);
    results
}

/// [`results_with_usual`] with every case undecided: at their
/// sensitivities (1.2× and more) the noise verdict says noisy.
pub fn results_noisy() -> Results {
    let mut results = results_with_usual();
    for check in &mut results.checks {
        check.conclusion = crate::analyse::Conclusion::Inconclusive;
    }
    let options = Options {
        noise_floor_s: results.meta.noise_floor_s,
        ..options()
    };
    results.meta.noise = crate::analyse::noise::assess(&results.checks, &options);
    results
}

/// [`results`] with ten per-round medians for every measured candidate,
/// drifting up by 1 % of its median a round.
pub fn results_with_rounds() -> Results {
    let mut results = results();
    for c in results.checks.iter_mut().flat_map(|c| &mut c.candidates) {
        if let Some(median) = c.median_s {
            c.round_medians_s = (0..10)
                .map(|i| median * (0.95 + 0.01 * f64::from(i)))
                .collect();
        }
    }
    results
}

/// The shipped defaults: α 0.05, Mann–Whitney, Holm, margin 1.05.
pub fn options() -> Options {
    Options {
        alpha: 0.05,
        test: Test::Mwu,
        correction: Correction::Holm,
        outliers: Outliers::None,
        noise_floor_s: 0.0,
        margin: 1.05,
        qmax: 0.95,
        timer_resolution_s: 1e-9,
        fail_on: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significance_follows_the_shipped_margin() {
        // p far below α: only the slowdown decides.
        let within = measured("c", 10.4, 10.0, Some(1e-9));
        assert!(!within.significant, "1.04× is within the margin");
        let beyond = measured("c", 10.6, 10.0, Some(1e-9));
        assert!(beyond.significant, "1.06× is beyond it");
    }
}
