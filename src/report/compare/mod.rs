//! `pgcheck compare`: several runs of the same input (on other libraries or
//! machines) side by side. [`Comparison`] is the format-neutral content —
//! per case, each run's `default` median and mark, the fastest median
//! marked best. [`document`] builds it into the report's document once, for
//! the shared terminal and Markdown writers; [`svg`] draws it.
//!
//! Runs need not hold the same cases: a case missing from a run (another
//! input, an interrupted run) is an empty cell, and the runs' notes say how
//! many each lacks. Runs without any case in common are refused: they are
//! not the same input.

pub mod document;
pub mod svg;

use super::model::{library_name, node_layout, seconds, size_label, Mark};
use crate::analyse::{Conclusion, Results, Verdict};
use crate::element::{Datatype, Op};
use crate::meta::NoiseVerdict;
use crate::operation::Operation;

/// One run, a column of the comparison: what its headers say.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// The column's name: library and host (`Open MPI v4.1.4 on vm`), and
    /// the last part of `source` when another run has the same.
    pub name: String,
    /// Where it was read from, as given on the command line.
    pub source: String,
    /// The library and its version: `Open MPI v4.1.4`, `MPICH 4.0.2`.
    pub library: String,
    /// The first host, and how many others: `vm`, `node1 +3`.
    pub host: String,
    pub processes: usize,
    pub nodes: usize,
    pub ppn: usize,
    pub start_time: String,
    /// False when the run was interrupted.
    pub complete: bool,
    pub noise: Option<NoiseVerdict>,
    /// Cases of the comparison this run does not hold.
    pub missing: usize,
    /// Its cases by conclusion: violated, holds, inconclusive, and without
    /// a verdict (unmeasured or the library's result wrong).
    pub violated: usize,
    pub holds: usize,
    pub inconclusive: usize,
    pub no_verdict: usize,
}

impl Run {
    fn title(&self) -> String {
        format!("{} on {}", self.library, self.host)
    }

    /// Processes, layout and start: `4 processes = 2 nodes × 2 ppn,
    /// started 2025-01-01T10:00:00Z`.
    pub fn layout(&self) -> String {
        let mut layout = format!(
            "{} processes = {}",
            self.processes,
            node_layout(self.nodes, self.ppn)
        );
        if !self.start_time.is_empty() {
            layout += &format!(", started {}", self.start_time);
        }
        layout
    }

    /// Its verdicts in one line: `2 violated, 5 hold, 3 inconclusive`.
    pub fn tally(&self) -> String {
        let mut parts = vec![
            format!("{} violated", self.violated),
            format!("{} hold", self.holds),
            format!("{} inconclusive", self.inconclusive),
        ];
        if self.no_verdict > 0 {
            parts.push(format!("{} without verdict", self.no_verdict));
        }
        if self.missing > 0 {
            parts.push(format!("{} missing", self.missing));
        }
        parts.join(", ")
    }
}

/// One run's result for one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// `default`'s median of per-round medians; `None` when it was not
    /// measured or its result was wrong.
    pub median_s: Option<f64>,
    /// The severity of the worst competitor significantly faster by more than the margin, or why
    /// there is none (as in a run's overview grid).
    pub mark: Mark,
    /// The competitor that sets the severity.
    pub violated_by: Option<String>,
    /// The fastest median of the row (ties: every one of them).
    pub best: bool,
}

impl Cell {
    /// The median as the tables write it: `WRONG` for a wrong result, `-`
    /// when not measured.
    pub fn median_label(&self) -> String {
        match (self.mark, self.median_s) {
            (Mark::Wrong, _) => "WRONG".into(),
            (_, Some(m)) => seconds(m),
            (_, None) => "-".into(),
        }
    }
}

/// One case across the runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub collective: Operation,
    pub size_bytes: u64,
    pub datatype: Datatype,
    pub op: Op,
    /// Set for rooted collectives.
    pub root: Option<usize>,
    /// One per run, in the runs' order; `None`: the run lacks the case.
    pub cells: Vec<Option<Cell>>,
}

/// What identifies a case across runs (the element count follows from the
/// size and the datatype).
type Key = (Operation, u64, Datatype, Op, Option<usize>);

fn key_of(check: &Verdict) -> Key {
    let k = &check.key;
    let root = k.operation.is_rooted().then_some(k.root);
    (k.operation, k.size_bytes, k.datatype, k.op, root)
}

/// Several runs side by side.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub runs: Vec<Run>,
    /// In `Operation::all` order, then by size, root, datatype, operator.
    pub rows: Vec<Row>,
    /// Whether the rows differ in datatype or operator (then their labels
    /// name them).
    pub mixed_elements: bool,
}

impl Comparison {
    /// Puts `runs` (each with where it came from) side by side. Refuses
    /// fewer than two runs and runs that share no case.
    pub fn of(runs: &[(String, Results)]) -> Result<Comparison, String> {
        if runs.len() < 2 {
            return Err("compare needs at least two runs".into());
        }
        let mut keys: Vec<Key> = runs
            .iter()
            .flat_map(|(_, r)| r.checks.iter().map(key_of))
            .collect();
        keys.sort_by_key(|&(collective, size, datatype, op, root)| {
            let position = Operation::all().position(|o| o == collective);
            let datatype = Datatype::ALL.iter().position(|&d| d == datatype);
            let op = Op::ALL.iter().position(|&o| o == op);
            (position, size, root, datatype, op)
        });
        keys.dedup();
        let in_run = |results: &Results, key: &Key| {
            results.checks.iter().find(|c| key_of(c) == *key).map(cell)
        };
        let mut rows: Vec<Row> = keys
            .iter()
            .map(|key| {
                let &(collective, size_bytes, datatype, op, root) = key;
                Row {
                    collective,
                    size_bytes,
                    datatype,
                    op,
                    root,
                    cells: runs.iter().map(|(_, r)| in_run(r, key)).collect(),
                }
            })
            .collect();
        if !rows.iter().any(|r| r.cells.iter().all(Option::is_some)) {
            let sources: Vec<&str> = runs.iter().map(|(s, _)| s.as_str()).collect();
            return Err(format!(
                "{} share no case (collective, size, datatype, operator and root): compare runs of the same input",
                sources.join(", ")
            ));
        }
        for row in &mut rows {
            mark_best(&mut row.cells);
        }
        let mut columns: Vec<Run> = runs
            .iter()
            .enumerate()
            .map(|(i, (source, results))| run(source, results, &rows, i))
            .collect();
        let titles: Vec<String> = columns.iter().map(Run::title).collect();
        for (column, title) in columns.iter_mut().zip(&titles) {
            column.name = match titles.iter().filter(|t| *t == title).count() {
                1 => title.clone(),
                _ => format!("{title} ({})", last_part(&column.source)),
            };
        }
        let first = (rows[0].datatype, rows[0].op);
        let mixed_elements = rows.iter().any(|r| (r.datatype, r.op) != first);
        Ok(Comparison {
            runs: columns,
            rows,
            mixed_elements,
        })
    }

    /// A row's name: `allreduce 8 B`, `bcast 8 B root 1`, and its datatype
    /// and operator when the rows differ in them.
    pub fn label(&self, row: &Row) -> String {
        let mut label = format!("{} {}", row.collective.name(), size_label(row.size_bytes));
        if let Some(root) = row.root {
            label += &format!(" root {root}");
        }
        if self.mixed_elements {
            label += &format!(" {} {}", row.datatype.name(), row.op.name());
        }
        label
    }

    /// The datatype and operator of every row, when they share one.
    pub fn elements(&self) -> Option<String> {
        let row = self.rows.first()?;
        (!self.mixed_elements).then(|| format!("{} {}", row.datatype.name(), row.op.name()))
    }
}

/// A run's verdict of a case as a cell.
fn cell(check: &Verdict) -> Cell {
    let median_s = match check.conclusion {
        Conclusion::LibraryWrong => None,
        _ => check
            .default_candidate()
            .and_then(|d| d.round_median_s.or(d.median_s)),
    };
    Cell {
        median_s,
        mark: Mark::of(check),
        violated_by: check.violated_by.clone(),
        best: false,
    }
}

/// Marks the cells with the row's fastest median.
fn mark_best(cells: &mut [Option<Cell>]) {
    let best = cells
        .iter()
        .flatten()
        .filter_map(|c| c.median_s)
        .fold(f64::INFINITY, f64::min);
    for cell in cells.iter_mut().flatten() {
        cell.best = cell.median_s == Some(best);
    }
}

/// The column of run `i`.
fn run(source: &str, results: &Results, rows: &[Row], i: usize) -> Run {
    let meta = &results.meta;
    let host = match meta.hosts.as_slice() {
        [] => "?".to_string(),
        [one] => one.clone(),
        [first, rest @ ..] => format!("{first} +{}", rest.len()),
    };
    let count = |conclusions: &[Conclusion]| {
        results
            .checks
            .iter()
            .filter(|c| conclusions.contains(&c.conclusion))
            .count()
    };
    Run {
        name: String::new(),
        source: source.to_string(),
        library: library_name(&meta.mpi_library),
        host,
        processes: meta.processes,
        nodes: meta.nodes,
        ppn: meta.ppn,
        start_time: meta.start_time.clone(),
        complete: results.complete,
        noise: meta.noise.as_ref().map(|n| n.verdict),
        missing: rows.iter().filter(|r| r.cells[i].is_none()).count(),
        violated: count(&[Conclusion::Violated]),
        holds: count(&[Conclusion::Holds]),
        inconclusive: count(&[Conclusion::Inconclusive]),
        no_verdict: count(&[Conclusion::Unmeasured, Conclusion::LibraryWrong]),
    }
}

/// The last component of a path: `results/mpich` → `mpich`.
fn last_part(source: &str) -> &str {
    let trimmed = source.trim_end_matches('/');
    let trimmed = trimmed.strip_suffix("/results.json").unwrap_or(trimmed);
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

#[cfg(test)]
pub(crate) mod fixture {
    //! Three runs of one input for the comparison's tests.
    use crate::analyse::{Conclusion, Results, Severity};
    use crate::collective::Collective;
    use crate::report::fixture::{check, excluded};

    /// A run on `library` whose allreduce takes `allreduce_8` µs at 8 B
    /// (violated when `violated`) and 40 µs at 8 KiB, and whose bcast
    /// root 0 takes `bcast_8` µs at 8 B.
    pub fn run(
        library: &str,
        host: &str,
        allreduce_8: f64,
        violated: bool,
        bcast_8: f64,
    ) -> Results {
        let mut results = crate::report::fixture::results();
        results.meta.mpi_library = library.into();
        results.meta.hosts = vec![host.into()];
        results.baseline = None;
        let p = if violated { 1e-4 } else { 0.5 };
        results.checks = vec![
            check(
                Collective::Allreduce,
                8,
                0,
                allreduce_8,
                &[("allreduce_as_reduce_bcast", allreduce_8 / 1.7, p)],
                vec![],
            ),
            check(
                Collective::Allreduce,
                8192,
                0,
                40.0,
                &[("allreduce_as_reduce_bcast", 41.0, 0.5)],
                vec![],
            ),
            check(
                Collective::Bcast,
                8,
                0,
                bcast_8,
                &[("bcast_as_scatter_allgather", bcast_8 * 1.2, 0.9)],
                vec![],
            ),
        ];
        results
    }

    /// `run` whose allreduce at 8 KiB was wrong: the library's result.
    pub fn wrong_at_8k(library: &str) -> Results {
        let mut results = run(library, "vm", 10.0, false, 5.0);
        let wrong = &mut results.checks[1];
        wrong.conclusion = Conclusion::LibraryWrong;
        wrong.severity = Severity::Ok;
        wrong.candidates[0] = excluded("default", "wrong", "rank 1 element 3: expected 7, got 8");
        results
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{run, wrong_at_8k};
    use super::*;
    use crate::analyse::Severity;

    fn two() -> Vec<(String, Results)> {
        vec![
            (
                "a".into(),
                run(
                    "Open MPI v4.1.4, package: Debian OpenMPI",
                    "vm",
                    10.0,
                    true,
                    5.0,
                ),
            ),
            (
                "b".into(),
                run(
                    "MPICH Version:      4.0.2\nMPICH Release date: x",
                    "box",
                    12.0,
                    false,
                    4.0,
                ),
            ),
        ]
    }

    #[test]
    fn names_each_library_and_host() {
        assert_eq!(
            library_name("Open MPI v5.0.11, package: Open MPI"),
            "Open MPI v5.0.11"
        );
        assert_eq!(
            library_name("MPICH Version:      4.0.2\nMPICH Release"),
            "MPICH 4.0.2"
        );
        assert_eq!(library_name(""), "MPI");
        let comparison = Comparison::of(&two()).unwrap();
        let names: Vec<&str> = comparison.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["Open MPI v4.1.4 on vm", "MPICH 4.0.2 on box"]);
        let mut runs = two();
        runs[1].1.meta = runs[0].1.meta.clone();
        runs[0].0 = "results/ompi/".into();
        runs[1].0 = "other/ompi-again/results.json".into();
        let comparison = Comparison::of(&runs).unwrap();
        let names: Vec<&str> = comparison.runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "Open MPI v4.1.4 on vm (ompi)",
                "Open MPI v4.1.4 on vm (ompi-again)"
            ]
        );
    }

    #[test]
    fn one_row_per_case_with_each_runs_median_and_mark() {
        let comparison = Comparison::of(&two()).unwrap();
        let labels: Vec<String> = comparison
            .rows
            .iter()
            .map(|r| comparison.label(r))
            .collect();
        assert_eq!(
            labels,
            ["allreduce 8 B", "allreduce 8 KiB", "bcast 8 B root 0"]
        );
        assert_eq!(comparison.elements().as_deref(), Some("byte bor"));
        let first = &comparison.rows[0].cells;
        let (a, b) = (first[0].as_ref().unwrap(), first[1].as_ref().unwrap());
        assert_eq!(a.median_s, Some(10.0 * 1e-6));
        assert_eq!(a.mark, Mark::Severity(Severity::MediumHigh));
        assert_eq!(a.violated_by.as_deref(), Some("allreduce_as_reduce_bcast"));
        assert_eq!(b.median_s, Some(12.0 * 1e-6));
        assert_eq!(b.mark, Mark::Severity(Severity::Ok));
        assert_eq!(comparison.runs[0].violated, 1);
        assert_eq!(
            comparison.runs[1].tally(),
            "0 violated, 3 hold, 0 inconclusive"
        );
    }

    #[test]
    fn the_fastest_median_of_each_row_is_best() {
        let comparison = Comparison::of(&two()).unwrap();
        let best: Vec<Vec<bool>> = comparison
            .rows
            .iter()
            .map(|r| r.cells.iter().map(|c| c.as_ref().unwrap().best).collect())
            .collect();
        // allreduce 8 B: 10 < 12; 8 KiB: a tie, both; bcast: 5 > 4.
        assert_eq!(best, [[true, false], [true, true], [false, true]]);
    }

    #[test]
    fn a_wrong_result_is_never_best() {
        let runs = vec![
            ("fast but wrong".into(), {
                let mut r = wrong_at_8k("MPICH Version: 4.0.2");
                r.checks[1].candidates[0].round_median_s = Some(1e-9);
                r
            }),
            (
                "right".into(),
                run("Open MPI v4.1.4", "vm", 10.0, false, 5.0),
            ),
        ];
        let comparison = Comparison::of(&runs).unwrap();
        let row = &comparison.rows[1];
        let wrong = row.cells[0].as_ref().unwrap();
        assert_eq!(
            (wrong.mark, wrong.median_s, wrong.best),
            (Mark::Wrong, None, false)
        );
        assert_eq!(wrong.median_label(), "WRONG");
        assert!(row.cells[1].as_ref().unwrap().best);
        assert_eq!(comparison.runs[0].no_verdict, 1);
    }

    #[test]
    fn a_case_missing_from_a_run_is_an_empty_cell() {
        let mut runs = two();
        runs[1].1.checks.remove(2);
        let comparison = Comparison::of(&runs).unwrap();
        assert_eq!(comparison.rows.len(), 3);
        assert!(comparison.rows[2].cells[1].is_none());
        assert!(comparison.rows[2].cells[0].as_ref().unwrap().best);
        assert_eq!(comparison.runs[1].missing, 1);
        assert!(comparison.runs[1].tally().ends_with("1 missing"));
    }

    #[test]
    fn runs_without_a_common_case_or_alone_are_refused() {
        let mut runs = two();
        for check in &mut runs[1].1.checks {
            check.key.op = Op::Sum;
        }
        let error = Comparison::of(&runs).unwrap_err();
        assert!(error.contains("a, b share no case"), "{error}");
        assert!(Comparison::of(&runs[..1]).is_err());
    }

    #[test]
    fn rows_name_datatype_and_operator_when_they_differ() {
        let mut runs = two();
        runs[1].1.checks[0].key.op = Op::Sum;
        let comparison = Comparison::of(&runs).unwrap();
        assert!(comparison.mixed_elements);
        assert_eq!(comparison.elements(), None);
        let labels: Vec<String> = comparison
            .rows
            .iter()
            .map(|r| comparison.label(r))
            .collect();
        assert_eq!(labels[0], "allreduce 8 B byte sum");
        assert_eq!(labels[1], "allreduce 8 B byte bor");
    }
}
