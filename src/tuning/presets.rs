//! What `pgcheck tune` decides from launches that each ran with one
//! selection setting of a library that reads it once, at `MPI_Init`
//! (Intel MPI's `I_MPI_ADJUST_<COLLECTIVE>`): its algorithms cannot be
//! candidates of one launch, so each is measured in launches of its own.
//!
//! Two launches differ by more than their rounds say (the launch is a
//! factor), so the launch is the unit: per case, each launch gives one
//! number, `default`'s logarithm of its median of per-round medians less
//! the median logarithm of the case's competitors measured in the same
//! launch (the anchor). The anchor cancels the machine's state of that
//! launch; its competitors are those built from point-to-point calls or
//! from other collectives ([`anchors`]), which the preset cannot move. A
//! case's launches fall into groups by the preset the launch's
//! setting selects at the case's size and process count (none: the
//! library's own choice). Each preset with at least [`LAUNCHES_NEEDED`]
//! launches is tested against the library's choice with as many (Welch's
//! t-test, one-sided, on the anchored logarithms), Holm-corrected over the
//! case's presets; the largest significant speedup is the change.

use super::intel;
use super::{Change, Decision, Tuning};
use crate::analyse::baseline::LAUNCHES_NEEDED;
use crate::analyse::{Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::candidates::Family;
use crate::case::{CaseKey, Outcome};
use crate::meta::LibraryAlgorithm;
use crate::stats::describe::{mean, median};
use crate::stats::{correction, welch, Alternative};
use std::collections::BTreeMap;

/// One launch: its name (for messages) and its results.
pub type Launch = (String, Results);

/// Decides every case the launches share; an error when they are not
/// launches of one Intel MPI job shape with the library's choice and at
/// least one preset.
pub fn decide(launches: &[Launch]) -> Result<Tuning, String> {
    let (_, first) = launches.first().ok_or("no launch to tune from")?;
    for (name, results) in launches {
        if !is_intel_mpi(&results.meta.mpi_library) {
            return Err(format!(
                "{name}: {} selects its algorithms inside one launch: tune it from one run with \
                 `competitors: library`; launches per preset are for Intel MPI",
                results
                    .meta
                    .mpi_library
                    .lines()
                    .next()
                    .unwrap_or("its library")
            ));
        }
        if results.meta.processes != first.meta.processes {
            return Err(format!(
                "{name} ran on {} processes, {} on {}: a preset is tuned per process count",
                results.meta.processes, launches[0].0, first.meta.processes
            ));
        }
    }
    let processes = first.meta.processes;
    // Every case of any launch, in the order first seen: a launch stopped
    // early (at a preset's wrong result) lacks the cases after it.
    let mut keys: Vec<&CaseKey> = Vec::new();
    for key in launches
        .iter()
        .flat_map(|(_, r)| r.checks.iter().map(|v| &v.key))
    {
        if intel::variable(key).is_some() && !keys.contains(&key) {
            keys.push(key);
        }
    }
    let mut decisions = Vec::new();
    let mut tried = false;
    for key in keys {
        let case = case_launches(launches, key, processes)?;
        tried |= case.groups.keys().any(Option::is_some) || !case.wrong.is_empty();
        decisions.push(decide_case(key, &case, first.meta.alpha));
    }
    if !tried {
        return Err(format!(
            "no launch selected a preset for a case: launch with \
             I_MPI_ADJUST_<COLLECTIVE>=<preset> ({} launches per preset, and as many without)",
            LAUNCHES_NEEDED
        ));
    }
    Ok(Tuning {
        library: "intel_mpi".into(),
        processes,
        decisions,
    })
}

/// Whether `MPI_Get_library_version` names Intel MPI.
pub fn is_intel_mpi(library: &str) -> bool {
    library.starts_with("Intel(R) MPI")
}

/// The case's anchored logarithms per launch, grouped by the preset the
/// launch's setting selects for it (`None`: the library's own choice).
type Groups = BTreeMap<Option<u32>, Vec<f64>>;

/// One case over the launches: its groups, and the presets whose result
/// was wrong in it, each with a launch that showed it.
struct CaseLaunches {
    groups: Groups,
    wrong: BTreeMap<u32, String>,
}

fn case_launches(
    launches: &[Launch],
    key: &CaseKey,
    processes: usize,
) -> Result<CaseLaunches, String> {
    let variable = intel::variable(key).expect("only cases with a variable");
    let mut case = CaseLaunches {
        groups: Groups::new(),
        wrong: BTreeMap::new(),
    };
    for (name, results) in launches {
        let preset = match results.meta.environment.get(&variable) {
            Some(setting) => intel::preset_of(setting, intel::message_size(key), processes)
                .map_err(|e| format!("{name}: {variable}: {e}"))?,
            None => None,
        };
        let Some(verdict) = results.checks.iter().find(|v| &v.key == key) else {
            continue;
        };
        let wrong = verdict
            .default_candidate()
            .is_some_and(|d| matches!(d.outcome, Outcome::Wrong(_)));
        match (preset, wrong) {
            (Some(preset), true) => {
                case.wrong.entry(preset).or_insert_with(|| name.clone());
            }
            _ => {
                if let Some(anchored) = anchored_log(verdict) {
                    case.groups.entry(preset).or_default().push(anchored);
                }
            }
        }
    }
    Ok(case)
}

/// `default`'s log median less the median log median of the case's
/// verified competitors that do not call the collective itself.
fn anchored_log(case: &Verdict) -> Option<f64> {
    let log_median = |c: &crate::analyse::CandidateSummary| {
        c.round_median_s
            .filter(|m| c.verified && m.is_finite() && *m > 0.0)
            .map(f64::ln)
    };
    let default = log_median(case.default_candidate()?)?;
    let prefix = case.key.operation.prefix();
    let anchors: Vec<f64> = case
        .candidates
        .iter()
        .filter(|c| anchors(&c.name, &prefix))
        .filter_map(log_median)
        .collect();
    (!anchors.is_empty()).then(|| default - median(&anchors))
}

fn presets(n: usize) -> String {
    match n {
        1 => "1 preset".into(),
        n => format!("{n} presets"),
    }
}

/// Whether competitor `name` may anchor its case: built from
/// point-to-point calls (circulant, p2p) or from other collectives (a
/// mock-up whose words after `_as_` do not include the collective's
/// prefix; `allreduce_as_allreduce_user_op` calls it with another
/// operator). Lane, hierarchical and communicator competitors call it on
/// other communicators: they move with the preset.
fn anchors(name: &str, prefix: &str) -> bool {
    let calls_itself = || {
        name.split_once("_as_")
            .is_some_and(|(_, how)| how.split('_').any(|word| word == prefix))
    };
    crate::candidates::find(name).is_some_and(|c| match c.family {
        Family::Circulant | Family::P2p => true,
        Family::Mockup => !calls_itself(),
        _ => false,
    })
}

/// The case's decision among the presets that never computed a wrong
/// result in it; those that did are named.
fn decide_case(key: &CaseKey, case: &CaseLaunches, alpha: f64) -> Decision {
    let mut groups = case.groups.clone();
    groups.retain(|preset, _| preset.is_none_or(|p| !case.wrong.contains_key(&p)));
    let mut decision = decide_groups(key, &groups, alpha);
    for (preset, launch) in &case.wrong {
        decision.why += &format!("; preset {preset} not selectable: a wrong result in {launch}");
    }
    decision
}

fn decide_groups(key: &CaseKey, groups: &Groups, alpha: f64) -> Decision {
    let keep = |why: String| Decision {
        key: key.clone(),
        change: None,
        why,
    };
    let own = groups.get(&None).map_or(&[][..], Vec::as_slice);
    if own.len() < LAUNCHES_NEEDED {
        return keep(format!(
            "{} launches with the library's own choice (of {LAUNCHES_NEEDED} needed)",
            own.len()
        ));
    }
    let tested: Vec<(u32, &Vec<f64>)> = groups
        .iter()
        .filter_map(|(p, a)| Some(((*p)?, a)))
        .filter(|(_, a)| a.len() >= LAUNCHES_NEEDED)
        .collect();
    if tested.is_empty() {
        return keep(too_few(groups));
    }
    let p_values: Vec<f64> = tested
        .iter()
        .map(|(_, a)| welch::test(a, own, Alternative::Less).p_value)
        .collect();
    let adjusted = correction::holm(&p_values);
    let results: Vec<(u32, f64, f64, usize)> = tested
        .iter()
        .zip(&adjusted)
        .map(|((preset, a), p)| (*preset, (mean(own) - mean(a)).exp(), *p, a.len()))
        .collect();
    let launches = |n: usize| format!("{n} launches against {}", own.len());
    let best = results
        .iter()
        .filter(|(_, slowdown, p, _)| *p <= alpha && *slowdown > 1.0)
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let Some(&(preset, slowdown, p_value, n)) = best else {
        let (preset, slowdown, p, n) = *results.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        return keep(format!(
            "no preset significantly faster (fastest of {}: {preset}, slowdown {slowdown:.3}, \
             p = {p:.2e}; {})",
            presets(results.len()),
            launches(n)
        ));
    };
    Decision {
        key: key.clone(),
        why: format!(
            "preset {preset} is {slowdown:.3}× faster than {DEFAULT} \
             (p = {p_value:.2e}, Holm over {}; {})",
            presets(results.len()),
            launches(n)
        ),
        change: Some(Change {
            algorithm: preset_algorithm(key, preset),
            slowdown,
            p_value,
            sensitivity: None,
        }),
    }
}

/// Why no preset of `groups` could be tested: none selected, or too few
/// launches of each.
fn too_few(groups: &Groups) -> String {
    let short: Vec<String> = groups
        .iter()
        .filter_map(|(p, a)| Some(format!("{}: {}", (*p)?, a.len())))
        .collect();
    match short.is_empty() {
        true => "no launch selected a preset for it".into(),
        false => format!(
            "no preset ran in {LAUNCHES_NEEDED} launches (launches per preset, \
             counted where a competitor anchors them: {})",
            short.join(", ")
        ),
    }
}

/// The setting that selects `preset` for `key`'s collective.
fn preset_algorithm(key: &CaseKey, preset: u32) -> LibraryAlgorithm {
    let variable = intel::variable(key).expect("only cases with a variable");
    LibraryAlgorithm {
        name: format!("{variable}={preset}"),
        library: "intel_mpi".into(),
        collective: key.operation.collective.name().into(),
        variable,
        value: preset as i32,
        item: format!("preset {preset}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::tuning::tests::{candidate, results, verdict};

    const INTEL: &str = "Intel(R) MPI Library 2021.19 for Linux* OS\n";

    /// A launch whose machine ran `state` times as slow: `default` at
    /// `allreduce` µs per size (8 B and 1 KiB), reduce + bcast at 10 µs and
    /// a lane allreduce that moves with `default`.
    fn launch(setting: Option<&str>, state: f64, allreduce: [f64; 2]) -> Launch {
        let checks = [8, 1024]
            .into_iter()
            .zip(allreduce)
            .map(|(size, us)| {
                let at = |name: &str, us: f64| {
                    let mut c = candidate(name, None, None, false);
                    c.round_median_s = Some(us * state * 1e-6);
                    c
                };
                verdict(
                    Collective::Allreduce,
                    size,
                    vec![
                        at(DEFAULT, us),
                        at("allreduce_as_reduce_bcast", 10.0),
                        at("allreduce_as_allreduce_lane", us * 1.1),
                    ],
                )
            })
            .collect();
        let mut results = results(checks, vec![]);
        results.meta.mpi_library = INTEL.into();
        results.meta.processes = 2;
        results.meta.alpha = 0.05;
        if let Some(s) = setting {
            results
                .meta
                .environment
                .insert("I_MPI_ADJUST_ALLREDUCE".into(), s.into());
        }
        (format!("{}-{state}", setting.unwrap_or("own")), results)
    }

    /// Launches of three presets and the library's choice, three each, in
    /// states spread 2.4× apart (as on this machine): the library's choice
    /// takes 12 µs at 8 B, preset 3 8 µs (1.5× faster), preset 8 11.6 µs;
    /// at 1 KiB every preset is within 1 % of the library's choice.
    fn launches() -> Vec<Launch> {
        let states = [1.0, 2.4, 1.3];
        let jitter = [1.0, 1.01, 0.99];
        let mut out = Vec::new();
        for (i, state) in states.iter().enumerate() {
            let j = jitter[i];
            out.push(launch(None, *state, [12.0 * j, 20.0 * j]));
            out.push(launch(Some("3"), *state, [8.0 / j, 20.2 * j]));
            out.push(launch(Some("8"), *state, [11.6 * j, 19.9 / j]));
            out.push(launch(Some("9"), *state, [12.3, 20.1]));
        }
        out
    }

    #[test]
    fn a_preset_faster_in_every_state_is_chosen_and_a_level_one_is_not() {
        let tuning = decide(&launches()).unwrap();
        assert_eq!(tuning.library, "intel_mpi");
        let at_8 = &tuning.decisions[0];
        let change = at_8.change.as_ref().expect("a change at 8 B");
        assert_eq!(change.algorithm.value, 3);
        assert_eq!(change.algorithm.variable, "I_MPI_ADJUST_ALLREDUCE");
        assert!((change.slowdown - 1.5).abs() < 0.02, "{}", change.slowdown);
        assert!(change.p_value < 0.01, "{}", change.p_value);
        assert!(at_8.why.contains("Holm over 3 presets"), "{}", at_8.why);
        let at_1k = &tuning.decisions[1];
        assert_eq!(at_1k.change, None, "{}", at_1k.why);
        assert!(
            at_1k.why.contains("no preset significantly faster"),
            "{}",
            at_1k.why
        );
    }

    #[test]
    fn a_preset_that_computed_a_wrong_result_is_never_selected_there() {
        let mut launches = launches();
        // A fourth launch of preset 3, the fastest at 8 B, so that three
        // right ones would choose it; then one of them gets 8 B wrong.
        launches.push(launch(Some("3"), 1.1, [8.0, 20.2]));
        let (name, results) = &mut launches[5];
        assert_eq!(name, "3-2.4");
        let default = &mut results.checks[0].candidates[0];
        default.outcome = Outcome::Wrong("differs from the reference".into());
        default.verified = false;
        let tuning = decide(&launches).unwrap();
        let at_8 = &tuning.decisions[0];
        assert_ne!(
            at_8.change.as_ref().map(|c| c.algorithm.value),
            Some(3),
            "{}",
            at_8.why
        );
        assert!(
            at_8.why
                .ends_with("; preset 3 not selectable: a wrong result in 3-2.4"),
            "{}",
            at_8.why
        );
        // At 1 KiB the same launch was right.
        assert!(!tuning.decisions[1].why.contains("not selectable"));
    }

    #[test]
    fn without_the_anchor_the_states_would_hide_the_preset() {
        // The same launches' raw medians: the 2.4× state spreads them more
        // than the preset moves them.
        let raw = |setting: Option<&str>| -> Vec<f64> {
            launches()
                .iter()
                .filter(|(_, r)| {
                    r.meta
                        .environment
                        .get("I_MPI_ADJUST_ALLREDUCE")
                        .map(String::as_str)
                        == setting
                })
                .map(|(_, r)| {
                    r.checks[0]
                        .default_candidate()
                        .unwrap()
                        .round_median_s
                        .unwrap()
                        .ln()
                })
                .collect()
        };
        let p = welch::test(&raw(Some("3")), &raw(None), Alternative::Less).p_value;
        assert!(p > 0.05, "{p}");
    }

    #[test]
    fn a_tuned_setting_counts_for_the_preset_it_selects_at_each_size() {
        // Confirmation launches: the written setting (preset 3 at 8 B
        // only) against the library's choice.
        let mut confirm: Vec<Launch> = launches()
            .into_iter()
            .filter(|(_, r)| r.meta.environment.is_empty())
            .collect();
        for state in [1.0, 2.4, 1.3] {
            confirm.push(launch(Some("3:8-1023@2-2"), state, [8.0, 20.0]));
        }
        let tuning = decide(&confirm).unwrap();
        assert_eq!(
            tuning.decisions[0]
                .change
                .as_ref()
                .map(|c| c.algorithm.value),
            Some(3)
        );
        // At 1 KiB the setting selects nothing: every launch is the library's.
        assert_eq!(tuning.decisions[1].change, None);
        assert!(
            tuning.decisions[1].why == "no launch selected a preset for it",
            "{}",
            tuning.decisions[1].why
        );
    }

    #[test]
    fn launches_that_cannot_tune_say_why() {
        let mut few = launches();
        few.retain(|(_, r)| r.meta.environment.contains_key("I_MPI_ADJUST_ALLREDUCE"));
        let tuning = decide(&few).unwrap();
        assert!(tuning.decisions[0]
            .why
            .contains("0 launches with the library's own choice"));
        let mut threes = 0;
        let two: Vec<Launch> = launches()
            .into_iter()
            .filter(
                |(_, r)| match r.meta.environment.get("I_MPI_ADJUST_ALLREDUCE") {
                    None => true,
                    Some(s) if s == "3" => {
                        threes += 1;
                        threes <= 2
                    }
                    Some(_) => false,
                },
            )
            .collect();
        assert_eq!(
            decide(&two).unwrap().decisions[0].why,
            "no preset ran in 3 launches (launches per preset, counted where a competitor \
             anchors them: 3: 2)"
        );
        let own: Vec<Launch> = launches()
            .into_iter()
            .filter(|(_, r)| r.meta.environment.is_empty())
            .collect();
        assert!(decide(&own)
            .unwrap_err()
            .contains("no launch selected a preset"));
        let mut other = launches();
        other[1].1.meta.mpi_library = "Open MPI v4.1.4".into();
        assert!(decide(&other).unwrap_err().contains("inside one launch"));
        let mut shape = launches();
        shape[2].1.meta.processes = 4;
        assert!(decide(&shape).unwrap_err().contains("per process count"));
        let mut bad = launches();
        bad[1]
            .1
            .meta
            .environment
            .insert("I_MPI_ADJUST_ALLREDUCE".into(), "ring".into());
        assert!(decide(&bad).unwrap_err().contains("is no preset number"));
    }

    #[test]
    fn competitors_that_call_the_collective_do_not_anchor() {
        let anchor = |name: &str| anchors(name, "allreduce");
        assert!(anchor("allreduce_as_reduce_bcast"));
        assert!(anchor("allreduce_as_reducescatterblock_allgather"));
        assert!(anchor("allreduce_as_allreduce_circulant"));
        // Its own collective, on other communicators or with a user operator.
        for name in [
            "allreduce_as_allreduce_lane",
            "allreduce_as_allreduce_hier",
            "allreduce_as_allreduce_user_op",
            "allreduce_as_permuted_comm",
            "allreduce_as_dup_comm",
            DEFAULT,
            "no_such_competitor",
        ] {
            assert!(!anchor(name), "{name}");
        }
        assert!(anchors("reduce_as_allreduce", "reduce"));
    }
}
