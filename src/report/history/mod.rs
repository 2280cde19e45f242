//! `pgcheck history`: `default`'s launch medians per case over a series of
//! runs, and where they changed. [`History`] (from `analyse::history`) is
//! the content; what every format writes the same way is here.
//! [`document`] builds it into the report's document once, for the shared
//! terminal and Markdown writers; [`svg`] draws small multiples, [`json`]
//! writes it all.

pub mod document;
pub mod json;
pub mod svg;

use super::model::library_name;
use super::model::seconds;
use crate::analyse::history::{CaseHistory, Change, History, Run};

/// The formats of `pgcheck history` on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Svg,
    Json,
}

/// A p-value as the history writes it: `0.004`, or `2.0e-4` below 0.001
/// (more than 999 permutations).
pub fn p_label(p: f64) -> String {
    match p < 0.001 {
        true => format!("{p:.1e}"),
        false => format!("{p:.3}"),
    }
}

/// A change: `after launch-05: ×1.50, p 0.004`.
pub fn change_label(change: &Change) -> String {
    format!(
        "after {}: ×{:.2}, p {}",
        change.before,
        change.ratio,
        p_label(change.p_value)
    )
}

/// What a case's change column says: each change, `none`, or why none
/// could be found.
pub fn changes_cell(history: &History, case: &CaseHistory) -> Vec<String> {
    if !case.changes.is_empty() {
        return case.changes.iter().map(change_label).collect();
    }
    match case.testable(history.alpha) {
        true => vec!["none".into()],
        false => vec![format!(
            "— too few launches (p ≥ {})",
            p_label(case.smallest_p)
        )],
    }
}

/// Launches that measured the case: `12`, or `10 of 12`.
pub fn launches_label(history: &History, case: &CaseHistory) -> String {
    match (case.launches(), history.runs.len()) {
        (some, all) if some == all => some.to_string(),
        (some, all) => format!("{some} of {all}"),
    }
}

/// The first and the last launch median of a case, `-` when none.
pub fn first_and_last(case: &CaseHistory) -> (String, String) {
    let mut measured = case.medians_s.iter().flatten();
    let first = measured.next().copied();
    let last = measured.next_back().copied().or(first);
    let label = |m: Option<f64>| m.map_or("-".into(), seconds);
    (label(first), label(last))
}

/// The launch under test in a case's row: its median and its ratio to
/// the last stretch's, `15.00 µs ×1.52`; `-` when it did not measure it.
pub fn under_test_cell(case: &CaseHistory) -> String {
    match (case.under_test_s, case.under_test_ratio()) {
        (Some(m), Some(r)) => format!("{} ×{r:.2}", seconds(m)),
        (Some(m), None) => seconds(m),
        _ => "-".into(),
    }
}

/// How many launches the history holds, in words: `12 launches`, and the
/// launch under test beside them.
pub fn launches_in_words(history: &History) -> String {
    let n = history.runs.len();
    let s = if n == 1 { "" } else { "es" };
    match &history.under_test {
        Some(_) => format!("{n} launch{s}, and the launch under test beside them"),
        None => format!("{n} launch{s}"),
    }
}

/// The launch under test as the lists name it.
pub fn under_test_line(run: &Run) -> String {
    format!("under test (not in the history): {}", run_line(run))
}

/// A launch as the lists under the table name it: `launch-05: started
/// 2025-01-01T05:00:00Z, Open MPI v4.1.4` (where it was read from is in
/// the JSON).
pub fn run_line(run: &Run) -> String {
    let started = match run.start_time.is_empty() {
        true => "no start time".to_string(),
        false => format!("started {}", run.start_time),
    };
    format!(
        "{}: {started}, {}",
        run.name,
        library_name(&run.mpi_library)
    )
}

/// The notes under the table: how changes are found, how many chance
/// alone gives, how many launches a change needs, and launches where
/// several cases changed at once.
pub fn notes(history: &History) -> Vec<String> {
    let mut notes = vec![format!(
        "change points: E-divisive means on the logarithms of default's launch medians (median of per-round medians), permutation p-values ({} shuffles, seed {}), kept at p < {}; ×: median after the change over median before",
        history.permutations, history.seed, history.alpha
    )];
    let tested = history.tested();
    notes.push(format!(
        "no correction across cases: with {tested} case(s) long enough to test, about {:.1} change point(s) are expected by chance alone",
        history.alpha * tested as f64
    ));
    notes.push(match history.launches_needed {
        Some(n) => format!(
            "a jump can reach p < {} only with {n} launches or more, in the middle of the series; a jump k launches from either end of n launches has p ≥ 2/C(n, k): the last launch alone needs {} launches before it",
            history.alpha,
            (2.0 / history.alpha).floor() as usize
        ),
        None => format!(
            "{} permutations cannot give p < {}: nothing can be found",
            history.permutations, history.alpha
        ),
    });
    let mut at: Vec<usize> = history
        .cases
        .iter()
        .flat_map(|c| c.changes.iter().map(|ch| ch.index))
        .collect();
    at.sort_unstable();
    at.dedup();
    for index in at {
        let changed: Vec<&Change> = history
            .cases
            .iter()
            .flat_map(|c| c.changes.iter().filter(|ch| ch.index == index))
            .collect();
        if changed.len() >= 2 {
            let why = match 2 * changed.len() > tested {
                true => {
                    ": more than half, so rather the machine or the library than one collective"
                }
                false => "",
            };
            notes.push(format!(
                "{}: {} of {tested} cases changed at once{why}",
                history.runs[index].name,
                changed.len()
            ));
        }
    }
    notes
}

#[cfg(test)]
pub(crate) mod fixture {
    //! A history of twelve launches for the renderers' tests: allreduce
    //! 8 B 1.5× slower from the seventh on, bcast 8 B flat and missing from
    //! the last launch.
    use crate::analyse::history::History;
    use crate::analyse::Results;
    use crate::collective::Collective;
    use crate::report::fixture::{check, results};
    use crate::stats::change_point::Settings;

    pub fn history() -> History {
        let runs: Vec<(String, Results)> = (0..12)
            .map(|i| {
                let wobble = 1.0 + 0.01 * ((i * 7 % 5) as f64 - 2.0) / 2.0;
                let allreduce = if i < 6 { 10.0 } else { 15.0 } * wobble;
                let mut r = results();
                r.meta.start_time = format!("2025-01-01T{i:02}:00:00Z");
                r.checks = vec![check(Collective::Allreduce, 8, 0, allreduce, &[], vec![])];
                if i < 11 {
                    r.checks
                        .push(check(Collective::Bcast, 8, 0, 5.0 * wobble, &[], vec![]));
                }
                (format!("runs/launch-{i:02}"), r)
            })
            .collect();
        let settings = Settings {
            alpha: 0.05,
            permutations: 999,
            seed: 0,
        };
        History::of(runs, &settings).unwrap()
    }

    /// [`history`] and a launch under test whose allreduce takes 30 µs,
    /// twice the last stretch's median, and which has no bcast.
    pub fn with_under_test() -> History {
        let mut r = results();
        r.meta.start_time = "2025-01-01T12:00:00Z".into();
        r.checks = vec![check(Collective::Allreduce, 8, 0, 30.0, &[], vec![])];
        history().with_under_test("gate-1".into(), &r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_changes_launches_and_runs() {
        let history = fixture::history();
        let [allreduce, bcast] = &history.cases[..] else {
            panic!("two cases")
        };
        let cell = changes_cell(&history, allreduce);
        assert_eq!(cell.len(), 1);
        assert!(cell[0].starts_with("after launch-05: ×1.5"), "{cell:?}");
        assert_eq!(changes_cell(&history, bcast), ["none"]);
        assert_eq!(launches_label(&history, bcast), "11 of 12");
        let (first, last) = first_and_last(allreduce);
        assert_eq!((first.as_str(), last.as_str()), ("9.90 µs", "15.00 µs"));
        assert_eq!(p_label(0.0042), "0.004");
        assert_eq!(p_label(0.00012), "1.2e-4");
        assert!(run_line(&history.runs[0])
            .starts_with("launch-00: started 2025-01-01T00:00:00Z, Open MPI v4.1.6"));
    }

    #[test]
    fn notes_say_what_chance_gives_and_what_short_series_cannot() {
        let mut history = fixture::history();
        let notes = notes(&history).join("\n");
        assert!(
            notes.contains("2 case(s) long enough to test, about 0.1"),
            "{notes}"
        );
        assert!(notes.contains("only with 8 launches or more"), "{notes}");
        assert!(notes.contains("needs 40 launches before it"), "{notes}");
        assert!(!notes.contains("changed at once"));
        let change = history.cases[0].changes[0].clone();
        history.cases[1].changes.push(change);
        assert!(
            notes_of(&history).contains("launch-06: 2 of 2 cases changed at once: more than half")
        );
        history.cases.truncate(1);
        history.cases[0].changes.clear();
        history.cases[0].smallest_p = 0.2;
        let cell = changes_cell(&history, &history.cases[0]);
        assert_eq!(cell, ["— too few launches (p ≥ 0.200)"]);
    }

    fn notes_of(history: &History) -> String {
        notes(history).join("\n")
    }
}
