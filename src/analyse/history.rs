//! `default` over a series of launches: per case, its launch medians in
//! the order the runs started, and where the series changed
//! ([`change_point`]: E-divisive means with a permutation p-value).
//!
//! Each launch counts once, by its median of per-round medians: the launch
//! is a factor, and its rounds say nothing about the next launch. The
//! search runs on the logarithms of the medians, so that a change is a
//! factor (×1.5 reads the same at 2 µs and at 2 ms) and one slow launch
//! weighs no more than one fast one.
//!
//! No correction across cases: the history describes where each case
//! changed, it does not gate (the gate against earlier launches is
//! `--baseline`, with Holm). A correction would also blind it: with 20
//! cases, Holm asks the first of them for p < 0.0025, which a history of
//! 12 launches cannot reach (2/C(12,6) ≈ 0.0022 at best, see
//! [`change_point`]). The reports say instead how many change points chance
//! alone would give: about α per case tested.

use super::{CaseKey, Conclusion, Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use crate::stats::change_point::{self, Settings};
use crate::stats::describe::median;
use serde::Serialize;

/// One launch of the series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Run {
    /// The run's directory name, or its whole path when two runs share it.
    pub name: String,
    /// Where it was read from.
    pub source: String,
    /// `meta.start_time`, RFC 3339 (empty when the run does not say).
    pub start_time: String,
    /// `MPI_Get_library_version`'s text.
    pub mpi_library: String,
}

/// Where a case's series changed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The first launch after the change, an index into [`History::runs`].
    pub index: usize,
    /// The last launch before it and the first after it that measured
    /// the case.
    pub before: String,
    pub after: String,
    /// The median of the launch medians from the change to the next one,
    /// over the same from the previous change to this one: 1.5 is 50 % slower.
    pub ratio: f64,
    pub p_value: f64,
}

/// A stretch of launches between change points.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Segment {
    /// Its first and last launch that measured the case, indices into
    /// [`History::runs`].
    pub first: usize,
    pub last: usize,
    /// The median of its launch medians.
    pub median_s: f64,
}

/// One case over the launches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CaseHistory {
    #[serde(flatten)]
    pub key: CaseKey,
    /// `CaseKey::label`.
    pub label: String,
    /// `default`'s median of per-round medians, one per run in the runs'
    /// order; `None` where the run lacks the case, did not measure
    /// `default`, or found its result wrong.
    pub medians_s: Vec<Option<f64>>,
    pub changes: Vec<Change>,
    /// The launches between the changes: one more than the changes, none
    /// when no launch measured the case.
    pub segments: Vec<Segment>,
    /// The smallest p-value the launches that measured the case can reach:
    /// above α, no change could have been found.
    pub smallest_p: f64,
    /// The launch under test's median, when there is one and it measured
    /// the case; it is drawn beside the series, never part of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub under_test_s: Option<f64>,
}

impl CaseHistory {
    /// The launch under test against the median of the last stretch.
    pub fn under_test_ratio(&self) -> Option<f64> {
        Some(self.under_test_s? / self.segments.last()?.median_s)
    }
}

impl CaseHistory {
    /// How many launches measured the case.
    pub fn launches(&self) -> usize {
        self.medians_s.iter().flatten().count()
    }

    /// Whether the launches that measured it are enough for a change to
    /// reach p < α.
    pub fn testable(&self, alpha: f64) -> bool {
        self.smallest_p < alpha
    }
}

/// The series of launches and every case's history.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct History {
    pub alpha: f64,
    pub permutations: usize,
    pub seed: u64,
    /// Ordered by start time, then by name.
    pub runs: Vec<Run>,
    /// Every case of any run: in `Operation::all` order, then by size,
    /// root, datatype, operator.
    pub cases: Vec<CaseHistory>,
    /// How many launches a jump in the middle of a series needs to reach
    /// p < α; `None` when the permutations alone forbid it.
    pub launches_needed: Option<usize>,
    /// The launch a gate is judging (`--under-test`), shown beside the
    /// accepted launches and kept out of their change points.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub under_test: Option<Run>,
}

impl History {
    /// The history of `runs` (each with where it came from), in any
    /// order. Refuses an empty list.
    pub fn of(runs: Vec<(String, Results)>, settings: &Settings) -> Result<History, String> {
        if runs.is_empty() {
            return Err("history needs at least one run".into());
        }
        let mut runs = runs;
        // RFC 3339 times written by pgcheck (UTC, `Z`) sort as text.
        runs.sort_by(|(a, ra), (b, rb)| (&ra.meta.start_time, a).cmp(&(&rb.meta.start_time, b)));
        let names = names(runs.iter().map(|(source, _)| source.as_str()));
        let mut keys: Vec<CaseKey> = runs
            .iter()
            .flat_map(|(_, r)| r.checks.iter().map(|c| identity(&c.key)))
            .collect();
        keys.sort_by_key(order);
        keys.dedup();
        let cases = keys
            .iter()
            .map(|key| {
                let medians_s: Vec<Option<f64>> = runs
                    .iter()
                    .map(|(_, r)| {
                        r.checks
                            .iter()
                            .find(|c| identity(&c.key) == *key)
                            .and_then(launch_median)
                    })
                    .collect();
                case_history(key, medians_s, &names, settings)
            })
            .collect();
        Ok(History {
            alpha: settings.alpha,
            permutations: settings.permutations,
            seed: settings.seed,
            runs: runs
                .iter()
                .zip(names)
                .map(|((source, results), name)| Run {
                    name,
                    source: source.clone(),
                    start_time: results.meta.start_time.clone(),
                    mpi_library: results.meta.mpi_library.clone(),
                })
                .collect(),
            cases,
            launches_needed: change_point::values_needed(settings.alpha, settings.permutations),
            under_test: None,
        })
    }

    /// The history with the launch under test (named `name`) beside it.
    pub fn with_under_test(mut self, name: String, results: &Results) -> History {
        for case in &mut self.cases {
            case.under_test_s = results
                .checks
                .iter()
                .find(|c| identity(&c.key) == case.key)
                .and_then(launch_median);
        }
        self.under_test = Some(Run {
            name: name.clone(),
            source: name,
            start_time: results.meta.start_time.clone(),
            mpi_library: results.meta.mpi_library.clone(),
        });
        self
    }

    /// Cases with enough launches for a change to be significant.
    pub fn tested(&self) -> usize {
        self.cases.iter().filter(|c| c.testable(self.alpha)).count()
    }
}

/// `default`'s median of per-round medians in a verdict, when it is a time
/// (measured, its result right).
fn launch_median(check: &Verdict) -> Option<f64> {
    if check.conclusion == Conclusion::LibraryWrong {
        return None;
    }
    check
        .candidates
        .iter()
        .find(|c| c.name == DEFAULT)?
        .round_median_s
        .filter(|m| m.is_finite() && *m > 0.0)
}

/// The history of one case from its launch medians.
fn case_history(
    key: &CaseKey,
    medians_s: Vec<Option<f64>>,
    names: &[String],
    settings: &Settings,
) -> CaseHistory {
    // The launches that measured it: (run index, median).
    let measured: Vec<(usize, f64)> = medians_s
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((i, (*m)?)))
        .collect();
    let logs: Vec<f64> = measured.iter().map(|(_, m)| m.ln()).collect();
    let found = change_point::change_points(&logs, settings);
    // The measured launches between the change points.
    let bounds: Vec<usize> = std::iter::once(0)
        .chain(found.iter().map(|c| c.index))
        .chain(std::iter::once(measured.len()))
        .collect();
    let segments: Vec<Segment> = match measured.is_empty() {
        true => Vec::new(),
        false => bounds
            .windows(2)
            .map(|w| Segment {
                first: measured[w[0]].0,
                last: measured[w[1] - 1].0,
                median_s: median(
                    &measured[w[0]..w[1]]
                        .iter()
                        .map(|(_, m)| *m)
                        .collect::<Vec<_>>(),
                ),
            })
            .collect(),
    };
    let changes = found
        .iter()
        .zip(segments.windows(2))
        .map(|(c, around)| Change {
            index: measured[c.index].0,
            before: names[measured[c.index - 1].0].clone(),
            after: names[measured[c.index].0].clone(),
            ratio: around[1].median_s / around[0].median_s,
            p_value: c.p_value,
        })
        .collect();
    CaseHistory {
        key: key.clone(),
        label: key.label(),
        medians_s,
        changes,
        segments,
        smallest_p: change_point::smallest_p_value(measured.len(), settings.permutations),
        under_test_s: None,
    }
}

/// What identifies a case across runs: its key, the root only where the
/// collective has one (as `compare` matches cases).
fn identity(key: &CaseKey) -> CaseKey {
    let mut key = key.clone();
    if !key.operation.is_rooted() {
        key.root = 0;
    }
    key
}

/// Where a case sorts: by operation as `Operation::all` lists them, then
/// size, root, datatype, operator.
fn order(k: &CaseKey) -> (Option<usize>, u64, usize, Option<usize>, Option<usize>) {
    (
        Operation::all().position(|o| o == k.operation),
        k.size_bytes,
        k.root,
        Datatype::ALL.iter().position(|&d| d == k.datatype),
        Op::ALL.iter().position(|&o| o == k.op),
    )
}

/// The runs' names: each its directory's name, or its whole path when two
/// share a directory name.
fn names<'a>(sources: impl Iterator<Item = &'a str> + Clone) -> Vec<String> {
    let short = |source: &str| {
        let trimmed = source.trim_end_matches('/');
        let trimmed = trimmed.strip_suffix("/results.json").unwrap_or(trimmed);
        trimmed.rsplit('/').next().unwrap_or(trimmed).to_string()
    };
    let shorts: Vec<String> = sources.clone().map(short).collect();
    let unique = shorts
        .iter()
        .all(|s| !s.is_empty() && shorts.iter().filter(|t| *t == s).count() == 1);
    match unique {
        true => shorts,
        false => sources.map(str::to_string).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::report::fixture;

    const SETTINGS: Settings = Settings {
        alpha: 0.05,
        permutations: 999,
        seed: 1,
    };

    /// A run started at hour `hour` whose allreduce 8 B `default` takes
    /// `allreduce_us` and bcast 8 B takes 5 µs (±1 % by `wobble`).
    fn run(hour: usize, allreduce_us: f64, wobble: f64) -> Results {
        let mut results = fixture::results();
        results.meta.start_time = format!("2025-01-01T{hour:02}:00:00Z");
        results.checks = vec![
            fixture::check(Collective::Allreduce, 8, 0, allreduce_us, &[], vec![]),
            fixture::check(Collective::Bcast, 8, 0, 5.0 * (1.0 + wobble), &[], vec![]),
        ];
        results
    }

    /// Twelve launches given in reverse: allreduce 1.5× slower from the
    /// seventh on, bcast flat.
    fn twelve() -> Vec<(String, Results)> {
        (0..12)
            .rev()
            .map(|i| {
                let wobble = 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0;
                let allreduce = if i < 6 { 10.0 } else { 15.0 } * (1.0 + wobble);
                (format!("runs/launch-{i:02}"), run(i, allreduce, wobble))
            })
            .collect()
    }

    #[test]
    fn orders_by_start_time_and_finds_the_step_in_its_case_only() {
        let history = History::of(twelve(), &SETTINGS).unwrap();
        let names: Vec<&str> = history.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names[0], "launch-00");
        assert_eq!(names[11], "launch-11");
        assert_eq!(history.cases.len(), 2);
        let allreduce = &history.cases[0];
        assert_eq!(allreduce.key.operation, Collective::Allreduce.into());
        assert_eq!(allreduce.launches(), 12);
        assert_eq!(allreduce.changes.len(), 1, "{:?}", allreduce.changes);
        let change = &allreduce.changes[0];
        assert_eq!(
            (change.index, change.before.as_str(), change.after.as_str()),
            (6, "launch-05", "launch-06")
        );
        assert!((change.ratio - 1.5).abs() < 0.02, "{change:?}");
        assert!(change.p_value < 0.01, "{change:?}");
        let segments: Vec<(usize, usize)> = allreduce
            .segments
            .iter()
            .map(|s| (s.first, s.last))
            .collect();
        assert_eq!(segments, [(0, 5), (6, 11)]);
        assert!((allreduce.segments[1].median_s - 15e-6).abs() < 0.2e-6);
        assert!(history.cases[1].changes.is_empty());
        assert_eq!(history.cases[1].segments.len(), 1);
        assert_eq!(history.tested(), 2);
        assert_eq!(history.launches_needed, Some(8));
    }

    #[test]
    fn start_time_orders_not_the_name_and_the_name_breaks_ties() {
        let mut runs = twelve();
        // Reversed: index 11 is launch-00, index 10 launch-01.
        runs[11].1.meta.start_time = "2025-01-02T00:00:00Z".into();
        runs[10].1.meta.start_time = "2025-01-01T05:00:00Z".into();
        let history = History::of(runs, &SETTINGS).unwrap();
        let names: Vec<&str> = history.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names[11], "launch-00", "the latest start is last");
        assert_eq!(
            names[..5],
            [
                "launch-02",
                "launch-03",
                "launch-04",
                "launch-01",
                "launch-05"
            ]
        );
    }

    #[test]
    fn a_launch_without_the_case_is_a_gap_and_a_wrong_result_no_time() {
        let mut runs = twelve();
        // Reversed: index 0 is launch-11.
        runs[0].1.checks.remove(0);
        runs[1].1.checks[0].conclusion = Conclusion::LibraryWrong;
        let history = History::of(runs, &SETTINGS).unwrap();
        let allreduce = &history.cases[0];
        assert_eq!(allreduce.medians_s[11], None);
        assert_eq!(allreduce.medians_s[10], None);
        assert_eq!(allreduce.launches(), 10);
        assert_eq!(allreduce.changes[0].index, 6);
    }

    #[test]
    fn the_root_of_a_collective_without_one_does_not_split_a_case() {
        let mut runs = twelve();
        runs[0].1.checks[0].key.root = 3;
        runs[0].1.checks[1].key.root = 3;
        let history = History::of(runs, &SETTINGS).unwrap();
        assert_eq!(
            history.cases.len(),
            3,
            "bcast at root 3 is a case of its own"
        );
        assert_eq!(history.cases[0].launches(), 12);
    }

    #[test]
    fn a_gap_at_the_change_names_the_launches_that_measured_it() {
        let mut runs = twelve();
        // launch-06 (index 5 reversed) lacks allreduce: the change is seen
        // between launch-05 and launch-07.
        runs[5].1.checks.remove(0);
        let history = History::of(runs, &SETTINGS).unwrap();
        let change = &history.cases[0].changes[0];
        assert_eq!(
            (change.index, change.before.as_str(), change.after.as_str()),
            (7, "launch-05", "launch-07")
        );
    }

    #[test]
    fn short_histories_say_they_cannot_find_a_change() {
        let runs: Vec<(String, Results)> = twelve().into_iter().skip(7).collect();
        let history = History::of(runs, &SETTINGS).unwrap();
        assert_eq!(history.runs.len(), 5);
        assert!(history.cases.iter().all(|c| c.changes.is_empty()));
        assert_eq!(history.cases[0].smallest_p, 0.2);
        assert_eq!(history.tested(), 0);
        assert!(History::of(vec![], &SETTINGS).is_err());
    }

    #[test]
    fn runs_are_named_by_directory_unless_two_share_one() {
        assert_eq!(
            names(["a/r1", "b/r2/", "c/r3/results.json"].into_iter()),
            ["r1", "r2", "r3"]
        );
        assert_eq!(names(["a/r", "b/r"].into_iter()), ["a/r", "b/r"]);
    }
}
