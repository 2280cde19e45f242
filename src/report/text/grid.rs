//! The colours of the overview grid's marks (MPINPC's Figure 3) on a
//! terminal, which every marked cell (a verdict, a severity) shares.

use crate::analyse::Severity;
use crate::report::model::Mark;
use comfy_table::{Attribute, Cell, Color};

/// Green for ok, yellow to orange for the middling severities, red for the
/// high ones, reversed bold red for very-high.
pub(crate) fn paint(cell: Cell, mark: Mark) -> Cell {
    match mark {
        Mark::Blank => cell,
        Mark::Unmeasured | Mark::Inconclusive => cell.fg(Color::DarkGrey),
        Mark::Wrong => cell
            .fg(Color::Magenta)
            .add_attribute(Attribute::Bold)
            .add_attribute(Attribute::Reverse),
        Mark::Severity(severity) => match severity {
            Severity::Ok => cell.fg(Color::Green),
            Severity::Low => cell.fg(Color::Yellow),
            Severity::Medium => cell.fg(Color::DarkYellow),
            Severity::MediumHigh => cell.fg(Color::AnsiValue(208)),
            Severity::High => cell.fg(Color::Red).add_attribute(Attribute::Bold),
            Severity::VeryHigh => cell
                .fg(Color::Red)
                .add_attribute(Attribute::Bold)
                .add_attribute(Attribute::Reverse),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::Results;
    use crate::report::fixture;
    use crate::report::model::{overview, size_label};
    use crate::report::text::Look;

    /// The overview near the end of the detailed terminal report.
    fn render(results: &Results, color: bool) -> String {
        let text = crate::report::text::render(results, true, &Look { color, width: 100 });
        match text.find("\nOverview\n") {
            Some(at) => text[at..].to_string(),
            None => String::new(),
        }
    }

    #[test]
    fn lists_every_cell_with_its_label() {
        let results = fixture::results();
        let overview = overview(&results);
        assert_eq!(overview.sizes, vec![8, 8192, 1 << 20]);
        let rows: Vec<(&str, Vec<&str>)> = overview
            .rows
            .iter()
            .map(|r| {
                (
                    r.label.as_str(),
                    r.marks.iter().map(|m| m.label()).collect(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                ("allreduce", vec!["ok", "medium-high", ""]),
                ("bcast", vec!["very-high", "", ""]),
                ("scatter", vec!["", "", "n/a"]),
            ]
        );
        let text = render(&results, false);
        for word in [
            "allreduce",
            "bcast",
            "scatter",
            "8 B",
            "8 KiB",
            "1 MiB",
            "medium-high",
            "very-high",
            "n/a",
        ] {
            assert!(text.contains(word), "{word} missing in\n{text}");
        }
        let allreduce = text.lines().find(|l| l.contains("allreduce")).unwrap();
        assert!(allreduce.find(" ok ").unwrap() < allreduce.find("medium-high").unwrap());
    }

    #[test]
    fn colours_only_when_asked() {
        let results = fixture::results();
        assert!(!render(&results, false).contains('\x1b'));
        let coloured = render(&results, true);
        assert!(coloured.contains('\x1b'));
        assert!(coloured.contains("very-high"));
    }

    #[test]
    fn several_roots_get_a_row_each() {
        let mut results = fixture::results();
        let mut other_root = results.checks[2].clone();
        other_root.key.root = 5;
        other_root.severity = Severity::Low;
        results.checks.push(other_root);
        let labels: Vec<String> = overview(&results)
            .rows
            .into_iter()
            .map(|r| r.label)
            .collect();
        assert_eq!(
            labels,
            ["allreduce", "bcast root 2", "bcast root 5", "scatter"]
        );
    }

    #[test]
    fn the_worst_check_fills_a_shared_cell() {
        let mut results = fixture::results();
        let mut other_type = results.checks[0].clone();
        other_type.severity = Severity::High;
        results.checks.push(other_type);
        assert_eq!(
            overview(&results).rows[0].marks[0],
            Mark::Severity(Severity::High)
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        let labels: Vec<String> = [0, 8, 1000, 1024, 10_000, 12_345, 65_536, 1 << 20, 3_000_000]
            .into_iter()
            .map(size_label)
            .collect();
        assert_eq!(
            labels,
            ["0 B", "8 B", "1000 B", "1 KiB", "10 kB", "12345 B", "64 KiB", "1 MiB", "3 MB"]
        );
    }

    #[test]
    fn an_empty_run_renders_nothing() {
        let mut results = fixture::results();
        results.checks.clear();
        assert_eq!(render(&results, true), "");
        assert!(!crate::report::text::render(
            &results,
            false,
            &Look {
                color: false,
                width: 100
            }
        )
        .contains("Overview"));
    }
}
