//! The history as a document, built once: a table of a row per case (its
//! launches, first and last median, change points, and the launch under
//! test), the notes, and the launches in a table of their own. The shared
//! writers make it terminal text and Markdown.

use super::{
    changes_cell, first_and_last, launches_in_words, launches_label, notes, under_test_cell,
    under_test_line,
};
use crate::analyse::history::History;
use crate::report::document::{Align, Block, Line, Table};
use crate::report::model::library_name;

/// The history as blocks.
pub fn blocks(history: &History) -> Vec<Block> {
    let mut blocks = vec![
        Block::Paragraph(
            Line::plain("pgcheck history: ")
                .and_code("default")
                .and(format!(
                    "'s launch medians over {} in start order, per case",
                    launches_in_words(history)
                )),
        ),
        Block::Table(cases(history)),
        Block::List(notes(history).into_iter().map(Line::plain).collect()),
        Block::Paragraph("launches, in start order:".into()),
        Block::Table(launches(history)),
    ];
    if let Some(run) = &history.under_test {
        blocks.push(Block::Paragraph(under_test_line(run).into()));
    }
    blocks
}

fn cases(history: &History) -> Table {
    let mut columns = vec![
        ("case", Align::Left),
        ("launches", Align::Right),
        ("first", Align::Right),
        ("last", Align::Right),
        ("change points", Align::Left),
    ];
    if history.under_test.is_some() {
        columns.push(("under test", Align::Right));
    }
    let mut table = Table::new(columns);
    for case in &history.cases {
        let (first, last) = first_and_last(case);
        let changes = changes_cell(history, case).into_iter().map(Line::plain);
        let mut row = vec![
            Line::plain(&case.label),
            Line::plain(launches_label(history, case)),
            Line::plain(first),
            Line::plain(last),
            Line::lines(changes),
        ];
        if history.under_test.is_some() {
            row.push(Line::plain(under_test_cell(case)));
        }
        table.push(row);
    }
    table
}

/// The launches by number, as the SVG's axis counts them.
fn launches(history: &History) -> Table {
    let mut table = Table::new([
        ("#", Align::Right),
        ("launch", Align::Left),
        ("started", Align::Left),
        ("library", Align::Left),
    ]);
    for (i, run) in history.runs.iter().enumerate() {
        let started = match run.start_time.is_empty() {
            true => "-",
            false => run.start_time.as_str(),
        };
        table.push(vec![
            Line::plain((i + 1).to_string()),
            Line::plain(&run.name),
            Line::plain(started),
            Line::plain(library_name(&run.mpi_library)),
        ]);
    }
    table
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{history, with_under_test};
    use super::*;
    use crate::report::text::{write, Look};

    fn markdown(history: &History) -> String {
        crate::report::markdown::write(&blocks(history))
    }

    /// The table of `blocks` whose first column is `first`.
    fn table<'a>(blocks: &'a [Block], first: &str) -> &'a Table {
        blocks
            .iter()
            .find_map(|b| match b {
                Block::Table(t) if t.columns[0].0 == first => Some(t),
                _ => None,
            })
            .unwrap_or_else(|| panic!("no table of {first}"))
    }

    /// The words of the row of `table` whose first cell starts with `first`.
    fn row(table: &Table, first: &str) -> Vec<String> {
        let row = table.rows.iter().find(|r| r[0].words().starts_with(first));
        row.unwrap_or_else(|| panic!("{first} missing"))
            .iter()
            .map(Line::words)
            .collect()
    }

    #[test]
    fn a_row_per_case_with_its_change_points() {
        let blocks = blocks(&history());
        let cases = table(&blocks, "case");
        let names: Vec<&str> = cases.columns.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["case", "launches", "first", "last", "change points"]
        );
        let allreduce = row(cases, "MPI_Allreduce 8 B");
        assert_eq!(allreduce[1..4], ["12", "9.90 µs", "15.00 µs"]);
        assert!(
            allreduce[4].starts_with("after launch-05: ×1.5"),
            "{allreduce:?}"
        );
        assert_eq!(
            row(cases, "MPI_Bcast 8 B")[1..],
            ["11 of 12", "4.95 µs", "4.95 µs", "none"]
        );
        let Block::Paragraph(intro) = &blocks[0] else {
            panic!("an introduction first")
        };
        assert!(intro.words().contains("over 12 launches in start order"));
        let Block::List(notes) = &blocks[2] else {
            panic!("the notes under the table")
        };
        assert!(notes[0]
            .words()
            .contains("permutation p-values (999 shuffles, seed 0)"));
        let launches = table(&blocks, "#");
        assert_eq!(launches.rows.len(), 12);
        assert_eq!(
            row(launches, "12"),
            [
                "12",
                "launch-11",
                "2025-01-01T11:00:00Z",
                "Open MPI v4.1.6 <test & build>"
            ]
        );
        assert!(!markdown(&history()).contains("under test"));
    }

    #[test]
    fn several_change_points_are_lines_of_one_cell() {
        let mut history = history();
        let change = history.cases[0].changes[0].clone();
        history.cases[0].changes.push(change);
        let md = markdown(&history);
        let allreduce = md
            .lines()
            .find(|l| l.starts_with("| MPI_Allreduce"))
            .unwrap();
        assert!(allreduce.contains("<br>after launch-05"), "{allreduce}");
        let text = write(
            &blocks(&history),
            &Look {
                color: false,
                width: 100,
            },
        );
        assert_eq!(text.matches("after launch-05").count(), 2, "{text}");
    }

    #[test]
    fn the_history_breaks_no_word_at_any_width() {
        let history = with_under_test();
        crate::report::text::assert_no_word_broken(|width| {
            write(
                &blocks(&history),
                &Look {
                    color: false,
                    width,
                },
            )
        });
    }

    #[test]
    fn the_launch_under_test_has_a_column_and_a_line_of_its_own() {
        let history = with_under_test();
        let blocks = blocks(&history);
        let cases = table(&blocks, "case");
        assert_eq!(cases.columns.last().unwrap().0, "under test");
        assert_eq!(row(cases, "MPI_Allreduce 8 B")[5], "30.00 µs ×2.00");
        assert_eq!(row(cases, "MPI_Bcast 8 B")[5], "-");
        let Some(Block::Paragraph(last)) = blocks.last() else {
            panic!("the launch under test last")
        };
        assert!(last
            .words()
            .starts_with("under test (not in the history): gate-1: started"));
        let md = markdown(&history);
        assert!(
            md.contains("over 12 launches, and the launch under test"),
            "{md}"
        );
        assert!(md.contains("| case | launches | first | last | change points | under test |"));
        assert!(
            md.contains("| 12 | launch-11 | 2025-01-01T11:00:00Z | Open MPI v4.1.6 &lt;test"),
            "{md}"
        );
    }
}
