//! The history as a terminal table: a row per case with its launches, first
//! and last median and change points; the notes and the launches under it.

use super::{changes_cell, first_and_last, launches_label, notes, run_line};
use crate::analyse::history::History;
use crate::report::text::{style, Look};
use comfy_table::{Cell, CellAlignment, Table};

pub fn render(history: &History) -> String {
    let mut table = Table::new();
    style(&mut table, &Look::auto());
    table.force_no_tty();
    table.set_header(vec![
        Cell::new("case"),
        Cell::new("launches").set_alignment(CellAlignment::Right),
        Cell::new("first").set_alignment(CellAlignment::Right),
        Cell::new("last").set_alignment(CellAlignment::Right),
        Cell::new("change points"),
    ]);
    for case in &history.cases {
        let (first, last) = first_and_last(case);
        table.add_row(vec![
            Cell::new(&case.label),
            Cell::new(launches_label(history, case)).set_alignment(CellAlignment::Right),
            Cell::new(first).set_alignment(CellAlignment::Right),
            Cell::new(last).set_alignment(CellAlignment::Right),
            Cell::new(changes_cell(history, case).join("\n")),
        ]);
    }
    let mut out = format!(
        "pgcheck history: default's launch medians over {} launches in start order, per case\n{table}\n",
        history.runs.len()
    );
    for note in notes(history) {
        out += &format!("{note}\n");
    }
    out += "launches, in start order:\n";
    for (i, run) in history.runs.iter().enumerate() {
        out += &format!("{:>4}. {}\n", i + 1, run_line(run));
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
    }
}
