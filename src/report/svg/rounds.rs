//! `rounds-<collective>-<size>B[-root<r>].svg`: each round's median of
//! every candidate against the round, to show drift. The slowdowns compare
//! the medians of these per-round medians, so a trend or a jump here is a
//! state of the machine that the verdict assumes away. The time axis is
//! logarithmic: on a linear one a single stalled round pressed every
//! other round onto its bottom.

use super::axis::log_time_ticks;
use super::{finish_line_plot, line_colours, run_line, Pen, Svg};
use super::{MARGIN, PLAIN, SMALL};
use crate::analyse::{Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::report::model as details;

const PLOT_W: f64 = 520.0;
const PLOT_H: f64 = 240.0;
/// Room left of the plot for the time ticks.
const AXIS_W: f64 = 64.0;
/// The fewest pixels between two round ticks.
const ROUND_GAP: f64 = 36.0;

/// The plot of a check whose candidates have per-round medians (runs from
/// before `round_medians_s` have none); None without any.
pub(super) fn render(results: &Results, check: &Verdict) -> Option<String> {
    let lines: Vec<(&str, &[f64])> = check
        .candidates
        .iter()
        .filter(|c| !c.round_medians_s.is_empty())
        .map(|c| (c.name.as_str(), c.round_medians_s.as_slice()))
        .collect();
    if lines.is_empty() {
        return None;
    }
    let title = format!("Per-round medians: {}", details::title(check));
    let subtitle = run_line(results);
    let key = "each round's median, rounds in the order they ran (a round without observations of a candidate is left out of its line); candidates interleave within each round";
    let rounds = lines.iter().map(|(_, m)| m.len()).max().unwrap_or(1);
    let (y_low, y_high) = log_range(&lines)?;
    let mut svg = Svg::new();
    svg.heading(&title, &subtitle);
    let (left, top) = (MARGIN + AXIS_W, 80.0);
    let bottom = top + PLOT_H;
    // Rounds 1 … n across the plot, a single round in its middle.
    let x = |index: usize| match rounds {
        1 => left + PLOT_W / 2.0,
        n => left + index as f64 / (n - 1) as f64 * PLOT_W,
    };
    let y = |s: f64| bottom - (s.ln() - y_low) / (y_high - y_low) * PLOT_H;
    for (value, label) in log_time_ticks(y_low.exp(), y_high.exp()) {
        let ty = y(value);
        svg.line((left, ty), (left + PLOT_W, ty), "#eeeeee", 1.0);
        svg.text(left - 6.0, ty, "end", SMALL, &label);
    }
    let step = (1..=rounds)
        .find(|&k| match rounds {
            1 => true,
            n => k as f64 / (n - 1) as f64 * PLOT_W >= ROUND_GAP,
        })
        .unwrap_or(rounds);
    for index in (0..rounds).step_by(step) {
        let tx = x(index);
        svg.line((tx, bottom), (tx, bottom + 4.0), "#212121", 1.0);
        svg.text(tx, bottom + 14.0, "middle", SMALL, &(index + 1).to_string());
    }
    svg.line((left, top), (left, bottom), "#212121", 1.0);
    svg.line((left, bottom), (left + PLOT_W, bottom), "#212121", 1.0);
    svg.text(left + PLOT_W / 2.0, bottom + 32.0, "middle", PLAIN, "round");
    let y_title = "round median (log scale)";
    svg.text(MARGIN, top - 16.0, "start", PLAIN, y_title);

    let colours_of = line_colours(&lines.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    for ((name, medians), (_, colour)) in lines.iter().zip(&colours_of) {
        let points: Vec<(f64, f64)> = (medians.iter().enumerate())
            .filter(|(_, &m)| m > 0.0)
            .map(|(i, &m)| (x(i), y(m)))
            .collect();
        let width = if *name == DEFAULT { 2.5 } else { 1.5 };
        svg.series(&points, Pen::solid(colour, width), name);
        for &point in &points {
            svg.circle(point, 2.0, colour);
        }
    }
    Some(finish_line_plot(
        svg,
        (left + PLOT_W, top, bottom),
        &colours_of,
        key,
        &title,
        &subtitle,
    ))
}

/// Natural logarithms of the seconds at the bottom and the top of the
/// time axis: every positive median inside, padded; None without one.
fn log_range(lines: &[(&str, &[f64])]) -> Option<(f64, f64)> {
    let (fastest, slowest) = lines
        .iter()
        .flat_map(|(_, medians)| medians.iter().copied())
        .filter(|t| *t > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
            (lo.min(t), hi.max(t))
        });
    if slowest <= 0.0 {
        return None;
    }
    let pad = match slowest > fastest {
        true => (slowest / fastest).ln() * 0.08,
        false => 0.05,
    };
    Some((fastest.ln() - pad, slowest.ln() + pad))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::report::fixture;

    #[test]
    fn one_line_per_candidate_with_a_point_per_round() {
        let results = fixture::results_with_rounds();
        let xml = render(&results, &results.checks[1]).expect("measured candidates");
        texts(&("rounds".into(), xml.clone()));
        assert_eq!(
            tooltips(&xml, "polyline"),
            [
                "default",
                "allreduce_as_reduce_bcast",
                "allreduce_as_reducescatter_allgather"
            ],
            "the wrong and the skipped candidate have no rounds"
        );
        let document = roxmltree::Document::parse(&xml).unwrap();
        for line in document
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
        {
            let points = line.attribute("points").unwrap().split(' ').count();
            assert_eq!(points, 10, "ten rounds");
        }
        let labels = labels(&xml);
        for tick in ["1", "10", "round", "round median (log scale)"] {
            assert!(labels.contains(&tick.to_string()), "{tick} in {labels:?}");
        }
        assert!(labels.iter().any(|l| l.ends_with(" µs")), "{labels:?}");
        // Runs from before the field: no plot.
        let old = fixture::results();
        assert!(old.checks.iter().all(|c| render(&old, c).is_none()));
    }

    /// One round stalled 100× keeps the others apart: 10 and 12 µs stay
    /// pixels apart (on a linear axis to 1.2 ms they were 0.4 px apart),
    /// and the ticks are decades with their unit.
    #[test]
    fn a_stalled_round_leaves_the_others_readable() {
        let mut results = fixture::results_with_rounds();
        let check = &mut results.checks[1];
        check.candidates.truncate(1);
        check.candidates[0].round_medians_s = vec![10e-6, 11e-6, 12e-6, 1.2e-3, 10e-6];
        let xml = render(&results, &results.checks[1]).unwrap();
        let ys: Vec<f64> = points(&xml, "polyline")[0].iter().map(|p| p.1).collect();
        assert!(ys[0] - ys[2] > 5.0, "10 µs and 12 µs apart: {ys:?}");
        assert!(ys[0] - ys[1] > 2.0 && ys[1] - ys[2] > 2.0, "{ys:?}");
        assert_eq!(ys[0], ys[4], "{ys:?}");
        let labels = labels(&xml);
        for tick in ["10 µs", "100 µs", "1 ms"] {
            assert!(labels.contains(&tick.to_string()), "{tick} in {labels:?}");
        }
        // Equal ratios, equal distances: 10 → 100 µs as far as 100 µs → 1 ms.
        let tick_y = |label: &str| -> f64 {
            let document = roxmltree::Document::parse(&xml).unwrap();
            let node = (document.descendants())
                .find(|n| n.has_tag_name("text") && n.text() == Some(label))
                .unwrap();
            node.attribute("y").unwrap().parse().unwrap()
        };
        let (a, b, c) = (tick_y("10 µs"), tick_y("100 µs"), tick_y("1 ms"));
        assert!(((a - b) - (b - c)).abs() < 0.2, "{a} {b} {c}");
    }
}
