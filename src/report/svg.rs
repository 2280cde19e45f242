//! Plots as SVG files: the overview heatmap (MPINPC's Figure 3), one bar
//! chart of medians with interquartile ranges per check (its Figure 5), and
//! per check the histograms of the candidates' times with their fitted
//! usual-time models (Kluge et al. 2005), one small panel per candidate.
//! Written by hand: no fonts, no system libraries, text stays text.

use super::model::{self as details, overview, ranked, seconds, size_label, Mark};
use crate::analyse::Results;
use crate::analyse::{CandidateSummary, Severity, Verdict};
use crate::candidates::native::DEFAULT;
use std::collections::HashSet;
use std::fmt::Write as _;

/// `overview.svg`, one `check-<collective>-<size>B[-root<r>].svg` per
/// check, and beside it `usual-<collective>-<size>B[-root<r>].svg` when a
/// candidate of the check has a usual time, as (file name, SVG text).
pub fn render_all(results: &Results) -> Vec<(String, String)> {
    let mut files = Vec::new();
    if !results.checks.is_empty() {
        files.push(("overview.svg".to_string(), overview_svg(results)));
    }
    let mut used = HashSet::new();
    for check in &results.checks {
        let stem = unique_stem(check, &mut used);
        files.push((format!("{stem}.svg"), check_svg(results, check)));
        if let Some(svg) = usual_svg(results, check) {
            let name = stem.strip_prefix("check-").unwrap_or(&stem);
            files.push((format!("usual-{name}.svg"), svg));
        }
    }
    files
}

/// `check-bcast-8B-root0`; checks that differ only in datatype or operator
/// get those appended, so that none overwrites another.
fn unique_stem(check: &Verdict, used: &mut HashSet<String>) -> String {
    let key = &check.key;
    let mut stem = format!("check-{}-{}B", key.collective.name(), key.size_bytes);
    if key.collective.is_rooted() {
        stem += &format!("-root{}", key.root);
    }
    if used.contains(&stem) {
        stem += &format!("-{}-{}", key.datatype.name(), key.op.name());
    }
    let base = stem.clone();
    let mut n = 2;
    while !used.insert(stem.clone()) {
        stem = format!("{base}-{n}");
        n += 1;
    }
    stem
}

pub(crate) const FONT: f64 = 13.0;
pub(crate) const MARGIN: f64 = 16.0;

/// Width of `s` in pixels at `size`: an estimate, as nothing measures fonts here.
pub(crate) fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// An SVG document under construction.
pub(crate) struct Svg {
    body: String,
}

impl Svg {
    pub(crate) fn new() -> Svg {
        Svg {
            body: String::new(),
        }
    }

    pub(crate) fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="{fill}"/>"#,
            w.max(0.0)
        );
    }

    pub(crate) fn line(
        &mut self,
        (x1, y1): (f64, f64),
        (x2, y2): (f64, f64),
        stroke: &str,
        width: f64,
    ) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="{width}"/>"#
        );
    }

    pub(crate) fn dashed(
        &mut self,
        (x1, y1): (f64, f64),
        (x2, y2): (f64, f64),
        stroke: &str,
        dash: &str,
    ) {
        let _ = writeln!(
            self.body,
            r#"<line x1="{x1:.1}" y1="{y1:.1}" x2="{x2:.1}" y2="{y2:.1}" stroke="{stroke}" stroke-width="1.5" stroke-dasharray="{dash}"/>"#
        );
    }

    pub(crate) fn polyline(&mut self, points: &[(f64, f64)], stroke: &str) {
        let points: Vec<String> = points
            .iter()
            .map(|(x, y)| format!("{x:.1},{y:.1}"))
            .collect();
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="1.5"/>"#,
            points.join(" ")
        );
    }

    pub(crate) fn circle(&mut self, (x, y): (f64, f64), r: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}"/>"#
        );
    }

    /// Text whose baseline sits a third of the font size under `y`, so that
    /// `y` is its visual middle. `anchor`: start, middle or end.
    pub(crate) fn text(&mut self, x: f64, y: f64, anchor: &str, style: TextStyle, content: &str) {
        let TextStyle { size, bold, fill } = style;
        let weight = if bold { r#" font-weight="bold""# } else { "" };
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" font-size="{size}" fill="{fill}"{weight}>{}</text>"#,
            y + size / 3.0,
            escape(content)
        );
    }

    pub(crate) fn finish(self, width: f64, height: f64, title: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
             <svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" \
             viewBox=\"0 0 {width:.0} {height:.0}\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\">\n\
             <title>{}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n{}</svg>\n",
            escape(title),
            self.body
        )
    }
}

#[derive(Clone, Copy)]
pub(crate) struct TextStyle {
    pub(crate) size: f64,
    pub(crate) bold: bool,
    pub(crate) fill: &'static str,
}

pub(crate) const PLAIN: TextStyle = TextStyle {
    size: FONT,
    bold: false,
    fill: "#212121",
};
pub(crate) const BOLD: TextStyle = TextStyle {
    size: FONT,
    bold: true,
    fill: "#212121",
};
pub(crate) const TITLE: TextStyle = TextStyle {
    size: 16.0,
    bold: true,
    fill: "#212121",
};
pub(crate) const SMALL: TextStyle = TextStyle {
    size: 11.0,
    bold: false,
    fill: "#616161",
};

/// XML text and attribute content: markup escaped, and the control
/// characters XML forbids dropped.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out += "&amp;",
            '<' => out += "&lt;",
            '>' => out += "&gt;",
            '"' => out += "&quot;",
            '\'' => out += "&apos;",
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// Fill and text colour of a grid mark: green to dark red as severity grows.
pub(crate) fn colours(mark: Mark) -> (&'static str, &'static str) {
    match mark {
        Mark::Blank => ("#fafafa", "#212121"),
        Mark::Unmeasured => ("#e0e0e0", "#616161"),
        Mark::Inconclusive => ("#cfd8dc", "#37474f"),
        Mark::Wrong => ("#4a148c", "#ffffff"),
        Mark::Severity(severity) => match severity {
            Severity::Ok => ("#66bb6a", "#212121"),
            Severity::Low => ("#d4e157", "#212121"),
            Severity::Medium => ("#ffca28", "#212121"),
            Severity::MediumHigh => ("#ffa726", "#212121"),
            Severity::High => ("#f4511e", "#ffffff"),
            Severity::VeryHigh => ("#b71c1c", "#ffffff"),
        },
    }
}

/// Library and process layout, the subtitle of every plot.
fn run_line(results: &Results) -> String {
    let meta = &results.meta;
    let mut line = format!(
        "{} · {} processes = {} node(s) × {} ppn",
        meta.mpi_library.lines().next().unwrap_or("MPI"),
        meta.processes,
        meta.nodes,
        meta.ppn
    );
    if !results.complete {
        line += " · incomplete run";
    }
    line
}

fn overview_svg(results: &Results) -> String {
    const CELL_H: f64 = 28.0;
    let overview = overview(results);
    let title =
        "pgcheck: severity of the worst competitor significantly faster by more than the margin";
    let subtitle = run_line(results);
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
    svg.text(MARGIN, 22.0, "start", TITLE, title);
    svg.text(MARGIN, 42.0, "start", SMALL, &subtitle);
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
        for (i, &mark) in row.marks.iter().enumerate() {
            let x = left + i as f64 * cell_w;
            cell(&mut svg, x, y, cell_w, CELL_H, mark);
        }
    }
    let legend_y = top + (overview.rows.len() + 1) as f64 * CELL_H + 16.0;
    for (i, &mark) in legend.iter().enumerate() {
        cell(
            &mut svg,
            MARGIN + i as f64 * legend_item_w,
            legend_y,
            cell_w,
            CELL_H * 0.8,
            mark,
        );
    }
    let width = (left + columns.len() as f64 * cell_w)
        .max(MARGIN + legend.len() as f64 * legend_item_w)
        .max(MARGIN + text_width(title, TITLE.size))
        .max(MARGIN + text_width(&subtitle, SMALL.size))
        + MARGIN;
    svg.finish(width, legend_y + CELL_H + MARGIN, title)
}

/// One coloured cell with its label, a white gap around it.
fn cell(svg: &mut Svg, x: f64, y: f64, w: f64, h: f64, mark: Mark) {
    let (fill, ink) = colours(mark);
    svg.rect(x + 1.0, y + 1.0, w - 2.0, h - 2.0, fill);
    let style = TextStyle { fill: ink, ..PLAIN };
    svg.text(x + w / 2.0, y + h / 2.0, "middle", style, mark.label());
}

/// A time unit that suits `max` seconds: its name and how many per second.
fn unit(max: f64) -> (&'static str, f64) {
    match max {
        m if m < 1e-3 => ("µs", 1e6),
        m if m < 1.0 => ("ms", 1e3),
        _ => ("s", 1.0),
    }
}

/// A round tick step giving about five ticks up to `max`: 1, 2 or 5 × 10^k.
fn tick_step(max: f64) -> f64 {
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// A tick label without trailing zeros: `0`, `2.5`, `100`.
fn tick_label(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// What a bar's right-hand label says: its median and how it compares.
fn bar_label(candidate: &CandidateSummary) -> String {
    let median = candidate.median_s.map_or("-".into(), seconds);
    let comparison = match candidate.slowdown {
        _ if candidate.name == DEFAULT => "default".to_string(),
        Some(s) if s >= 1.0 => format!("{s:.2}× faster"),
        Some(s) if s > 0.0 => format!("{:.2}× slower", 1.0 / s),
        _ => String::new(),
    };
    let significant = if candidate.significant { " *" } else { "" };
    let close = if candidate.below_noise && candidate.name != DEFAULT {
        " ~"
    } else {
        ""
    };
    format!("{median} · {comparison}{significant}{close}")
}

fn bar_fill(candidate: &CandidateSummary) -> &'static str {
    if candidate.name == DEFAULT {
        "#37474f"
    } else if candidate.significant {
        colours(Mark::Severity(Severity::of_slowdown(
            candidate.slowdown.unwrap_or(1.0),
        )))
        .0
    } else {
        "#90caf9"
    }
}

fn check_svg(results: &Results, check: &Verdict) -> String {
    const ROW_H: f64 = 24.0;
    const BAR_H: f64 = 14.0;
    const PLOT_W: f64 = 480.0;
    let title = details::title(check);
    let subtitle = format!("{} · {}", details::verdict_line(check), run_line(results));
    let ranked = ranked(check);
    let measured = &ranked.measured;
    let labels: Vec<String> = measured.iter().map(|c| bar_label(c)).collect();
    let name_w = measured
        .iter()
        .map(|c| text_width(&c.name, FONT))
        .fold(0.0, f64::max)
        + 12.0;
    let label_w = labels
        .iter()
        .map(|l| text_width(l, FONT))
        .fold(0.0, f64::max)
        + 12.0;
    let notes: Vec<String> = ranked
        .unmeasured
        .iter()
        .map(|c| format!("{} — {}", c.name, details::why_unmeasured(c)))
        .chain(
            (!measured.is_empty())
                .then(|| "bars: median; whiskers: q1–q3; * significantly faster than default; ~ closer to default than the noise floor".to_string()),
        )
        .collect();

    let mut svg = Svg::new();
    svg.text(MARGIN, 22.0, "start", TITLE, &title);
    svg.text(MARGIN, 42.0, "start", SMALL, &subtitle);
    let top = 60.0;
    let left = MARGIN + name_w;
    let mut bottom = top;
    if !measured.is_empty() {
        let largest = measured
            .iter()
            .map(|c| c.q3_s.or(c.median_s).unwrap_or(0.0))
            .fold(0.0, f64::max);
        let (unit_name, per_second) = unit(largest);
        let largest = (largest * per_second).max(f64::MIN_POSITIVE);
        let step = tick_step(largest);
        let axis_max = (largest / step).ceil() * step;
        let x = |seconds: f64| left + (seconds * per_second / axis_max).clamp(0.0, 1.0) * PLOT_W;
        let plot_h = measured.len() as f64 * ROW_H;
        bottom = top + plot_h;
        let ticks = (axis_max / step).round() as usize;
        for t in 0..=ticks {
            let value = t as f64 * step;
            let tx = left + value / axis_max * PLOT_W;
            svg.line((tx, top), (tx, bottom), "#e0e0e0", 1.0);
            svg.text(tx, bottom + 12.0, "middle", SMALL, &tick_label(value));
        }
        svg.text(
            left + PLOT_W / 2.0,
            bottom + 30.0,
            "middle",
            PLAIN,
            &format!("median time [{unit_name}]"),
        );
        for (i, (candidate, label)) in measured.iter().zip(&labels).enumerate() {
            let mid = top + (i as f64 + 0.5) * ROW_H;
            let is_default = candidate.name == DEFAULT;
            let style = if is_default { BOLD } else { PLAIN };
            svg.text(left - 8.0, mid, "end", style, &candidate.name);
            let median = candidate.median_s.unwrap_or(0.0);
            svg.rect(
                left,
                mid - BAR_H / 2.0,
                x(median) - left,
                BAR_H,
                bar_fill(candidate),
            );
            let mut end = x(median);
            if let (Some(q1), Some(q3)) = (candidate.q1_s, candidate.q3_s) {
                let (x1, x3) = (x(q1), x(q3));
                svg.line((x1, mid), (x3, mid), "#212121", 1.5);
                for cap in [x1, x3] {
                    svg.line((cap, mid - 5.0), (cap, mid + 5.0), "#212121", 1.5);
                }
                end = end.max(x3);
            }
            svg.text(end + 6.0, mid, "start", style, label);
        }
        svg.line((left, top), (left, bottom), "#212121", 1.0);
        svg.line((left, bottom), (left + PLOT_W, bottom), "#212121", 1.0);
        bottom += 44.0;
    }
    for (i, note) in notes.iter().enumerate() {
        svg.text(MARGIN, bottom + 8.0 + i as f64 * 18.0, "start", SMALL, note);
    }
    bottom += notes.len() as f64 * 18.0;
    let width = [
        left + PLOT_W + label_w,
        MARGIN + text_width(&title, TITLE.size),
        MARGIN + text_width(&subtitle, SMALL.size),
    ]
    .into_iter()
    .chain(notes.iter().map(|n| MARGIN + text_width(n, SMALL.size)))
    .fold(0.0, f64::max)
        + MARGIN;
    svg.finish(width, bottom + MARGIN, &title)
}

/// Ticks at round values inside [`low`, `high`] (in the unit), with as
/// many decimals as the step needs.
fn ticks_within(low: f64, high: f64) -> Vec<(f64, String)> {
    let span = high - low;
    if span.is_nan() || span <= 0.0 {
        return Vec::new();
    }
    let step = tick_step(span);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let value = k as f64 * step;
            (value, format!("{value:.decimals$}"))
        })
        .collect()
}

/// Per check, one panel per candidate with a usual time: its times' histogram
/// (bars), the fitted model's expected counts (line), t_max (dashed) and
/// the plain q_max quantile (dotted). None when no candidate has one.
fn usual_svg(results: &Results, check: &Verdict) -> Option<String> {
    const PANEL_W: f64 = 320.0;
    const PANEL_H: f64 = 190.0;
    const PLOT_W: f64 = 270.0;
    const PLOT_H: f64 = 110.0;
    const COLUMNS: usize = 3;
    let ranked = ranked(check);
    let panels: Vec<&CandidateSummary> = ranked
        .measured
        .iter()
        .copied()
        .filter(|c| c.usual.is_some())
        .collect();
    if panels.is_empty() {
        return None;
    }
    let title = format!("Usual times: {}", details::title(check));
    let subtitle = format!(
        "Kluge et al. (2005): t = t_min + error; t_max = t_min + the fitted error's {} quantile · {}",
        results.meta.qmax,
        run_line(results)
    );
    let legend = "bars: times per bin of whole windows; line: the fitted model's expected counts; red dashed: t_max; grey dotted: the plain q_max quantile";
    let mut svg = Svg::new();
    svg.text(MARGIN, 22.0, "start", TITLE, &title);
    svg.text(MARGIN, 42.0, "start", SMALL, &subtitle);
    let top = 56.0;
    let small = TextStyle {
        size: 10.0,
        ..SMALL
    };
    for (i, candidate) in panels.iter().enumerate() {
        let usual = candidate.usual.as_ref().expect("filtered");
        let (fit, h) = (&usual.fit, &usual.histogram);
        let x0 = MARGIN + (i % COLUMNS) as f64 * PANEL_W;
        let y0 = top + (i / COLUMNS) as f64 * PANEL_H;
        let style = if candidate.name == DEFAULT {
            BOLD
        } else {
            PLAIN
        };
        svg.text(x0, y0 + 8.0, "start", style, &candidate.name);
        svg.text(
            x0,
            y0 + 24.0,
            "start",
            small,
            &format!(
                "{} · fit p {} · t_max {} · overhead {:.1} %",
                details::model_name(fit.model),
                fit.fit_p.map_or("-".into(), |p| format!("{p:.2}")),
                seconds(fit.tmax_s),
                100.0 * fit.overhead_share
            ),
        );
        let (left, plot_top) = (x0 + 30.0, y0 + 36.0);
        let bottom = plot_top + PLOT_H;
        let (Some(&low), Some(&high)) = (h.edges_s.first(), h.edges_s.last()) else {
            continue;
        };
        let (unit_name, per_second) = unit(high);
        let span = (high - low).max(f64::MIN_POSITIVE);
        let x = |t: f64| left + ((t - low) / span).clamp(0.0, 1.0) * PLOT_W;
        let most = h
            .counts
            .iter()
            .map(|&c| c as f64)
            .chain(h.expected.iter().copied())
            .fold(1.0, f64::max);
        let y = |count: f64| bottom - (count / most).clamp(0.0, 1.0) * PLOT_H;
        let fill = if candidate.name == DEFAULT {
            "#78909c"
        } else {
            "#90caf9"
        };
        for (k, &count) in h.counts.iter().enumerate() {
            let (a, b) = (x(h.edges_s[k]), x(h.edges_s[k + 1]));
            svg.rect(
                a + 0.5,
                y(count as f64),
                b - a - 1.0,
                bottom - y(count as f64),
                fill,
            );
        }
        let points: Vec<(f64, f64)> = h
            .expected
            .iter()
            .enumerate()
            .map(|(k, &e)| (0.5 * (x(h.edges_s[k]) + x(h.edges_s[k + 1])), y(e)))
            .collect();
        svg.polyline(&points, "#d84315");
        if fit.empirical_tmax_s <= high {
            let q = x(fit.empirical_tmax_s);
            svg.dashed((q, plot_top), (q, bottom), "#757575", "2,2");
        }
        let t = x(fit.tmax_s);
        svg.dashed((t, plot_top), (t, bottom), "#b71c1c", "5,3");
        svg.text(t + 3.0, plot_top + 4.0, "start", small, "t_max");
        svg.line((left, plot_top), (left, bottom), "#212121", 1.0);
        svg.line((left, bottom), (left + PLOT_W, bottom), "#212121", 1.0);
        svg.text(left - 4.0, plot_top, "end", small, &format!("{most:.0}"));
        svg.text(left - 4.0, bottom, "end", small, "0");
        for (value, label) in ticks_within(low * per_second, high * per_second) {
            let tx = x(value / per_second);
            svg.line((tx, bottom), (tx, bottom + 3.0), "#212121", 1.0);
            svg.text(tx, bottom + 10.0, "middle", small, &label);
        }
        let beyond = match h.beyond {
            0 => String::new(),
            n => format!(" · {n} beyond (model {:.1})", h.expected_beyond),
        };
        svg.text(
            left + PLOT_W / 2.0,
            bottom + 24.0,
            "middle",
            small,
            &format!(
                "time [{unit_name}], window {}{beyond}",
                details::fine_seconds(fit.window_s)
            ),
        );
    }
    let rows = panels.len().div_ceil(COLUMNS);
    let legend_y = top + rows as f64 * PANEL_H + 4.0;
    svg.text(MARGIN, legend_y, "start", SMALL, legend);
    let width = [
        MARGIN + panels.len().min(COLUMNS) as f64 * PANEL_W,
        MARGIN + text_width(&title, TITLE.size),
        MARGIN + text_width(&subtitle, SMALL.size),
        MARGIN + text_width(legend, SMALL.size),
    ]
    .into_iter()
    .fold(0.0, f64::max)
        + MARGIN;
    Some(svg.finish(width, legend_y + MARGIN, &title))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    /// Every text of a well-formed SVG document, joined by newlines.
    fn texts((name, xml): &(String, String)) -> String {
        let document = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(document.root_element().tag_name().name(), "svg");
        document
            .descendants()
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn file_names(files: &[(String, String)]) -> Vec<&str> {
        files.iter().map(|(name, _)| name.as_str()).collect()
    }

    /// The files of the fixture's run: the overview, then each check's.
    const CHECK_FILES: [&str; 5] = [
        "overview.svg",
        "check-allreduce-8B.svg",
        "check-allreduce-8192B.svg",
        "check-bcast-8B-root2.svg",
        "check-scatter-1048576B-root0.svg",
    ];

    #[test]
    fn writes_well_formed_plots_naming_every_candidate() {
        let results = fixture::results();
        let paths = render_all(&results);
        assert_eq!(file_names(&paths), CHECK_FILES);
        let overview = texts(&paths[0]);
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
        for (path, check) in paths[1..].iter().zip(&results.checks) {
            let text = texts(path);
            for candidate in &check.candidates {
                assert!(
                    text.contains(&candidate.name),
                    "{} missing in {}",
                    candidate.name,
                    path.0
                );
            }
        }
        let bcast = texts(&paths[3]);
        assert!(
            bcast.contains("6.00× faster *") && bcast.contains("[µs]"),
            "{bcast}"
        );
        let allreduce = texts(&paths[2]);
        assert!(allreduce.contains("wrong: rank 3: element 17 is 4, expected 5"));
        assert!(allreduce.contains("1.20× slower"));
        assert!(texts(&paths[1]).contains("10.20 µs · 1.02× slower ~"));
        assert!(texts(&paths[4]).contains("no verdict: default not measured"));
    }

    #[test]
    fn checks_differing_in_datatype_keep_their_own_file() {
        let mut results = fixture::results();
        let mut other = results.checks[0].clone();
        other.key.datatype = crate::element::Datatype::Int32;
        results.checks.push(other.clone());
        results.checks.push(other);
        let paths = render_all(&results);
        let names: Vec<&str> = paths[5..].iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(
            names,
            [
                "check-allreduce-8B-int32-bor.svg",
                "check-allreduce-8B-int32-bor-2.svg"
            ]
        );
    }

    #[test]
    fn axis_ticks_are_round() {
        assert_eq!(tick_step(600.0 * 1.1), 200.0);
        assert_eq!(tick_step(12.0), 5.0);
        assert_eq!(tick_step(0.9), 0.2);
        assert_eq!(tick_label(0.2 * 3.0), "0.6");
        assert_eq!(tick_label(400.0), "400");
        assert_eq!(unit(5e-4), ("µs", 1e6));
        assert_eq!(unit(0.02), ("ms", 1e3));
    }

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b>&\"c'\u{7}\n"), "a&lt;b&gt;&amp;&quot;c&apos; ");
    }

    #[test]
    fn usual_time_panels_per_check() {
        let results = fixture::results_with_usual();
        let paths = render_all(&results);
        // Each check with usual times gets its panels right after its plot
        // (the scatter check's default was never measured: none there).
        let names = file_names(&paths);
        let checks: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| !n.starts_with("usual-"))
            .collect();
        assert_eq!(checks, CHECK_FILES);
        for (i, name) in names
            .iter()
            .enumerate()
            .filter(|(_, n)| n.starts_with("usual-"))
        {
            assert_eq!(names[i - 1], name.replace("usual-", "check-"));
        }
        assert_eq!(names.len(), CHECK_FILES.len() + 3);
        let usual = texts(&paths[4]);
        assert!(
            usual.contains("Usual times: MPI_Allreduce, 8 KiB"),
            "{usual}"
        );
        for candidate in [
            "default",
            "allreduce_as_reduce_bcast",
            "allreduce_as_reducescatter_allgather",
        ] {
            assert!(usual.contains(candidate), "{candidate} missing in {usual}");
        }
        assert!(!usual.contains("allreduce_as_allreduce_lane"));

        let document = roxmltree::Document::parse(&paths[4].1).unwrap();
        let bars = document
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .count();
        let histograms: usize = results.checks[1]
            .candidates
            .iter()
            .filter_map(|c| c.usual.as_ref())
            .map(|u| u.histogram.counts.len())
            .sum();
        assert_eq!(bars, histograms + 1, "a bar per bin, and the background");
        let labels = document
            .descendants()
            .filter(|n| n.has_tag_name("text") && n.text() == Some("t_max"))
            .count();
        assert_eq!(labels, 3, "t_max marked in every panel");
        assert_eq!(
            document
                .descendants()
                .filter(|n| n.has_tag_name("polyline"))
                .count(),
            3
        );
        assert!(render_all(&fixture::results())
            .iter()
            .all(|(n, _)| !n.starts_with("usual-")));
    }

    #[test]
    fn ticks_inside_a_narrow_range_keep_their_decimals() {
        let ticks = ticks_within(10.0, 10.01);
        assert!(ticks.len() >= 3, "{ticks:?}");
        assert_eq!(ticks[0].1, "10.000");
        assert!(ticks_within(5.0, 5.0).is_empty());
        assert_eq!(
            ticks_within(0.0, 100.0)
                .iter()
                .map(|t| t.1.as_str())
                .collect::<Vec<_>>(),
            ["0", "20", "40", "60", "80", "100"]
        );
    }
}
