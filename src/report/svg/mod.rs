//! Plots as SVG files, one file here per kind of plot: the overview grid
//! with each cell's slowdown (MPINPC's Figure 3, `overview.rs`), median
//! time against size per collective (`latency.rs`), per check the
//! candidates' slowdowns on a ratio axis around 1 (its Figure 5,
//! `case.rs`), each round's median against the round (`rounds.rs`) and
//! the histograms of the candidates' times with their fitted usual-time
//! models (Kluge et al. 2005, `usual.rs`). Written by hand: no fonts, no
//! system libraries, text stays text. Axes and ticks are in `axis.rs`.

mod axis;
mod case;
mod latency;
mod overview;
mod rounds;
mod usual;

use super::model::{node_layout, Mark};
use crate::analyse::Results;
use crate::analyse::{Severity, Verdict};
use crate::candidates::native::DEFAULT;
use std::collections::HashSet;
use std::fmt::Write as _;

/// `overview.svg`, one `latency-<collective>.svg` per collective with a
/// measured candidate, then per check `check-<collective>-<size>B[-root<r>].svg`
/// and beside it `rounds-…` when a candidate has per-round medians and
/// `usual-…` when one has a usual time, as (file name, SVG text).
pub fn render_all(results: &Results) -> impl Iterator<Item = (String, String)> + '_ {
    let overview = (!results.checks.is_empty())
        .then(|| ("overview.svg".to_string(), overview::render(results)));
    let mut used = HashSet::new();
    // One check's files at a time: at 1,000 checks all of them at once
    // were 10 MB more in rank 0's memory at the end of the run.
    let checks = results.checks.iter().flat_map(move |check| {
        let stem = unique_stem(check, &mut used);
        let name = stem.strip_prefix("check-").unwrap_or(&stem).to_string();
        let rounds = rounds::render(results, check).map(|svg| (format!("rounds-{name}.svg"), svg));
        let usual = usual::render(results, check).map(|svg| (format!("usual-{name}.svg"), svg));
        std::iter::once((format!("{stem}.svg"), case::render(results, check)))
            .chain(rounds)
            .chain(usual)
    });
    overview
        .into_iter()
        .chain(latency::render_all(results))
        .chain(checks)
}

/// `check-bcast-8B-root0`; checks that differ only in datatype or operator
/// get those appended, so that none overwrites another.
fn unique_stem(check: &Verdict, used: &mut HashSet<String>) -> String {
    let key = &check.key;
    let mut stem = format!("check-{}-{}B", key.operation.name(), key.size_bytes);
    if key.operation.is_rooted() {
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
/// The smallest text drawn: below 12 px a new reader found the plots hard
/// to read (issue 38); [`Svg::text`] raises any smaller size to it.
pub(crate) const MIN_FONT: f64 = 12.0;
pub(crate) const MARGIN: f64 = 16.0;

/// Width of `s` in pixels at `size`: an estimate, as nothing measures fonts here.
pub(crate) fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size * 0.6
}

/// `text` broken at spaces into lines about `width` pixels wide at `size`.
pub(crate) fn wrapped(text: &str, width: f64, size: f64) -> Vec<String> {
    let columns = (width / text_width("m", size)).floor().max(1.0) as usize;
    (crate::report::text::wrap(text, columns, "").lines())
        .map(str::to_string)
        .collect()
}

/// How a line is drawn: colour, width, and a dash pattern (`"5,3"`) or none.
#[derive(Clone, Copy)]
pub(crate) struct Pen {
    pub(crate) stroke: &'static str,
    pub(crate) width: f64,
    pub(crate) dash: Option<&'static str>,
}

impl Pen {
    /// A solid line.
    pub(crate) fn solid(stroke: &'static str, width: f64) -> Pen {
        Pen {
            stroke,
            width,
            dash: None,
        }
    }

    /// The SVG attributes of the pen.
    fn attributes(self) -> String {
        let dash = self
            .dash
            .map_or(String::new(), |d| format!(r#" stroke-dasharray="{d}""#));
        format!(
            r#"stroke="{}" stroke-width="{}"{dash}"#,
            self.stroke, self.width
        )
    }
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
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" stroke="{stroke}" stroke-width="1.5"/>"#,
            point_list(points)
        );
    }

    /// A line through `points` drawn with `pen`, with `title` as its
    /// tooltip (what a viewer shows on hovering).
    pub(crate) fn series(&mut self, points: &[(f64, f64)], pen: Pen, title: &str) {
        let _ = writeln!(
            self.body,
            r#"<polyline points="{}" fill="none" {} stroke-linejoin="round"><title>{}</title></polyline>"#,
            point_list(points),
            pen.attributes(),
            escape(title)
        );
    }

    /// A filled, translucent area bounded by `points`.
    pub(crate) fn area(&mut self, points: &[(f64, f64)], fill: &str, opacity: f64) {
        let _ = writeln!(
            self.body,
            r#"<polygon points="{}" fill="{fill}" fill-opacity="{opacity}" stroke="none"/>"#,
            point_list(points)
        );
    }

    pub(crate) fn circle(&mut self, (x, y): (f64, f64), r: f64, fill: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}"/>"#
        );
    }

    /// An open ring around a point, with `title` as its tooltip: a marked
    /// point (a violation).
    pub(crate) fn ring(&mut self, (x, y): (f64, f64), r: f64, stroke: &str, title: &str) {
        let _ = writeln!(
            self.body,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="none" stroke="{stroke}" stroke-width="2.5"><title>{}</title></circle>"#,
            escape(title)
        );
    }

    /// Text whose baseline sits a third of the font size under `y`, so that
    /// `y` is its visual middle. `anchor`: start, middle or end.
    pub(crate) fn text(&mut self, x: f64, y: f64, anchor: &str, style: TextStyle, content: &str) {
        self.turned_text((x, y), 0.0, anchor, style, content);
    }

    /// Text as [`Svg::text`], turned by `degrees` (clockwise) around (`x`, `y`).
    pub(crate) fn turned_text(
        &mut self,
        (x, y): (f64, f64),
        degrees: f64,
        anchor: &str,
        style: TextStyle,
        content: &str,
    ) {
        let TextStyle { size, bold, fill } = style;
        let size = size.max(MIN_FONT);
        let weight = if bold { r#" font-weight="bold""# } else { "" };
        let turn = match degrees != 0.0 {
            true => format!(r#" transform="rotate({degrees} {x:.1} {y:.1})""#),
            false => String::new(),
        };
        let _ = writeln!(
            self.body,
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="{anchor}" font-size="{size}" fill="{fill}"{weight}{turn}>{}</text>"#,
            y + size / 3.0,
            escape(content)
        );
    }

    /// A plot's title and the line under it, at the top left.
    pub(crate) fn heading(&mut self, title: &str, subtitle: &str) {
        self.text(MARGIN, 22.0, "start", TITLE, title);
        self.text(MARGIN, 42.0, "start", SMALL, subtitle);
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

/// The width of a document whose parts reach `rights`: the farthest, and a margin.
pub(crate) fn page_width(rights: impl IntoIterator<Item = f64>) -> f64 {
    rights.into_iter().fold(0.0, f64::max) + MARGIN
}

/// `x,y x,y …` with one decimal.
fn point_list(points: &[(f64, f64)]) -> String {
    points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
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
/// Subtitles, keys, tick labels and panel captions.
pub(crate) const SMALL: TextStyle = TextStyle {
    size: MIN_FONT,
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

/// `default`'s line colour in every plot of lines.
const DEFAULT_COLOUR: &str = "#212121";
/// The competitors' line colours, in turn (Okabe–Ito's, which stay apart
/// for colour-blind readers, then darker tones).
const PALETTE: [&str; 10] = [
    "#0072b2", "#e69f00", "#009e73", "#cc79a7", "#d55e00", "#56b4e9", "#8c6d31", "#6a3d9a",
    "#b15928", "#1b9e77",
];

/// The colour of each of `names` in a plot of lines: `default` black, the
/// others the palette's in turn.
fn line_colours<'a>(names: &[&'a str]) -> Vec<(&'a str, &'static str)> {
    let mut next = 0;
    names
        .iter()
        .map(|&name| {
            let colour = match name == DEFAULT {
                true => DEFAULT_COLOUR,
                false => {
                    next += 1;
                    PALETTE[(next - 1) % PALETTE.len()]
                }
            };
            (name, colour)
        })
        .collect()
}

/// A legend of coloured lines, one row per name from (`x`, `y`) down;
/// returns its width.
fn line_legend(svg: &mut Svg, x: f64, y: f64, entries: &[(&str, &'static str)]) -> f64 {
    for (i, (name, colour)) in entries.iter().enumerate() {
        let row = y + i as f64 * 18.0;
        let width = if *name == DEFAULT { 3.0 } else { 2.0 };
        svg.line((x, row), (x + 22.0, row), colour, width);
        let style = if *name == DEFAULT { BOLD } else { PLAIN };
        svg.text(x + 28.0, row, "start", style, name);
    }
    entries
        .iter()
        .map(|(name, _)| 28.0 + text_width(name, FONT))
        .fold(0.0, f64::max)
}

/// The end of a line plot whose area ends at `right` and `bottom`: the
/// legend of `lines` beside it from `top`, `key` under the x axis, and
/// the document sized to hold them and the `title` and `subtitle` lines.
fn finish_line_plot(
    mut svg: Svg,
    (right, top, bottom): (f64, f64, f64),
    lines: &[(&str, &'static str)],
    key: &str,
    title: &str,
    subtitle: &str,
) -> String {
    let legend_x = right + 24.0;
    let legend_w = line_legend(&mut svg, legend_x, top + 8.0, lines);
    svg.text(MARGIN, bottom + 54.0, "start", SMALL, key);
    let legend_bottom = top + 8.0 + lines.len() as f64 * 18.0;
    let height = (bottom + 54.0).max(legend_bottom) + MARGIN;
    let width = [
        legend_x + legend_w,
        MARGIN + text_width(title, TITLE.size),
        MARGIN + text_width(subtitle, SMALL.size),
        MARGIN + text_width(key, SMALL.size),
    ]
    .into_iter()
    .fold(0.0, f64::max)
        + MARGIN;
    svg.finish(width, height, title)
}

/// Library and process layout, the subtitle of every plot.
fn run_line(results: &Results) -> String {
    let meta = &results.meta;
    let mut line = format!(
        "{} · {} processes = {}",
        meta.mpi_library.lines().next().unwrap_or("MPI"),
        meta.processes,
        node_layout(meta.nodes, meta.ppn)
    );
    if !results.complete {
        line += " · incomplete run";
    }
    line
}

/// What the plots' tests share: parsing and reading the documents.
#[cfg(test)]
pub(crate) mod testing {
    /// Every text of a well-formed SVG document, joined by newlines.
    pub fn texts((name, xml): &(String, String)) -> String {
        let document = roxmltree::Document::parse(xml).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(document.root_element().tag_name().name(), "svg");
        document
            .descendants()
            .filter_map(|n| n.text())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The elements named `tag` of a well-formed document.
    pub fn count(xml: &str, tag: &str) -> usize {
        let document = roxmltree::Document::parse(xml).expect("well-formed");
        document
            .descendants()
            .filter(|n| n.has_tag_name(tag))
            .count()
    }

    /// The tooltips (`<title>` children) of the elements named `tag`.
    pub fn tooltips(xml: &str, tag: &str) -> Vec<String> {
        let document = roxmltree::Document::parse(xml).expect("well-formed");
        document
            .descendants()
            .filter(|n| n.has_tag_name(tag))
            .filter_map(|n| n.children().find(|c| c.has_tag_name("title")))
            .filter_map(|t| t.text().map(str::to_string))
            .collect()
    }

    /// The texts of the `<text>` elements, each once per element.
    pub fn labels(xml: &str) -> Vec<String> {
        let document = roxmltree::Document::parse(xml).expect("well-formed");
        document
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .filter_map(|n| n.text().map(str::to_string))
            .collect()
    }

    /// The `points` of the elements named `tag` (polylines, polygons), as (x, y).
    pub fn points(xml: &str, tag: &str) -> Vec<Vec<(f64, f64)>> {
        let document = roxmltree::Document::parse(xml).expect("well-formed");
        let parse = |p: &str| {
            let (x, y) = p.split_once(',').expect("x,y");
            (x.parse().expect("x"), y.parse().expect("y"))
        };
        (document.descendants())
            .filter(|n| n.has_tag_name(tag))
            .map(|n| {
                n.attribute("points")
                    .unwrap_or("")
                    .split(' ')
                    .map(parse)
                    .collect()
            })
            .collect()
    }

    pub fn file_names(files: &[(String, String)]) -> Vec<&str> {
        files.iter().map(|(name, _)| name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;
    use crate::report::fixture;

    #[test]
    fn writes_the_overview_latency_then_each_check_s_files() {
        let results = fixture::results();
        let files: Vec<_> = render_all(&results).collect();
        assert_eq!(
            file_names(&files),
            [
                "overview.svg",
                "latency-allreduce.svg",
                "latency-bcast.svg",
                "check-allreduce-8B.svg",
                "check-allreduce-8192B.svg",
                "check-bcast-8B-root2.svg",
                "check-scatter-1048576B-root0.svg",
            ],
            "no round medians nor usual times in the plain fixture"
        );
        for file in &files {
            texts(file);
        }
        // Each `prefix` file follows its check's, one per check with a
        // measured candidate.
        for (results, prefix) in [
            (fixture::results_with_rounds(), "rounds-"),
            (fixture::results_with_usual(), "usual-"),
        ] {
            let files: Vec<_> = render_all(&results).collect();
            let names = file_names(&files);
            for (i, name) in names.iter().enumerate() {
                if name.starts_with(prefix) {
                    assert_eq!(names[i - 1], name.replace(prefix, "check-"));
                }
            }
            assert_eq!(
                names.iter().filter(|n| n.starts_with(prefix)).count(),
                3,
                "every check with a measured candidate: {names:?}"
            );
        }
    }

    #[test]
    fn checks_differing_in_datatype_keep_their_own_file() {
        let mut results = fixture::results();
        let mut other = results.checks[0].clone();
        other.key.datatype = crate::element::Datatype::Int32;
        results.checks.push(other.clone());
        results.checks.push(other);
        let names: Vec<String> = render_all(&results)
            .map(|(name, _)| name)
            .filter(|name| name.starts_with("check-allreduce-8B"))
            .collect();
        assert_eq!(
            names,
            [
                "check-allreduce-8B.svg",
                "check-allreduce-8B-int32-bor.svg",
                "check-allreduce-8B-int32-bor-2.svg"
            ]
        );
    }

    /// No text of any plot, in any fixture, under MIN_FONT (12 px).
    #[test]
    fn every_text_is_at_least_the_smallest_font() {
        for results in [
            fixture::results_with_rounds(),
            fixture::results_with_usual(),
        ] {
            for (name, xml) in render_all(&results) {
                let document = roxmltree::Document::parse(&xml).unwrap();
                let sizes: Vec<f64> = (document.descendants())
                    .filter(|n| n.has_tag_name("text"))
                    .map(|n| n.attribute("font-size").unwrap().parse().unwrap())
                    .collect();
                assert!(!sizes.is_empty(), "{name}");
                assert!(sizes.iter().all(|s| *s >= MIN_FONT), "{name}: {sizes:?}");
            }
        }
    }

    #[test]
    fn escapes_markup_and_drops_control_characters() {
        assert_eq!(escape("a<b>&\"c'\u{7}\n"), "a&lt;b&gt;&amp;&quot;c&apos; ");
    }

    #[test]
    fn default_is_black_and_competitors_take_the_palette_in_turn() {
        let colours = line_colours(&["a", DEFAULT, "b"]);
        assert_eq!(
            colours,
            [
                ("a", PALETTE[0]),
                (DEFAULT, DEFAULT_COLOUR),
                ("b", PALETTE[1])
            ]
        );
    }
}
