//! `overview.svg`: the grid of collectives × sizes (MPINPC's Figure 3),
//! each cell coloured by its severity and carrying its slowdown.

use super::TITLE;
use super::{colours, run_line, text_width, Svg, TextStyle, BOLD, FONT, MARGIN, PLAIN, SMALL};
use crate::analyse::{Results, Severity};
use crate::report::model::{overview, size_label, Mark};

const CELL_H: f64 = 40.0;

pub(super) fn render(results: &Results) -> String {
    let overview = overview(results);
    let title =
        "pgcheck: severity of the worst competitor significantly faster by more than the margin";
    let subtitle = run_line(results);
    let key = "under each severity: the slowdown of the case's competitor (default's median ÷ its median; above 1 it is faster than default)";
    let columns: Vec<String> = overview.sizes.iter().map(|&s| size_label(s)).collect();
    let label_w = overview
        .rows
        .iter()
        .map(|r| text_width(&r.label, FONT))
        .fold(text_width("collective", FONT), f64::max)
        + 16.0;
    let cell_w = columns
        .iter()
        .map(|c| text_width(c, FONT))
        .fold(text_width(Severity::MediumHigh.label(), FONT), f64::max)
        + 16.0;
    let legend: Vec<Mark> = [
        Severity::Ok,
        Severity::Low,
        Severity::Medium,
        Severity::MediumHigh,
        Severity::High,
        Severity::VeryHigh,
    ]
    .into_iter()
    .map(Mark::Severity)
    .chain([Mark::Inconclusive, Mark::Unmeasured, Mark::Wrong])
    .collect();
    let legend_item_w = cell_w + 8.0;

    let mut svg = Svg::new();
    svg.heading(title, &subtitle);
    let top = 60.0;
    let left = MARGIN + label_w;
    svg.text(MARGIN, top + CELL_H / 2.0, "start", BOLD, "collective");
    for (i, column) in columns.iter().enumerate() {
        svg.text(
            left + (i as f64 + 0.5) * cell_w,
            top + CELL_H / 2.0,
            "middle",
            BOLD,
            column,
        );
    }
    for (r, row) in overview.rows.iter().enumerate() {
        let y = top + (r + 1) as f64 * CELL_H;
        svg.text(MARGIN, y + CELL_H / 2.0, "start", PLAIN, &row.label);
        for (i, (&mark, &slowdown)) in row.marks.iter().zip(&row.slowdowns).enumerate() {
            let x = left + i as f64 * cell_w;
            let number = match mark {
                Mark::Severity(_) | Mark::Inconclusive => slowdown,
                Mark::Blank | Mark::Unmeasured | Mark::Wrong => None,
            };
            cell(&mut svg, (x, y), (cell_w, CELL_H), mark, number);
        }
    }
    let key_y = top + (overview.rows.len() + 1) as f64 * CELL_H + 14.0;
    svg.text(MARGIN, key_y, "start", SMALL, key);
    let legend_y = key_y + 14.0;
    for (i, &mark) in legend.iter().enumerate() {
        let at = (MARGIN + i as f64 * legend_item_w, legend_y);
        cell(&mut svg, at, (cell_w, CELL_H * 0.6), mark, None);
    }
    let width = (left + columns.len() as f64 * cell_w)
        .max(MARGIN + legend.len() as f64 * legend_item_w)
        .max(MARGIN + text_width(title, TITLE.size))
        .max(MARGIN + text_width(&subtitle, SMALL.size))
        .max(MARGIN + text_width(key, SMALL.size))
        + MARGIN;
    svg.finish(width, legend_y + CELL_H * 0.6 + MARGIN, title)
}

/// One coloured cell with its label and, under it, the slowdown; a white
/// gap around it.
fn cell(svg: &mut Svg, (x, y): (f64, f64), (w, h): (f64, f64), mark: Mark, slowdown: Option<f64>) {
    let (fill, ink) = colours(mark);
    svg.rect(x + 1.0, y + 1.0, w - 2.0, h - 2.0, fill);
    let style = TextStyle { fill: ink, ..PLAIN };
    match slowdown {
        Some(s) => {
            svg.text(x + w / 2.0, y + h * 0.34, "middle", style, mark.label());
            let number = TextStyle { fill: ink, ..SMALL };
            svg.text(
                x + w / 2.0,
                y + h * 0.72,
                "middle",
                number,
                &format!("{s:.2}×"),
            );
        }
        None => svg.text(x + w / 2.0, y + h / 2.0, "middle", style, mark.label()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::report::fixture;

    #[test]
    fn every_case_names_its_severity_and_slowdown() {
        let results = fixture::results();
        let svg = ("overview.svg".to_string(), render(&results));
        let overview = texts(&svg);
        for word in [
            "allreduce",
            "bcast",
            "scatter",
            "8 KiB",
            "1 MiB",
            "medium-high",
            "very-high",
            "n/a",
        ] {
            assert!(overview.contains(word), "{word} missing in {overview}");
        }
        assert!(overview.contains("Open MPI v4.1.6 <test & build>"));
        // Allreduce 8 B holds (its fastest 10.0/10.2), 8 KiB is violated
        // by 100/55, bcast's 600/100; the scatter case has no number.
        let labels = labels(&svg.1);
        for number in ["0.98×", "1.82×", "6.00×"] {
            assert_eq!(
                labels.iter().filter(|l| *l == number).count(),
                1,
                "{number} in {labels:?}"
            );
        }
        let numbers = labels.iter().filter(|l| l.ends_with('×')).count();
        assert_eq!(numbers, 3, "one per measured cell: {labels:?}");
    }
}
