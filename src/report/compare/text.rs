//! The comparison as a terminal table: a row per case, per run its
//! `default` median (`*` on the row's fastest) and severity, the runs
//! described under it.

use super::{Cell as Entry, Comparison};
use crate::report::text::{bind, fitted, grid::paint, style, unbind, wrap, Look};
use comfy_table::{Attribute, Cell, CellAlignment, Table};

/// The table and the runs' lines; `color` paints the severities and puts
/// the fastest medians in bold (the `*` stays, for a reader without colour).
pub fn render(comparison: &Comparison, color: bool) -> String {
    render_to(comparison, &Look::stdout(color))
}

/// [`render`] in a given look, within its width.
pub fn render_to(comparison: &Comparison, look: &Look) -> String {
    let color = look.color;
    let width = usize::from(look.width);
    let mut table = Table::new();
    style(&mut table, look);
    let mut header = vec![Cell::new("case")];
    for run in &comparison.runs {
        header.push(
            Cell::new(format!("{}\n{} processes\nmedian", run.name, run.processes))
                .set_alignment(CellAlignment::Right),
        );
        header.push(Cell::new("\n\nseverity"));
    }
    table.set_header(header);
    for row in &comparison.rows {
        let mut cells = vec![Cell::new(bind(&comparison.label(row)))];
        for cell in &row.cells {
            cells.extend(match cell {
                Some(cell) => entry(cell, color),
                None => [
                    Cell::new("—").set_alignment(CellAlignment::Right),
                    Cell::new(""),
                ],
            });
        }
        table.add_row(cells);
    }
    let mut out = wrap(
        "pgcheck compare: per case, the median of default's per-round medians and the severity of the worst competitor significantly faster by more than the margin of each run; * the fastest median of the row (separate runs: no test across them); —: the run lacks the case",
        width,
        "",
    );
    if let Some(elements) = comparison.elements() {
        out += &wrap(&format!("every case: {elements}"), width, "  ");
    }
    out += &fitted(table);
    for run in &comparison.runs {
        let line = format!(
            "{}: {}, {}{}{}; {}",
            run.name,
            run.source,
            run.layout(),
            run.noise
                .map(|n| format!(", {} run", n.label()))
                .unwrap_or_default(),
            if run.complete { "" } else { ", INCOMPLETE" },
            run.tally()
        );
        out += &unbind(&wrap(&bind(&line), width, "  "));
    }
    out
}

/// A run's median and severity cells.
fn entry(cell: &Entry, color: bool) -> [Cell; 2] {
    let star = if cell.best { "*" } else { " " };
    let mut median = Cell::new(bind(&format!("{}{star}", cell.median_label())))
        .set_alignment(CellAlignment::Right);
    if cell.best && color {
        median = median.add_attribute(Attribute::Bold);
    }
    let mark = Cell::new(cell.mark.label());
    [median, if color { paint(mark, cell.mark) } else { mark }]
}

#[cfg(test)]
mod tests {
    use super::super::fixture::run;
    use super::*;

    fn comparison() -> Comparison {
        Comparison::of(&[
            (
                "dir-a".into(),
                run("Open MPI v4.1.4, package: x", "vm", 10.0, true, 5.0),
            ),
            (
                "dir-b".into(),
                run("MPICH Version: 4.0.2", "vm", 12.0, false, 4.0),
            ),
        ])
        .unwrap()
    }

    /// The line of the table that holds `case`.
    fn line<'a>(text: &'a str, case: &str) -> &'a str {
        text.lines().find(|l| l.contains(case)).unwrap()
    }

    #[test]
    fn shows_each_runs_median_and_severity_with_the_best_starred() {
        let text = render(&comparison(), false);
        assert!(!text.contains('\x1b'));
        for header in [
            "Open MPI v4.1.4",
            "MPICH 4.0.2",
            "Open MPI v4.1.4 on vm",
            "8 processes",
            "severity",
        ] {
            assert!(text.contains(header), "{header} missing in\n{text}");
        }
        let allreduce = line(&text, "allreduce 8 B");
        let (a, b) = (
            allreduce.find("10.00 µs*").unwrap(),
            allreduce.find("12.00 µs ").unwrap(),
        );
        assert!(
            a < allreduce.find("medium-high").unwrap() && a < b,
            "{allreduce}"
        );
        let bcast = line(&text, "bcast 8 B root 0");
        assert!(
            bcast.contains("5.00 µs ") && bcast.contains("4.00 µs*"),
            "{bcast}"
        );
        assert!(text.contains("every case: byte bor"));
        let described = line(&text, "Open MPI v4.1.4 on vm: dir-a");
        assert!(described.contains("1 violated, 2 hold"), "{described}");
    }

    /// At 60, 80 and 100 columns the table and its lines wrap at spaces,
    /// never inside a word or between a number and its unit.
    #[test]
    fn the_comparison_breaks_no_word_at_any_width() {
        crate::report::text::assert_no_word_broken(|width| {
            render_to(
                &comparison(),
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
        let text = render(&comparison, false);
        assert!(line(&text, "bcast 8 B").contains('—'));
        let coloured = render(&comparison, true);
        assert!(coloured.contains('\x1b') && coloured.contains("medium-high"));
    }
}
