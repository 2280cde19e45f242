//! The comparison as a document, built once: what it shows, a table of a
//! row per case and two columns per run (its `default` median, the row's
//! fastest strong and starred, and its severity), the runs listed under
//! it. The shared writers make it terminal text and Markdown.

use super::{Cell, Comparison, Run};
use crate::report::document::{Align, Block, Icon, Line, Table};

/// The comparison as blocks.
pub fn blocks(comparison: &Comparison) -> Vec<Block> {
    let mut blocks = vec![Block::Paragraph(
        Line::plain("pgcheck compare: per case, the median of ")
            .and_code("default")
            .and("'s per-round medians and the severity of the worst competitor significantly faster by more than the margin of each run; * the fastest median of the row (separate runs: no test across them); —: the run lacks the case"),
    )];
    if let Some(elements) = comparison.elements() {
        blocks.push(Block::Paragraph(Line::plain(format!(
            "every case: {elements}"
        ))));
    }
    blocks.push(Block::Table(table(comparison)));
    blocks.push(Block::List(comparison.runs.iter().map(run_line).collect()));
    blocks
}

fn table(comparison: &Comparison) -> Table {
    let mut columns = vec![("case".to_string(), Align::Left)];
    for run in &comparison.runs {
        columns.push((
            format!("{}\n{} processes\nmedian", run.name, run.processes),
            Align::Right,
        ));
        columns.push(("severity".to_string(), Align::Left));
    }
    let mut table = Table::new(columns);
    for row in &comparison.rows {
        let mut cells = vec![Line::plain(comparison.label(row))];
        for cell in &row.cells {
            cells.extend(match cell {
                Some(cell) => entry(cell),
                None => ["—".into(), "—".into()],
            });
        }
        table.push(cells);
    }
    table
}

/// A run's median and severity cells; a space where another's star is
/// keeps the medians' units in line.
fn entry(cell: &Cell) -> [Line; 2] {
    let median = match cell.best {
        true => Line::default().and_strong(format!("{}*", cell.median_label())),
        false => Line::plain(cell.median_label()).and(" "),
    };
    [median, Line::mark(cell.mark, cell.mark.label())]
}

/// A run as the list under the table names it: `Open MPI v4.1.4 on vm:
/// dir-a, 8 processes = 2 nodes × 4 ppn, …; 1 violated, 2 hold, …`.
fn run_line(run: &Run) -> Line {
    let mut line = Line::default()
        .and_strong(&run.name)
        .and(": ")
        .and_code(&run.source)
        .and(format!(", {}", run.layout()));
    if let Some(noise) = run.noise {
        line = line.and(format!(", {} run", noise.label()));
    }
    if !run.complete {
        line = line
            .and(", ")
            .and_icon(Icon::Warning)
            .and_strong("incomplete");
    }
    line.and(format!("; {}", run.tally()))
}

#[cfg(test)]
mod tests {
    use super::super::fixture::run;
    use super::*;
    use crate::analyse::{Results, Severity};
    use crate::report::document::Span;
    use crate::report::markdown;
    use crate::report::model::Mark;
    use crate::report::text::{write, Look};

    fn runs() -> Vec<(String, Results)> {
        vec![
            (
                "dir-a".into(),
                run("Open MPI v4.1.4, package: x", "vm", 10.0, true, 5.0),
            ),
            (
                "dir-b".into(),
                run("MPICH Version: 4.0.2", "vm", 12.0, false, 4.0),
            ),
        ]
    }

    fn comparison() -> Comparison {
        Comparison::of(&runs()).unwrap()
    }

    fn table(blocks: &[Block]) -> &Table {
        blocks
            .iter()
            .find_map(|b| match b {
                Block::Table(t) => Some(t),
                _ => None,
            })
            .expect("a table")
    }

    /// The row of `case`, its cells' words.
    fn row(blocks: &[Block], case: &str) -> Vec<String> {
        let row = table(blocks)
            .rows
            .iter()
            .find(|r| r[0].words() == case)
            .unwrap_or_else(|| panic!("{case} missing"));
        row.iter().map(Line::words).collect()
    }

    #[test]
    fn a_row_per_case_with_each_runs_median_and_severity() {
        let blocks = blocks(&comparison());
        let names: Vec<&str> = table(&blocks)
            .columns
            .iter()
            .map(|(name, _)| name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "case",
                "Open MPI v4.1.4 on vm\n8 processes\nmedian",
                "severity",
                "MPICH 4.0.2 on vm\n8 processes\nmedian",
                "severity"
            ]
        );
        assert_eq!(
            row(&blocks, "allreduce 8 B"),
            [
                "allreduce 8 B",
                "10.00 µs*",
                "medium-high",
                "12.00 µs ",
                "ok"
            ]
        );
        assert_eq!(
            row(&blocks, "bcast 8 B root 0"),
            ["bcast 8 B root 0", "5.00 µs ", "ok", "4.00 µs*", "ok"]
        );
        let allreduce = &table(&blocks).rows[0];
        assert_eq!(allreduce[1].0, [Span::Strong("10.00 µs*".into())]);
        assert_eq!(
            allreduce[2].first_mark(),
            Some(Mark::Severity(Severity::MediumHigh))
        );
        assert_eq!(blocks[1], Block::Paragraph("every case: byte bor".into()));
    }

    #[test]
    fn the_runs_are_listed_under_the_table() {
        let mut comparison = comparison();
        comparison.runs[1].complete = false;
        let blocks = blocks(&comparison);
        let Some(Block::List(runs)) = blocks.last() else {
            panic!("the runs last")
        };
        let runs: Vec<String> = runs.iter().map(Line::words).collect();
        assert!(
            runs[0].starts_with("Open MPI v4.1.4 on vm: dir-a, 8 processes = 2 nodes × 4 ppn")
                && runs[0].ends_with("; 1 violated, 2 hold, 0 inconclusive"),
            "{runs:?}"
        );
        assert!(runs[1].contains(", incomplete; 0 violated"), "{runs:?}");
    }

    #[test]
    fn shows_each_runs_median_and_severity_with_the_best_starred() {
        let text = write(
            &blocks(&comparison()),
            &Look {
                color: false,
                width: 100,
            },
        );
        assert!(!text.contains('\x1b'));
        let line = |case: &str| text.lines().find(|l| l.contains(case)).unwrap();
        let allreduce = line("allreduce 8 B");
        let a = allreduce.find("10.00 µs*").unwrap();
        assert!(a < allreduce.find("medium-high").unwrap(), "{allreduce}");
        assert!(a < allreduce.find("12.00 µs").unwrap(), "{allreduce}");
        assert!(text.contains("every case: byte bor"));
        assert!(line("Open MPI v4.1.4 on vm: dir-a").contains("1 violated, 2 hold"));
    }

    /// At 60, 80 and 100 columns the table and its lines wrap at spaces,
    /// never inside a word or between a number and its unit.
    #[test]
    fn the_comparison_breaks_no_word_at_any_width() {
        crate::report::text::assert_no_word_broken(|width| {
            write(
                &blocks(&comparison()),
                &Look {
                    color: false,
                    width,
                },
            )
        });
    }

    #[test]
    fn marks_missing_cases_and_colours_only_when_asked() {
        let mut comparison = comparison();
        comparison.rows[2].cells[1] = None;
        let blocks = blocks(&comparison);
        assert_eq!(
            row(&blocks, "bcast 8 B root 0")[3..],
            ["—".to_string(), "—".to_string()]
        );
        let coloured = write(
            &blocks,
            &Look {
                color: true,
                width: 100,
            },
        );
        assert!(coloured.contains('\x1b') && coloured.contains("medium-high"));
    }

    #[test]
    fn markdown_has_the_same_table_with_marks() {
        let mut runs = runs();
        runs[0].1.checks.remove(2);
        let md = markdown::write(&blocks(&Comparison::of(&runs).unwrap()));
        crate::report::fixture::assert_contains(
            &md,
            &[
                "| case | Open MPI v4.1.4 on vm<br>8 processes<br>median | severity | MPICH 4.0.2 on vm<br>8 processes<br>median | severity |\n| --- | ---: | --- | ---: | --- |\n",
                "| allreduce 8 B | **10.00 µs\\*** | 🟠 **medium-high** | 12.00 µs  | ✅ ok |\n",
                "| allreduce 8 KiB | **40.00 µs\\*** | ✅ ok | **40.00 µs\\*** | ✅ ok |\n",
                "| bcast 8 B root 0 | — | — | **4.00 µs\\*** | ✅ ok |\n",
                "every case: byte bor\n",
                "- **Open MPI v4.1.4 on vm**: `dir-a`, 8 processes = 2 nodes × 4 ppn",
                "; 1 violated, 1 hold, 0 inconclusive, 1 missing\n",
            ],
        );
    }
}
