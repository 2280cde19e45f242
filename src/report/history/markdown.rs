//! The history as GitHub-flavoured Markdown: the table, its notes and the
//! launches.

use super::{changes_cell, first_and_last, launches_label, notes, run_line};
use crate::analyse::history::History;
use crate::report::markdown::{table, text, Align};

pub fn render(history: &History) -> String {
    let rows: Vec<Vec<String>> = history
        .cases
        .iter()
        .map(|case| {
            let (first, last) = first_and_last(case);
            let changes: Vec<String> = changes_cell(history, case)
                .iter()
                .map(|c| text(c))
                .collect();
            vec![
                text(&case.label),
                launches_label(history, case),
                text(&first),
                text(&last),
                changes.join("<br>"),
            ]
        })
        .collect();
    let align = [
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Left,
    ];
    let mut out = format!(
        "`default`'s launch medians over {} launches in start order, per case.\n\n",
        history.runs.len()
    );
    out += &table(
        &["case", "launches", "first", "last", "change points"],
        &align,
        &rows,
    );
    out += "\n";
    for note in notes(history) {
        out += &format!("- {}\n", text(&note));
    }
    out += "\nLaunches, in start order:\n\n";
    for (i, run) in history.runs.iter().enumerate() {
        out += &format!("{}. {}\n", i + 1, text(&run_line(run)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::history;

    #[test]
    fn a_table_row_per_case() {
        let md = super::render(&history());
        assert!(md.contains("| case | launches | first | last | change points |"));
        let allreduce = md
            .lines()
            .find(|l| l.starts_with("| MPI_Allreduce 8 B"))
            .unwrap();
        assert!(allreduce.contains("| 12 | 9.90 µs | 15.00 µs | after launch-05: ×1.5"));
        assert!(md.contains("12. launch-11: started 2025-01-01T11:00:00Z"));
    }
}
