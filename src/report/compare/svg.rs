//! The comparison as one SVG: a grid of cases × runs, each cell coloured by
//! its severity (as in a run's overview) with `default`'s median above the
//! mark, the row's fastest median in bold.

use super::{Cell, Comparison};
use crate::analyse::Severity;
use crate::report::model::Mark;
use crate::report::svg::{
    colours, page_width, text_width, Svg, TextStyle, BOLD, FONT, MARGIN, PLAIN, SMALL, TITLE,
};

const CELL_H: f64 = 40.0;
const HEADER_H: f64 = 44.0;

pub fn render(comparison: &Comparison) -> String {
    let title = "pgcheck compare: default's median and the severity of the worst competitor significantly faster by more than the margin";
    let subtitle = match comparison.elements() {
        Some(elements) => format!("bold: the fastest median of the case (separate runs: no test across them); every case {elements}"),
        None => "bold: the fastest median of the case (separate runs: no test across them)".into(),
    };
    let labels: Vec<String> = comparison
        .rows
        .iter()
        .map(|r| comparison.label(r))
        .collect();
    let header: Vec<(String, String)> = comparison
        .runs
        .iter()
        .map(|r| (r.name.clone(), format!("{} processes", r.processes)))
        .collect();
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FONT))
        .fold(text_width("case", FONT), f64::max)
        + 16.0;
    let cell_w = header
        .iter()
        .map(|(library, host)| text_width(library, FONT).max(text_width(host, SMALL.size)))
        .fold(text_width(Severity::MediumHigh.label(), FONT), f64::max)
        + 20.0;
    let runs: Vec<String> = comparison
        .runs
        .iter()
        .map(|r| format!("{}: {}, {}; {}", r.name, r.source, r.layout(), r.tally()))
        .collect();
    let mut svg = Svg::new();
    svg.heading(title, &subtitle);
    let top = 60.0;
    let left = MARGIN + label_w;
    column_heads(&mut svg, (left, top), cell_w, &header);
    for (r, row) in comparison.rows.iter().enumerate() {
        let y = top + HEADER_H + r as f64 * CELL_H;
        svg.text(MARGIN, y + CELL_H / 2.0, "start", PLAIN, &labels[r]);
        for (i, cell) in row.cells.iter().enumerate() {
            let x = left + i as f64 * cell_w;
            grid_cell(&mut svg, (x, y), cell_w, cell.as_ref());
        }
    }
    let mut y = top + HEADER_H + comparison.rows.len() as f64 * CELL_H + 18.0;
    for line in &runs {
        svg.text(MARGIN, y, "start", SMALL, line);
        y += 16.0;
    }
    let width = page_width(
        [
            left + comparison.runs.len() as f64 * cell_w,
            MARGIN + text_width(title, TITLE.size),
            MARGIN + text_width(&subtitle, SMALL.size),
        ]
        .into_iter()
        .chain(runs.iter().map(|l| MARGIN + text_width(l, SMALL.size))),
    );
    svg.finish(width, y + MARGIN, title)
}

/// `case` over the labels, and over each run's column its name and processes.
fn column_heads(svg: &mut Svg, (left, top): (f64, f64), cell_w: f64, header: &[(String, String)]) {
    svg.text(MARGIN, top + HEADER_H / 2.0, "start", BOLD, "case");
    for (i, (library, host)) in header.iter().enumerate() {
        let x = left + (i as f64 + 0.5) * cell_w;
        svg.text(x, top + HEADER_H * 0.3, "middle", BOLD, library);
        svg.text(x, top + HEADER_H * 0.7, "middle", SMALL, host);
    }
}

/// One run's cell of a case: coloured by its mark, `default`'s median
/// over the mark; blank where the run lacks the case.
fn grid_cell(svg: &mut Svg, (x, y): (f64, f64), cell_w: f64, cell: Option<&Cell>) {
    let centre = x + cell_w / 2.0;
    let Some(cell) = cell else {
        let (fill, ink) = colours(Mark::Blank);
        svg.rect(x + 1.0, y + 1.0, cell_w - 2.0, CELL_H - 2.0, fill);
        let style = TextStyle { fill: ink, ..SMALL };
        svg.text(centre, y + CELL_H / 2.0, "middle", style, "not in this run");
        return;
    };
    let (fill, ink) = colours(cell.mark);
    svg.rect(x + 1.0, y + 1.0, cell_w - 2.0, CELL_H - 2.0, fill);
    let median = TextStyle {
        fill: ink,
        bold: cell.best,
        ..PLAIN
    };
    let mark = TextStyle { fill: ink, ..SMALL };
    svg.text(
        centre,
        y + CELL_H * 0.32,
        "middle",
        median,
        &cell.median_label(),
    );
    svg.text(centre, y + CELL_H * 0.72, "middle", mark, cell.mark.label());
}

#[cfg(test)]
mod tests {
    use super::super::fixture::run;
    use super::*;

    #[test]
    fn a_well_formed_grid_with_every_run_case_and_median() {
        let mut a = run("Open MPI v4.1.4 <&>", "vm", 10.0, true, 5.0);
        a.checks.remove(2);
        let b = run("MPICH Version: 4.0.2", "vm", 12.0, false, 4.0);
        let xml = render(&Comparison::of(&[("a".into(), a), ("b".into(), b)]).unwrap());
        let doc = roxmltree::Document::parse(&xml).expect("well-formed SVG");
        let texts: Vec<(String, bool)> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| {
                (
                    n.text().unwrap_or("").to_string(),
                    n.attribute("font-weight") == Some("bold"),
                )
            })
            .collect();
        let has = |s: &str, bold: bool| texts.iter().any(|(t, b)| t == s && *b == bold);
        assert!(has("Open MPI v4.1.4 <&> on vm", true), "{texts:?}");
        assert!(has("MPICH 4.0.2 on vm", true));
        for case in ["allreduce 8 B", "allreduce 8 KiB", "bcast 8 B root 0"] {
            assert!(has(case, false), "{case} missing: {texts:?}");
        }
        assert!(has("10.00 µs", true) && has("12.00 µs", false));
        assert!(has("4.00 µs", true) && has("not in this run", false));
        assert!(has("medium-high", false));
    }
}
