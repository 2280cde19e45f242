//! The history as a terminal table: a row per case with its launches, first
//! and last median and change points; the notes and the launches under it.

use super::{
    changes_cell, first_and_last, launches_in_words, launches_label, notes, run_line,
    under_test_cell, under_test_line,
};
use crate::analyse::history::History;
use crate::report::text::{bind, fitted, style, unbind, wrap, Look};
use comfy_table::{Cell, CellAlignment, Table};

pub fn render(history: &History) -> String {
    render_to(history, &Look::auto())
}

/// [`render`] in a given look, within its width: a table that breaks no
/// word, lines wrapped at spaces.
pub fn render_to(history: &History, look: &Look) -> String {
    let width = usize::from(look.width);
    let line = |text: &str| unbind(&wrap(&bind(text), width, "  "));
    let mut table = Table::new();
    style(&mut table, look);
    table.force_no_tty();
    let right = |text: String| Cell::new(bind(&text)).set_alignment(CellAlignment::Right);
    let mut header = vec![
        Cell::new("case"),
        right("launches".into()),
        right("first".into()),
        right("last".into()),
        Cell::new("change points"),
    ];
    if history.under_test.is_some() {
        header.push(right("under test".into()));
    }
    table.set_header(header);
    for case in &history.cases {
        let (first, last) = first_and_last(case);
        let changes: Vec<String> = changes_cell(history, case)
            .iter()
            .map(|c| bind(c))
            .collect();
        let mut row = vec![
            Cell::new(bind(&case.label)),
            right(launches_label(history, case)),
            right(first),
            right(last),
            Cell::new(changes.join("\n")),
        ];
        if history.under_test.is_some() {
            row.push(right(under_test_cell(case)));
        }
        table.add_row(row);
    }
    let mut out = line(&format!(
        "pgcheck history: default's launch medians over {} in start order, per case",
        launches_in_words(history)
    ));
    out += &fitted(table);
    for note in notes(history) {
        out += &line(&note);
    }
    out += "launches, in start order:\n";
    for (i, run) in history.runs.iter().enumerate() {
        out += &line(&format!("{:>4}. {}", i + 1, run_line(run)));
    }
    if let Some(run) = &history.under_test {
        out += &line(&format!("      {}", under_test_line(run)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::history;
    use super::*;

    #[test]
    fn a_row_per_case_with_its_change_points() {
        let text = render(&history());
        let line = |case: &str| {
            text.lines()
                .find(|l| l.contains(case))
                .unwrap_or_else(|| panic!("{case} missing in\n{text}"))
        };
        let allreduce = line("MPI_Allreduce 8 B");
        for part in ["12", "9.90 µs", "15.00 µs", "after launch-05: ×1.5"] {
            assert!(allreduce.contains(part), "{part} missing in {allreduce}");
        }
        let bcast = line("MPI_Bcast 8 B");
        assert!(
            bcast.contains("11 of 12") && bcast.contains("none"),
            "{bcast}"
        );
        assert!(text.contains("over 12 launches"));
        assert!(text.contains("permutation p-values (999 shuffles, seed 0)"));
        assert!(line("  12. launch-11").contains("2025-01-01T11:00:00Z"));
        assert!(!text.contains('\x1b'));
        assert!(!text.contains("under test"), "no launch under test");
    }

    #[test]
    fn the_history_breaks_no_word_at_any_width() {
        let history = super::super::fixture::with_under_test();
        crate::report::text::assert_no_word_broken(|width| {
            render_to(
                &history,
                &Look {
                    color: false,
                    width,
                },
            )
        });
    }

    #[test]
    fn the_launch_under_test_has_a_column_and_a_line_of_its_own() {
        let history = super::super::fixture::with_under_test();
        let text = render(&history);
        assert!(
            text.contains("over 12 launches, and the launch under test"),
            "{text}"
        );
        let allreduce = text
            .lines()
            .find(|l| l.contains("MPI_Allreduce 8 B"))
            .unwrap();
        assert!(allreduce.contains("30.00 µs ×2.00"), "{allreduce}");
        let bcast = text.lines().find(|l| l.contains("MPI_Bcast 8 B")).unwrap();
        assert!(bcast.trim_end_matches(['|', ' ']).ends_with('-'), "{bcast}");
        assert!(
            text.contains("under test (not in the history): gate-1: started"),
            "{text}"
        );
    }
}
