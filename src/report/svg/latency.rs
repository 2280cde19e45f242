//! `latency-<collective>.svg`: median time against size on log–log axes,
//! what OSU and ReproMPI users plot first. One line per candidate with
//! its interquartile band, and a ring, in the severity's colour, around
//! `default`'s point at each size where the guideline is violated.

use super::axis::log_time_ticks;
use super::{colours, finish_line_plot, line_colours, run_line, Pen, Svg};
use super::{text_width, MARGIN, PLAIN, SMALL};
use crate::analyse::{CandidateSummary, Conclusion, Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::report::model::{self, seconds, size_label, Mark};
use std::collections::HashSet;

const PLOT_W: f64 = 520.0;
const PLOT_H: f64 = 300.0;
/// Room left of the plot for the time ticks.
const AXIS_W: f64 = 64.0;
/// The fewest pixels between two size labels side by side.
const LABEL_GAP: f64 = 6.0;
/// Rows of a staggered label apart.
const ROW_STEP: f64 = 16.0;

/// The checks one line plot covers: a collective at one root, datatype
/// and operator, across its sizes.
struct Series<'a> {
    stem: String,
    title: String,
    checks: Vec<&'a Verdict>,
}

/// One `latency-….svg` per series with a measured candidate, as (file
/// name, SVG text), in `Operation::all` order.
pub(super) fn render_all(results: &Results) -> Vec<(String, String)> {
    series(results)
        .into_iter()
        .filter_map(|s| render(results, &s).map(|svg| (format!("{}.svg", s.stem), svg)))
        .collect()
}

/// The run's series: `latency-bcast`, and where a collective has several,
/// `-root<r>` where their roots differ and `-<datatype>-<op>` where those do.
fn series(results: &Results) -> Vec<Series<'_>> {
    let mut all = Vec::new();
    for (collective, checks) in crate::report::model::by_operation(results) {
        let root = |c: &Verdict| collective.is_rooted().then_some(c.key.root);
        let identity = |c: &Verdict| (root(c), c.key.datatype, c.key.op);
        let mut identities: Vec<_> = Vec::new();
        for c in &checks {
            if !identities.contains(&identity(c)) {
                identities.push(identity(c));
            }
        }
        let roots: HashSet<_> = identities.iter().map(|i| i.0).collect();
        let elements: HashSet<_> = identities.iter().map(|i| (i.1, i.2)).collect();
        for id @ (r, datatype, op) in identities.iter().copied() {
            let mut stem = format!("latency-{}", collective.name());
            let mut title = format!("{}: median time against size", collective.mpi_name());
            if let Some(r) = r {
                title += &format!(", root {r}");
                if roots.len() > 1 {
                    stem += &format!("-root{r}");
                }
            }
            if elements.len() > 1 {
                stem += &format!("-{}-{}", datatype.name(), op.name());
                title += &format!(", {}", datatype.name());
                if collective.is_reduction() {
                    title += &format!(" {}", op.name());
                }
            }
            let mut checks: Vec<&Verdict> = checks
                .iter()
                .copied()
                .filter(|c| identity(c) == id)
                .collect();
            checks.sort_by_key(|c| c.key.size_bytes);
            all.push(Series {
                stem,
                title,
                checks,
            });
        }
    }
    all
}

/// A candidate's median and quartiles at one size.
struct Point {
    size: u64,
    median: f64,
    q1: f64,
    q3: f64,
}

fn point(size: u64, c: &CandidateSummary) -> Option<Point> {
    let median = model::median(c).filter(|m| *m > 0.0)?;
    Some(Point {
        size,
        median,
        q1: c.q1_s.filter(|q| *q > 0.0).unwrap_or(median),
        q3: c.q3_s.filter(|q| *q > 0.0).unwrap_or(median),
    })
}

fn render(results: &Results, series: &Series) -> Option<String> {
    let lines = lines_of(series);
    if lines.is_empty() {
        return None;
    }
    let subtitle = run_line(results);
    let key = "lines: median; bands: q1–q3; rings: default violates the guideline there (colour: severity)";
    let sizes: Vec<u64> = series.checks.iter().map(|c| c.key.size_bytes).collect();
    let frame = Frame::of(&sizes, &lines);
    let mut svg = Svg::new();
    svg.heading(&series.title, &subtitle);
    let per_process = series
        .checks
        .first()
        .is_some_and(|c| c.key.operation.size_is_per_process());
    let below = axes(&mut svg, &frame, &sizes, per_process);
    let colours_of = line_colours(&lines.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    for ((name, points), (_, colour)) in lines.iter().zip(&colours_of) {
        line(&mut svg, &frame, name, points, colour);
    }
    // The rings last, so that no line covers them.
    for check in &series.checks {
        violation_ring(&mut svg, &frame, check);
    }
    Some(finish_line_plot(
        svg,
        (frame.left + PLOT_W, frame.top, frame.bottom + below),
        &colours_of,
        key,
        &series.title,
        &subtitle,
    ))
}

/// Each candidate's points across the series' sizes, in the order the
/// candidates first appear, `default` first; none without a point.
fn lines_of<'a>(series: &Series<'a>) -> Vec<(&'a str, Vec<Point>)> {
    let mut names: Vec<&str> = vec![DEFAULT];
    for check in &series.checks {
        for c in &check.candidates {
            if model::median(c).is_some() && !names.contains(&c.name.as_str()) {
                names.push(&c.name);
            }
        }
    }
    names
        .iter()
        .map(|&name| {
            let points = series
                .checks
                .iter()
                .filter_map(|check| {
                    let c = check.candidates.iter().find(|c| c.name == name)?;
                    point(check.key.size_bytes, c)
                })
                .collect();
            (name, points)
        })
        .filter(|(_, points): &(&str, Vec<Point>)| !points.is_empty())
        .collect()
}

/// The plot's place and its log–log ranges (natural logarithms of bytes
/// across, of seconds up).
struct Frame {
    left: f64,
    top: f64,
    bottom: f64,
    x_low: f64,
    x_high: f64,
    y_low: f64,
    y_high: f64,
}

impl Frame {
    /// Ranges holding every size and every quartile, padded.
    fn of(sizes: &[u64], lines: &[(&str, Vec<Point>)]) -> Frame {
        let (smallest, largest) = (sizes[0] as f64, sizes[sizes.len() - 1] as f64);
        // Half a step of padding either side; a factor 2 round a single size.
        let pad = match largest > smallest {
            true => ((largest / smallest).ln() * 0.06).exp(),
            false => 2.0,
        };
        let (fastest, slowest) = lines
            .iter()
            .flat_map(|(_, points)| points.iter().flat_map(|p| [p.q1, p.q3]))
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
                (lo.min(t), hi.max(t))
            });
        let y_pad = match slowest > fastest {
            true => ((slowest / fastest).ln() * 0.08).exp(),
            false => 1.5,
        };
        let top = 80.0;
        Frame {
            left: MARGIN + AXIS_W,
            top,
            bottom: top + PLOT_H,
            x_low: (smallest / pad).ln(),
            x_high: (largest * pad).ln(),
            y_low: (fastest / y_pad).ln(),
            y_high: (slowest * y_pad).ln(),
        }
    }

    fn x(&self, size: f64) -> f64 {
        self.left + (size.ln() - self.x_low) / (self.x_high - self.x_low) * PLOT_W
    }

    fn y(&self, s: f64) -> f64 {
        self.bottom - (s.ln() - self.y_low) / (self.y_high - self.y_low) * PLOT_H
    }
}

/// Time ticks with grid lines, a labelled size tick with its grid line
/// at every size, the axes and their titles; returns how much further
/// down than one row of labels the size labels reach.
fn axes(svg: &mut Svg, frame: &Frame, sizes: &[u64], per_process: bool) -> f64 {
    let (left, top, bottom) = (frame.left, frame.top, frame.bottom);
    for (value, label) in log_time_ticks(frame.y_low.exp(), frame.y_high.exp()) {
        let ty = frame.y(value);
        svg.line((left, ty), (left + PLOT_W, ty), "#eeeeee", 1.0);
        svg.text(left - 6.0, ty, "end", SMALL, &label);
    }
    for &size in sizes {
        let tx = frame.x(size as f64);
        svg.line((tx, top), (tx, bottom), "#eeeeee", 1.0);
        svg.line((tx, bottom), (tx, bottom + 4.0), "#212121", 1.0);
    }
    let below = size_labels(svg, frame, sizes);
    svg.line((left, top), (left, bottom), "#212121", 1.0);
    svg.line((left, bottom), (left + PLOT_W, bottom), "#212121", 1.0);
    let x_title = match per_process {
        true => "message size per process (log scale)",
        false => "message size (log scale)",
    };
    let title_y = bottom + 32.0 + below;
    svg.text(left + PLOT_W / 2.0, title_y, "middle", PLAIN, x_title);
    let y_title = "median time (log scale)";
    svg.text(MARGIN, top - 16.0, "start", PLAIN, y_title);
    below
}

/// A label under every size, never one dropped: in a row where they fit,
/// in two staggered rows where every other one fits, else turned (45°,
/// or upright where even those would touch). Returns how much further
/// down than one row they reach.
fn size_labels(svg: &mut Svg, frame: &Frame, sizes: &[u64]) -> f64 {
    let labels: Vec<(f64, String)> = (sizes.iter())
        .map(|&size| (frame.x(size as f64), size_label(size)))
        .collect();
    let width = |label: &str| text_width(label, SMALL.size);
    let fit = |step: usize| {
        labels
            .iter()
            .zip(labels.iter().skip(step))
            .all(|(a, b)| b.0 - a.0 >= (width(&a.1) + width(&b.1)) / 2.0 + LABEL_GAP)
    };
    let y = frame.bottom + 14.0;
    if fit(1) || fit(2) {
        let rows = if fit(1) { 1 } else { 2 };
        for (i, (tx, label)) in labels.iter().enumerate() {
            let row = (i % rows) as f64 * ROW_STEP;
            svg.text(*tx, y + row, "middle", SMALL, label);
        }
        return (rows - 1) as f64 * ROW_STEP;
    }
    let closest = (labels.windows(2))
        .map(|w| w[1].0 - w[0].0)
        .fold(f64::INFINITY, f64::min);
    // Turned by 45°, neighbours are their distance ÷ √2 apart.
    let degrees: f64 = match closest / std::f64::consts::SQRT_2 >= SMALL.size + 2.0 {
        true => -45.0,
        false => -90.0,
    };
    for (tx, label) in &labels {
        svg.turned_text((*tx, y - 6.0), degrees, "end", SMALL, label);
    }
    let widest = labels.iter().map(|l| width(&l.1)).fold(0.0, f64::max);
    widest * (-degrees).to_radians().sin()
}

/// One candidate's interquartile band, its line of medians and a dot at each.
fn line(svg: &mut Svg, frame: &Frame, name: &str, points: &[Point], colour: &'static str) {
    let band: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (frame.x(p.size as f64), frame.y(p.q3)))
        .chain(
            points
                .iter()
                .rev()
                .map(|p| (frame.x(p.size as f64), frame.y(p.q1))),
        )
        .collect();
    svg.area(&band, colour, 0.12);
    let centres: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (frame.x(p.size as f64), frame.y(p.median)))
        .collect();
    let width = if name == DEFAULT { 2.5 } else { 1.5 };
    svg.series(&centres, Pen::solid(colour, width), name);
    for &centre in &centres {
        svg.circle(centre, 2.5, colour);
    }
}

/// A ring round `default`'s point where the check is violated.
fn violation_ring(svg: &mut Svg, frame: &Frame, check: &Verdict) {
    let default = check.default_candidate().and_then(model::median);
    let (Some(median), Conclusion::Violated) = (default, check.conclusion) else {
        return;
    };
    let (ring, _) = colours(Mark::of(check));
    let tooltip = format!(
        "violated at {}: default {}, {} {:.2}× faster ({})",
        size_label(check.key.size_bytes),
        seconds(median),
        check.violated_by.as_deref().unwrap_or("a competitor"),
        check.slowdown.unwrap_or(f64::NAN),
        check.severity.label()
    );
    let at = (frame.x(check.key.size_bytes as f64), frame.y(median));
    svg.ring(at, 7.0, ring, &tooltip);
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::report::fixture;

    #[test]
    fn one_line_per_candidate_and_a_ring_per_violation() {
        let results = fixture::results();
        let files = render_all(&results);
        assert_eq!(
            file_names(&files),
            ["latency-allreduce.svg", "latency-bcast.svg"],
            "scatter has no measured candidate"
        );
        let (_, allreduce) = &files[0];
        texts(&files[0]);
        // default and two competitors measured at both sizes; the wrong
        // and the skipped one have no point.
        assert_eq!(
            tooltips(allreduce, "polyline"),
            [
                "default",
                "allreduce_as_reduce_bcast",
                "allreduce_as_reducescatter_allgather"
            ]
        );
        assert_eq!(count(allreduce, "polygon"), 3, "a band per line");
        assert_bands_enclose_their_lines(allreduce);
        let rings = tooltips(allreduce, "circle");
        assert_eq!(
            rings,
            ["violated at 8 KiB: default 100.00 µs, allreduce_as_reducescatter_allgather 1.82× faster (medium-high)"],
            "the 8 B case holds"
        );
        let ticks = labels(allreduce);
        for tick in ["8 B", "8 KiB", "10 µs", "100 µs"] {
            assert!(ticks.contains(&tick.to_string()), "{tick} in {ticks:?}");
        }
        let (_, bcast) = &files[1];
        assert_eq!(count(bcast, "polyline"), 2);
        assert_eq!(tooltips(bcast, "circle").len(), 1);
        assert!(labels(bcast).contains(&"MPI_Bcast: median time against size, root 2".into()));
    }

    /// Each band, in the order of the lines, reaches above and below its
    /// line's point at every size: the quartiles around the median.
    fn assert_bands_enclose_their_lines(xml: &str) {
        for (band, line) in points(xml, "polygon").iter().zip(points(xml, "polyline")) {
            for (x, y) in line {
                let ys: Vec<f64> = (band.iter())
                    .filter(|p| (p.0 - x).abs() < 0.01)
                    .map(|p| p.1)
                    .collect();
                assert!(
                    ys.iter().any(|b| *b < y - 0.5) && ys.iter().any(|b| *b > y + 0.5),
                    "band {ys:?} around the median at ({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn several_roots_get_a_file_each() {
        let mut results = fixture::results();
        let mut other = results.checks[2].clone();
        other.key.root = 0;
        other.conclusion = Conclusion::Holds;
        results.checks.push(other);
        let files = render_all(&results);
        assert_eq!(
            file_names(&files),
            [
                "latency-allreduce.svg",
                "latency-bcast-root2.svg",
                "latency-bcast-root0.svg"
            ]
        );
        assert!(tooltips(&files[2].1, "circle").is_empty(), "root 0 holds");
    }

    /// allreduce at `sizes`, each a copy of the 8 KiB check (violated).
    fn at_sizes(sizes: &[u64]) -> String {
        let mut results = fixture::results();
        let template = results.checks[1].clone();
        results
            .checks
            .retain(|c| c.key.operation != template.key.operation);
        for &size in sizes {
            let mut check = template.clone();
            check.key.size_bytes = size;
            results.checks.push(check);
        }
        render_all(&results).remove(0).1
    }

    /// Every size measured has its label, and no two labels side by side
    /// overlap (turned ones are told apart by their turn).
    #[test]
    fn every_size_has_a_label_and_none_collide() {
        let dense: Vec<u64> = (0..=20).map(|k| 1u64 << k).collect();
        let sparse = [8, 2048, 8192, 32768, 1 << 20];
        let doubling: Vec<u64> = (3..=20).step_by(2).map(|k| 1u64 << k).collect();
        for sizes in [&sparse[..], &doubling, &dense] {
            let xml = at_sizes(sizes);
            let document = roxmltree::Document::parse(&xml).unwrap();
            let size_texts: Vec<roxmltree::Node> = (document.descendants())
                .filter(|n| n.has_tag_name("text"))
                .filter(|n| sizes.iter().any(|&s| n.text() == Some(&size_label(s))))
                .collect();
            let named: Vec<&str> = size_texts.iter().filter_map(|n| n.text()).collect();
            let expected: Vec<String> = sizes.iter().map(|&s| size_label(s)).collect();
            assert_eq!(named, expected, "a label per size, in order");
            let at =
                |n: &roxmltree::Node, a: &str| -> f64 { n.attribute(a).unwrap().parse().unwrap() };
            for (a, b) in size_texts.iter().zip(size_texts.iter().skip(1)) {
                let turned = a.attribute("transform").is_some();
                let gap = at(b, "x") - at(a, "x");
                let room = match turned {
                    // Turned by 45°, they are the distance ÷ √2 apart.
                    true if a.attribute("transform").unwrap().contains("-45") => {
                        SMALL.size * std::f64::consts::SQRT_2
                    }
                    true => SMALL.size,
                    false if at(a, "y") != at(b, "y") => continue,
                    false => {
                        (text_width(a.text().unwrap(), SMALL.size)
                            + text_width(b.text().unwrap(), SMALL.size))
                            / 2.0
                    }
                };
                assert!(
                    gap >= room,
                    "{:?} and {:?} {gap:.1} px apart",
                    a.text(),
                    b.text()
                );
            }
        }
    }

    /// Lines first, rings last: no line, band or dot covers a ring.
    #[test]
    fn the_rings_lie_on_top_of_the_lines() {
        let xml = at_sizes(&[8, 8192, 65536]);
        let document = roxmltree::Document::parse(&xml).unwrap();
        let order: Vec<&str> = (document.descendants())
            .filter(|n| n.is_element())
            .map(|n| match n.tag_name().name() {
                "circle" if n.attribute("fill") == Some("none") => "ring",
                "polyline" | "polygon" | "circle" => "line",
                _ => "",
            })
            .filter(|k| !k.is_empty())
            .collect();
        let first_ring = order.iter().position(|k| *k == "ring").expect("rings");
        assert_eq!(order.iter().filter(|k| **k == "ring").count(), 3);
        assert!(
            order[first_ring..].iter().all(|k| *k == "ring"),
            "{order:?}"
        );
    }
}
