//! The history as GitHub-flavoured Markdown: the table, its notes and the
//! launches.

use super::{
    changes_cell, first_and_last, launches_in_words, launches_label, notes, run_line,
    under_test_cell, under_test_line,
};
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
            let mut row = vec![
                text(&case.label),
                launches_label(history, case),
                text(&first),
                text(&last),
                changes.join("<br>"),
            ];
            if history.under_test.is_some() {
                row.push(text(&under_test_cell(case)));
            }
            row
        })
        .collect();
    let mut align = vec![
        Align::Left,
        Align::Right,
        Align::Right,
        Align::Right,
        Align::Left,
    ];
    let mut header = vec!["case", "launches", "first", "last", "change points"];
    if history.under_test.is_some() {
        align.push(Align::Right);
        header.push("under test");
    }
    let mut out = format!(
        "`default`'s launch medians over {} in start order, per case.\n\n",
        launches_in_words(history)
    );
    out += &table(&header, &align, &rows);
    out += "\n";
    for note in notes(history) {
        out += &format!("- {}\n", text(&note));
    }
    out += "\nLaunches, in start order:\n\n";
    for (i, run) in history.runs.iter().enumerate() {
        out += &format!("{}. {}\n", i + 1, text(&run_line(run)));
    }
    if let Some(run) = &history.under_test {
        out += &format!("\n{}\n", text(&under_test_line(run)));
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
