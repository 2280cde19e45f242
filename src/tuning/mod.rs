//! What `pgcheck tune` decides from a finished run, as plain data: per
//! case, the fastest verified library algorithm that is significantly
//! faster than `default` (the library's own choice), or why the library's
//! choice stays. The library's tuning file is written from it by one
//! module per format: Open MPI's coll_tuned rules ([`open_mpi`]), MPICH's
//! algorithm variables ([`mpich`]), Intel MPI's presets ([`intel`]), whose
//! decision across launches is [`presets`].

pub mod intel;
pub mod mpich;
pub mod open_mpi;
pub mod presets;

use crate::analyse::{CandidateSummary, Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::case::CaseKey;
use crate::meta::LibraryAlgorithm;

/// One case's decision.
#[derive(Clone, Debug, PartialEq)]
pub struct Decision {
    pub key: CaseKey,
    /// The algorithm to select instead of the library's choice, if any.
    pub change: Option<Change>,
    /// Why: the numbers of the change, or why the library's choice stays.
    pub why: String,
}

/// A library algorithm significantly faster than `default`.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub algorithm: LibraryAlgorithm,
    /// default's median of per-round medians / the algorithm's.
    pub slowdown: f64,
    /// Corrected within the case, as the verdict uses it.
    pub p_value: f64,
    /// The smallest slowdown the case could have flagged.
    pub sensitivity: Option<f64>,
}

/// What a run says about the library's algorithms.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuning {
    /// `open_mpi` or `mpich`.
    pub library: String,
    pub processes: usize,
    pub decisions: Vec<Decision>,
}

impl Tuning {
    /// The decisions that change something.
    pub fn changes(&self) -> impl Iterator<Item = (&Decision, &Change)> {
        self.decisions
            .iter()
            .filter_map(|d| d.change.as_ref().map(|c| (d, c)))
    }
}

/// Decides every case of `results`; an error when the run measured none of
/// the library's algorithms.
pub fn decide(results: &Results) -> Result<Tuning, String> {
    let algorithms = &results.meta.library_algorithms;
    let Some(library) = algorithms.first().map(|a| a.library.clone()) else {
        return Err(
            "the run knew none of the library's algorithms (meta.library_algorithms \
             is empty): run it with `competitors: library` on a library pgcheck can tune"
                .into(),
        );
    };
    let of = |c: &CandidateSummary| algorithms.iter().find(|a| a.name == c.name);
    let measured = results
        .checks
        .iter()
        .any(|v| v.candidates.iter().any(|c| of(c).is_some() && c.verified));
    if !measured {
        return Err(
            "the run measured none of the library's algorithms: select them with \
             `competitors: library` (Open MPI 4.1: start the run with \
             OMPI_MCA_coll_tuned_use_dynamic_rules=1)"
                .into(),
        );
    }
    let decisions = results
        .checks
        .iter()
        .filter(|v| v.candidates.iter().any(|c| of(c).is_some()))
        .map(|v| decide_case(v, algorithms))
        .collect();
    Ok(Tuning {
        library,
        processes: results.meta.processes,
        decisions,
    })
}

/// The fastest significantly faster library algorithm of one case; ties
/// (nothing significant) keep the library's choice.
fn decide_case(verdict: &Verdict, algorithms: &[LibraryAlgorithm]) -> Decision {
    let library = |c: &&CandidateSummary| algorithms.iter().any(|a| a.name == c.name);
    let measured: Vec<&CandidateSummary> = verdict
        .candidates
        .iter()
        .filter(library)
        .filter(|c| c.verified && c.slowdown.is_some())
        .collect();
    let keep = |why: String| Decision {
        key: verdict.key.clone(),
        change: None,
        why,
    };
    if verdict.default_candidate().is_none_or(|d| !d.verified) {
        return keep("the library's own call was not measured or was wrong".into());
    }
    let best = measured
        .iter()
        .filter(|c| c.significant && c.slowdown.is_some_and(|s| s > 1.0))
        .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap());
    match best {
        Some(best) => {
            let algorithm = algorithms.iter().find(|a| a.name == best.name).unwrap();
            let change = Change {
                algorithm: algorithm.clone(),
                slowdown: best.slowdown.unwrap(),
                p_value: best.p_adjusted.or(best.p_value).unwrap_or(f64::NAN),
                sensitivity: verdict.sensitivity,
            };
            Decision {
                key: verdict.key.clone(),
                why: format!(
                    "{} is {:.3}× faster than {DEFAULT} (p = {:.2e}; sensitivity {})",
                    algorithm.item,
                    change.slowdown,
                    change.p_value,
                    sensitivity(change.sensitivity)
                ),
                change: Some(change),
            }
        }
        None => keep(
            match measured
                .iter()
                .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap())
            {
                Some(fastest) => format!(
                "no library algorithm significantly faster (fastest {}: slowdown {:.3}, p = {}; \
                 sensitivity {})",
                algorithms
                    .iter()
                    .find(|a| a.name == fastest.name)
                    .map_or(fastest.name.as_str(), |a| a.item.as_str()),
                fastest.slowdown.unwrap(),
                fastest
                    .p_adjusted
                    .or(fastest.p_value)
                    .map_or("–".into(), |p| format!("{p:.2e}")),
                sensitivity(verdict.sensitivity)
            ),
                None => "no library algorithm was measured".into(),
            },
        ),
    }
}

fn sensitivity(s: Option<f64>) -> String {
    s.map_or("none".into(), |s| format!("{s:.2}×"))
}

/// A choice per size of one collective, in order, with the sizes between
/// measured ones given to the smaller: `[(from_size, choice)]`, adjacent
/// equal choices merged. Sizes measured more than once (another datatype,
/// operator or root) change only when every case agrees.
pub fn ranges<K: Copy + Ord>(
    points: &[(K, Option<&LibraryAlgorithm>)],
) -> Vec<(K, Option<LibraryAlgorithm>)> {
    let mut sorted: Vec<(K, Option<&LibraryAlgorithm>)> = points.to_vec();
    sorted.sort_by_key(|(k, _)| *k);
    let mut merged: Vec<(K, Option<LibraryAlgorithm>)> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let k = sorted[i].0;
        let same: Vec<Option<&LibraryAlgorithm>> = sorted[i..]
            .iter()
            .take_while(|(s, _)| *s == k)
            .map(|(_, a)| *a)
            .collect();
        i += same.len();
        let choice = match same[0] {
            Some(a) if same.iter().all(|b| *b == Some(a)) => Some(a.clone()),
            _ => None,
        };
        if merged.last().is_none_or(|(_, last)| *last != choice) {
            merged.push((k, choice));
        }
    }
    merged
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analyse::{CandidateSummary, Conclusion, Severity, Verdict};
    use crate::case::Outcome;
    use crate::collective::Collective;
    use crate::element::{Datatype, Op};

    pub fn algorithm(library: &str, collective: &str, item: &str, value: i32) -> LibraryAlgorithm {
        LibraryAlgorithm {
            name: format!("{collective}_as_library_{item}"),
            library: library.into(),
            collective: collective.into(),
            variable: format!("coll_tuned_{collective}_algorithm"),
            value,
            item: item.into(),
        }
    }

    pub fn candidate(
        name: &str,
        slowdown: Option<f64>,
        p: Option<f64>,
        significant: bool,
    ) -> CandidateSummary {
        CandidateSummary {
            name: name.into(),
            outcome: Outcome::Measured,
            verified: true,
            n: 100,
            invalid: 0,
            outliers_removed: 0,
            median_s: Some(1e-5),
            q1_s: None,
            q3_s: None,
            rounds: 10,
            min_round_n: 10,
            round_median_s: Some(1e-5),
            round_median_log_se: None,
            round_medians_s: Vec::new(),
            slowdown,
            p_value: p,
            p_adjusted: p,
            significant,
            p_equivalence: None,
            sensitivity: Some(1.2),
            below_noise: false,
            usual: None,
        }
    }

    pub fn verdict(
        collective: Collective,
        size: u64,
        candidates: Vec<CandidateSummary>,
    ) -> Verdict {
        Verdict {
            key: CaseKey {
                operation: collective.into(),
                size_bytes: size,
                count: size as usize,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            conclusion: Conclusion::default(),
            reason: None,
            candidates,
            competitor: None,
            competitor_median_s: None,
            slowdown: None,
            p_value: None,
            fastest: None,
            severity: Severity::Ok,
            violated_by: None,
            sensitivity: Some(1.25),
            powerless: false,
            timer_bound: false,
            disturbed: None,
            overlap: None,
            state: None,
        }
    }

    pub fn results(checks: Vec<Verdict>, algorithms: Vec<LibraryAlgorithm>) -> Results {
        let mut meta = crate::meta::Meta {
            processes: 4,
            ..Default::default()
        };
        meta.library_algorithms = algorithms;
        Results {
            meta,
            complete: true,
            checks,
            guidelines: Default::default(),
            baseline: None,
            failure: None,
            exit: None,
        }
    }

    fn allreduce_case(size: u64, ring: (f64, f64, bool), rd: (f64, f64, bool)) -> Verdict {
        verdict(
            Collective::Allreduce,
            size,
            vec![
                candidate(DEFAULT, None, None, false),
                candidate(
                    "allreduce_as_library_ring",
                    Some(ring.0),
                    Some(ring.1),
                    ring.2,
                ),
                candidate(
                    "allreduce_as_library_recursive_doubling",
                    Some(rd.0),
                    Some(rd.1),
                    rd.2,
                ),
                // Not a library algorithm: never chosen, however fast.
                candidate("allreduce_as_allreduce_lane", Some(9.0), Some(1e-6), true),
            ],
        )
    }

    fn algorithms() -> Vec<LibraryAlgorithm> {
        vec![
            algorithm("open_mpi", "allreduce", "ring", 4),
            algorithm("open_mpi", "allreduce", "recursive_doubling", 3),
        ]
    }

    #[test]
    fn the_fastest_significant_library_algorithm_wins() {
        let run = results(
            vec![allreduce_case(8, (1.3, 1e-3, true), (1.6, 2e-3, true))],
            algorithms(),
        );
        let tuning = decide(&run).unwrap();
        let change = tuning.decisions[0].change.as_ref().expect("a change");
        assert_eq!(change.algorithm.item, "recursive_doubling");
        assert_eq!(change.slowdown, 1.6);
        assert_eq!(change.p_value, 2e-3);
        assert!(
            tuning.decisions[0].why.contains("1.600× faster"),
            "{}",
            tuning.decisions[0].why
        );
        assert!(tuning.decisions[0].why.contains("sensitivity 1.25×"));
    }

    #[test]
    fn faster_but_not_significant_keeps_the_library_choice() {
        let run = results(
            vec![allreduce_case(8, (1.4, 0.2, false), (0.8, 0.9, false))],
            algorithms(),
        );
        let tuning = decide(&run).unwrap();
        assert_eq!(tuning.decisions[0].change, None);
        assert!(
            tuning.decisions[0]
                .why
                .contains("fastest ring: slowdown 1.400"),
            "{}",
            tuning.decisions[0].why
        );
        // Significant, yet slower than default: no change either.
        let run = results(
            vec![allreduce_case(8, (0.5, 1e-4, true), (0.9, 0.5, false))],
            algorithms(),
        );
        assert_eq!(decide(&run).unwrap().decisions[0].change, None);
    }

    #[test]
    fn a_run_without_library_algorithms_cannot_tune() {
        let run = results(
            vec![allreduce_case(8, (1.3, 1e-3, true), (1.6, 2e-3, true))],
            vec![],
        );
        assert!(decide(&run).unwrap_err().contains("competitors: library"));
        let mut case = allreduce_case(8, (1.3, 1e-3, true), (1.6, 2e-3, true));
        for c in &mut case.candidates {
            c.verified = c.name == DEFAULT;
        }
        let run = results(vec![case], algorithms());
        assert!(decide(&run).unwrap_err().contains("measured none"));
    }

    #[test]
    fn ranges_merge_equal_neighbours_and_keep_disagreements() {
        let ring = algorithm("open_mpi", "allreduce", "ring", 4);
        let rd = algorithm("open_mpi", "allreduce", "recursive_doubling", 3);
        let points = [
            (8u64, Some(&rd)),
            (64, Some(&rd)),
            (1024, None),
            (65536, Some(&ring)),
            (1 << 20, Some(&ring)),
            // Measured twice, disagreeing: the library's choice.
            (1 << 22, Some(&ring)),
            (1 << 22, Some(&rd)),
        ];
        assert_eq!(
            ranges(&points),
            vec![
                (8, Some(rd.clone())),
                (1024, None),
                (65536, Some(ring.clone())),
                (1 << 22, None)
            ]
        );
    }
}
