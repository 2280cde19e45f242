//! The history as one SVG of small multiples: a panel per case, `default`'s
//! launch medians against the launch number (shared by every panel) on a
//! logarithmic axis of the panel's own, the median of each stretch between
//! change points, and each change point marked with its ratio and p-value.

use super::{notes, p_label, run_line, under_test_line};
use crate::analyse::history::{CaseHistory, History};
use crate::report::model::seconds;
use crate::report::svg::{text_width, Svg, TextStyle, MARGIN, SMALL, TITLE};

const PANEL_W: f64 = 400.0;
const PANEL_H: f64 = 224.0;
const COLUMNS: usize = 3;
/// The plot inside a panel: room on the left for the time labels, above
/// for the title and two rows of change labels, below for the launch
/// numbers and the panel's status.
const PLOT_LEFT: f64 = 76.0;
const PLOT_RIGHT: f64 = 16.0;
const PLOT_TOP: f64 = 56.0;
const PLOT_BOTTOM: f64 = 48.0;
/// The smallest span of a panel's axis, as a factor: a flat series with
/// 1 % noise stays flat instead of filling the panel.
const MIN_SPAN: f64 = 1.25;

const POINT: &str = "#1565c0";
const TRACE: &str = "#90caf9";
const LEVEL: &str = "#37474f";
const CHANGE: &str = "#c62828";
const GRID: &str = "#e0e0e0";
/// The launch under test: an open ring beside the series.
const UNDER_TEST: &str = "#ef6c00";

const CASE: TextStyle = TextStyle {
    size: 12.0,
    bold: true,
    fill: "#212121",
};
const MARK: TextStyle = TextStyle {
    size: 11.0,
    bold: true,
    fill: CHANGE,
};

pub fn render(history: &History) -> String {
    let title = "pgcheck history: default's launch medians in start order, and their change points";
    let legend = match history.under_test {
        None => "x: launch number in start order (listed below); y: median of per-round medians, logarithmic; dots: one launch; dark lines: the median between change points; red dashes: a change point, × median after over before, its p-value",
        Some(_) => "x: launch number in start order (listed below), then the launch under test (orange ring, × its median over the last stretch's); y: median of per-round medians, logarithmic; dots: one launch; dark lines: the median between change points; red dashes: a change point, × median after over before, its p-value",
    };
    let notes = notes(history);
    let runs: Vec<String> = history
        .runs
        .iter()
        .enumerate()
        .map(|(i, r)| format!("{}. {}", i + 1, run_line(r)))
        .chain(history.under_test.iter().map(under_test_line))
        .collect();

    let mut svg = Svg::new();
    svg.heading(title, legend);
    let top = 56.0;
    for (i, case) in history.cases.iter().enumerate() {
        let x0 = MARGIN + (i % COLUMNS) as f64 * PANEL_W;
        let y0 = top + (i / COLUMNS) as f64 * PANEL_H;
        panel(&mut svg, history, case, x0, y0);
    }
    let rows = history.cases.len().div_ceil(COLUMNS);
    let mut y = top + rows as f64 * PANEL_H + 12.0;
    for line in notes
        .iter()
        .chain(std::iter::once(&"launches:".to_string()))
    {
        svg.text(MARGIN, y, "start", SMALL, line);
        y += 16.0;
    }
    // The launches in columns (down, then across) as wide as the panels
    // allow, so that a long history does not make a long page.
    let panels_w = history.cases.len().clamp(1, COLUMNS) as f64 * PANEL_W;
    let run_w = runs
        .iter()
        .map(|l| text_width(l, SMALL.size))
        .fold(0.0, f64::max)
        + 24.0;
    let per_row = ((panels_w / run_w).floor() as usize).max(1);
    let run_rows = runs.len().div_ceil(per_row);
    for (i, line) in runs.iter().enumerate() {
        let (column, row) = (i / run_rows, i % run_rows);
        let x = MARGIN + column as f64 * run_w;
        svg.text(x, y + row as f64 * 16.0, "start", SMALL, line);
    }
    y += run_rows as f64 * 16.0;
    let width = [
        MARGIN + panels_w,
        MARGIN + text_width(title, TITLE.size),
        MARGIN + text_width(legend, SMALL.size),
        MARGIN + per_row.min(runs.len()) as f64 * run_w,
    ]
    .into_iter()
    .chain(notes.iter().map(|l| MARGIN + text_width(l, SMALL.size)))
    .fold(0.0, f64::max)
        + MARGIN;
    svg.finish(width, y + MARGIN, title)
}

/// One case's panel with its top left corner at (x0, y0).
fn panel(svg: &mut Svg, history: &History, case: &CaseHistory, x0: f64, y0: f64) {
    let (top, bottom) = (y0 + PLOT_TOP, y0 + PANEL_H - PLOT_BOTTOM);
    svg.text(x0 + 8.0, y0 + 14.0, "start", CASE, &case.label);
    let launches = history.runs.len();
    let across = Across {
        left: x0 + PLOT_LEFT,
        right: x0 + PANEL_W - PLOT_RIGHT,
        // One more slot at the right for the launch under test.
        slots: launches + usize::from(history.under_test.is_some()),
    };
    launch_axis(
        svg,
        &across,
        (top, bottom),
        launches,
        history.under_test.is_some(),
    );
    let measured: Vec<(usize, f64)> = case
        .medians_s
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Some((i, (*m)?.ln())))
        .collect();
    let status = status(history, case);
    svg.text(across.left, bottom + 28.0, "start", SMALL, &status);
    let under_test = case.under_test_s.map(f64::ln);
    if measured.is_empty() && under_test.is_none() {
        return;
    }
    let (low, high) = span(measured.iter().map(|(_, m)| *m).chain(under_test));
    let up = Up {
        top,
        bottom,
        low,
        high,
    };
    time_grid(svg, &across, &up);
    for segment in &case.segments {
        let level = up.y(segment.median_s.ln());
        let (from, to) = (across.x(segment.first) - 4.0, across.x(segment.last) + 4.0);
        svg.line((from, level), (to, level), LEVEL, 2.0);
    }
    let points: Vec<(f64, f64)> = measured
        .iter()
        .map(|&(i, m)| (across.x(i), up.y(m)))
        .collect();
    if points.len() > 1 {
        svg.polyline(&points, TRACE);
    }
    for &point in &points {
        svg.circle(point, 2.5, POINT);
    }
    if let Some(log) = under_test {
        under_test_mark(svg, (across.x(launches), up.y(log)), case, log);
    }
    change_marks(svg, &across, (top, bottom), case);
}

/// Where a panel's launches lie across: a slot each from `left` to `right`.
struct Across {
    left: f64,
    right: f64,
    slots: usize,
}

impl Across {
    /// The centre of launch `i`'s slot.
    fn x(&self, i: usize) -> f64 {
        self.left + (i as f64 + 0.5) / self.slots as f64 * (self.right - self.left)
    }
}

/// Where a panel's times lie up: logarithms from `low` at `bottom` to
/// `high` at `top`.
struct Up {
    top: f64,
    bottom: f64,
    low: f64,
    high: f64,
}

impl Up {
    fn y(&self, log: f64) -> f64 {
        self.bottom - (log - self.low) / (self.high - self.low) * (self.bottom - self.top)
    }
}

/// The axes, every launch's number (every k-th when more than ten) and
/// `test` under the launch under test.
fn launch_axis(
    svg: &mut Svg,
    across: &Across,
    (top, bottom): (f64, f64),
    launches: usize,
    under_test: bool,
) {
    let (left, right) = (across.left, across.right);
    svg.line((left, bottom), (right, bottom), "#212121", 1.0);
    svg.line((left, top), (left, bottom), "#212121", 1.0);
    let step = launches.div_ceil(10).max(1);
    for i in (0..launches).step_by(step) {
        let x = across.x(i);
        svg.line((x, bottom), (x, bottom + 3.0), "#212121", 1.0);
        svg.text(x, bottom + 11.0, "middle", SMALL, &(i + 1).to_string());
    }
    if under_test {
        svg.text(across.x(launches), bottom + 11.0, "middle", SMALL, "test");
    }
}

/// Grid lines at the lowest, middle and highest time, labelled.
fn time_grid(svg: &mut Svg, across: &Across, up: &Up) {
    for log in [up.low, (up.low + up.high) / 2.0, up.high] {
        let at = up.y(log);
        svg.line((across.left, at), (across.right, at), GRID, 1.0);
        svg.text(across.left - 4.0, at, "end", SMALL, &seconds(log.exp()));
    }
}

/// The launch under test's ring at `at`, its time (`log`) and its ratio
/// to the last stretch.
fn under_test_mark(svg: &mut Svg, at: (f64, f64), case: &CaseHistory, log: f64) {
    let label = match case.under_test_ratio() {
        Some(r) => format!("×{r:.2}"),
        None => String::new(),
    };
    svg.ring(
        at,
        4.5,
        UNDER_TEST,
        &format!("the launch under test: {} {label}", seconds(log.exp())),
    );
    let style = TextStyle {
        fill: UNDER_TEST,
        ..MARK
    };
    svg.text(at.0 - 7.0, at.1, "end", style, &label);
}

/// A dashed line between the stretches at each change, its ratio and
/// p-value above the plot.
fn change_marks(svg: &mut Svg, across: &Across, (top, bottom): (f64, f64), case: &CaseHistory) {
    for (j, (change, before)) in case.changes.iter().zip(&case.segments).enumerate() {
        let at = (across.x(before.last) + across.x(change.index)) / 2.0;
        svg.dashed((at, top), (at, bottom), CHANGE, "5,3");
        let label = format!("×{:.2} p {}", change.ratio, p_label(change.p_value));
        let (anchor, dx) = match at < (across.left + across.right) / 2.0 {
            true => ("start", 4.0),
            false => ("end", -4.0),
        };
        // Above the plot, alternating between two rows so that changes
        // close together keep their labels apart.
        let row = top - 24.0 + 13.0 * (j % 2) as f64;
        svg.line((at, row + 6.0), (at, top), CHANGE, 1.0);
        svg.text(at + dx, row, anchor, MARK, &label);
    }
}

/// What the panel says under its axis: launches and changes, or why there
/// can be none.
fn status(history: &History, case: &CaseHistory) -> String {
    let launches = format!("{} launches", case.launches());
    match (case.changes.len(), case.testable(history.alpha)) {
        (0, false) => format!(
            "{launches}: too few for a change (p ≥ {})",
            p_label(case.smallest_p)
        ),
        (0, true) => format!("{launches}, no change at p < {}", history.alpha),
        (1, _) => format!("{launches}, 1 change point"),
        (n, _) => format!("{launches}, {n} change points"),
    }
}

/// The axis of a panel, in logarithms: the values with a tenth of their
/// span around them, and at least [`MIN_SPAN`].
fn span(logs: impl Iterator<Item = f64>) -> (f64, f64) {
    let (low, high) = logs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    });
    let pad = (high - low) / 10.0;
    let (low, high) = (low - pad, high + pad);
    let short = MIN_SPAN.ln() - (high - low);
    match short > 0.0 {
        true => (low - short / 2.0, high + short / 2.0),
        false => (low, high),
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture::history;
    use super::*;

    #[test]
    fn a_well_formed_panel_per_case_with_its_change_marked() {
        let mut history = history();
        history.runs[3].name = "launch <&> 03".into();
        let xml = render(&history);
        let doc = roxmltree::Document::parse(&xml).expect("well-formed SVG");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text())
            .collect();
        let has = |s: &str| texts.iter().any(|t| t.contains(s));
        assert!(
            has("MPI_Allreduce 8 B") && has("MPI_Bcast 8 B"),
            "{texts:?}"
        );
        let marks: Vec<&&str> = texts.iter().filter(|t| t.starts_with("×1.5")).collect();
        assert_eq!(marks.len(), 1, "{texts:?}");
        assert!(marks[0].contains(" p 0.0"), "{marks:?}");
        assert!(has("12 launches, 1 change point"));
        assert!(has("11 launches, no change at p < 0.05"));
        assert!(has("4. launch <&> 03: started"));
        let count = |tag: &str| doc.descendants().filter(|n| n.has_tag_name(tag)).count();
        assert_eq!(count("circle"), 12 + 11, "a dot per launch median");
        assert_eq!(count("polyline"), 2);
        let dashed = doc
            .descendants()
            .filter(|n| n.attribute("stroke-dasharray").is_some())
            .count();
        assert_eq!(dashed, 1, "one change point marked");
    }

    #[test]
    fn the_launch_under_test_is_a_ring_beside_the_series() {
        let xml = render(&super::super::fixture::with_under_test());
        let doc = roxmltree::Document::parse(&xml).expect("well-formed SVG");
        let rings: Vec<_> = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("stroke") == Some(UNDER_TEST))
            .collect();
        assert_eq!(rings.len(), 1, "allreduce only: the launch has no bcast");
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        assert!(texts.contains(&"×2.00"), "{texts:?}");
        assert!(texts.contains(&"test"), "{texts:?}");
        assert!(texts
            .iter()
            .any(|t| t.starts_with("under test (not in the history): gate-1")));
        // Right of every launch of the series, in its panel (the first).
        let cx = |n: &roxmltree::Node| n.attribute("cx").unwrap().parse::<f64>().unwrap();
        let rightmost = doc
            .descendants()
            .filter(|n| n.has_tag_name("circle") && n.attribute("stroke").is_none())
            .map(|n| cx(&n))
            .filter(|&x| x < MARGIN + PANEL_W)
            .fold(0.0, f64::max);
        assert!(rightmost > 0.0 && cx(&rings[0]) > rightmost);
    }

    #[test]
    fn a_short_history_says_why_it_has_no_change() {
        let mut history = history();
        history.cases[1].smallest_p = 0.2;
        let xml = render(&history);
        assert!(xml.contains("11 launches: too few for a change (p ≥ 0.200)"));
    }

    #[test]
    fn flat_series_keep_a_minimum_span() {
        let (low, high) = span([1.0f64.ln(), 1.01f64.ln()].into_iter());
        assert!((high - low - MIN_SPAN.ln()).abs() < 1e-12);
        let (low, high) = span([1.0f64.ln(), 2.0f64.ln()].into_iter());
        assert!((high - low - 1.2 * 2.0f64.ln()).abs() < 1e-12);
    }
}
