//! `check-<collective>-<size>B[-root<r>].svg`: one check's candidates, each
//! a bar from 1 to its slowdown against `default` on a logarithmic ratio
//! axis centred on 1 (MPINPC's Figure 5, as ratios): a 5 % difference is
//! as wide as it matters, where bars of times from 0 hide it.

use super::axis::ratio_ticks;
use super::{colours, page_width, run_line, text_width, wrapped, Svg};
use super::{BOLD, FONT, MARGIN, PLAIN, SMALL, TITLE};
use crate::analyse::{CandidateSummary, Results, Severity, Verdict};
use crate::candidates::native::DEFAULT;
use crate::report::model::{self as details, ranked, seconds, Mark};

const ROW_H: f64 = 24.0;
const BAR_H: f64 = 14.0;
/// The narrowest plot; it widens to the width the heading takes.
const PLOT_W: f64 = 480.0;
/// The fewest pixels between two ticks of the ratio axis.
const TICK_GAP: f64 = 44.0;
/// The narrowest half-range of the axis: ×/÷ 1.25, so that small
/// differences are not blown up to the plot's width.
const MIN_HALF_RANGE: f64 = 0.223;

/// What a bar's right-hand label says: its median and how it compares.
fn bar_label(candidate: &CandidateSummary) -> String {
    let median = details::median(candidate).map_or("-".into(), seconds);
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

/// A candidate's place on the ratio axis.
struct Bar<'a> {
    candidate: &'a CandidateSummary,
    /// Its slowdown; 1 for `default`.
    ratio: f64,
    /// The interquartile range of its times as ratios: `default`'s median
    /// ÷ its q3 and ÷ its q1.
    spread: Option<(f64, f64)>,
}

impl Bar<'_> {
    /// None without a slowdown (nothing to compare it with).
    fn of(candidate: &CandidateSummary, default_median: f64) -> Option<Bar<'_>> {
        let ratio = match candidate.name == DEFAULT {
            true => 1.0,
            false => candidate.slowdown.filter(|s| *s > 0.0)?,
        };
        let spread = match (candidate.q1_s, candidate.q3_s) {
            (Some(q1), Some(q3)) if q1 > 0.0 && q3 > 0.0 => {
                Some((default_median / q3, default_median / q1))
            }
            _ => None,
        };
        Some(Bar {
            candidate,
            ratio,
            spread,
        })
    }
}

pub(super) fn render(results: &Results, check: &Verdict) -> String {
    let title = details::title(check);
    let subtitle = format!("{} · {}", details::verdict_line(check), run_line(results));
    let ranked = ranked(check);
    let default_median = check
        .default_candidate()
        .and_then(|d| d.round_median_s)
        .filter(|m| *m > 0.0);
    let bars: Vec<Bar> = default_median
        .map(|d| {
            ranked
                .measured
                .iter()
                .filter_map(|c| Bar::of(c, d))
                .collect()
        })
        .unwrap_or_default();
    let labels: Vec<String> = bars.iter().map(|b| bar_label(b.candidate)).collect();
    let name_w = widest(bars.iter().map(|b| b.candidate.name.as_str())) + 12.0;
    let label_w = widest(labels.iter().map(String::as_str)) + 12.0;
    let left = MARGIN + name_w;
    // The heading sets the width, the plot fills it and the notes wrap
    // in it: a one-line key once made the page 2.8 times the plot's width.
    let width = page_width([
        left + PLOT_W + label_w,
        MARGIN + text_width(&title, TITLE.size),
        MARGIN + text_width(&subtitle, SMALL.size),
    ]);
    let plot_w = width - MARGIN - left - label_w;
    let notes: Vec<String> = notes(&ranked.measured, &ranked.unmeasured, &bars, default_median)
        .iter()
        .flat_map(|note| wrapped(note, width - 2.0 * MARGIN, SMALL.size))
        .collect();
    let mut svg = Svg::new();
    svg.heading(&title, &subtitle);
    let top = 72.0;
    let mut bottom = top;
    if !bars.is_empty() {
        let axis = RatioAxis::of(&bars, results.meta.margin, left, plot_w);
        bottom = plot(&mut svg, &axis, results.meta.margin, top, (&bars, &labels));
    }
    for (i, note) in notes.iter().enumerate() {
        svg.text(MARGIN, bottom + 8.0 + i as f64 * 18.0, "start", SMALL, note);
    }
    bottom += notes.len() as f64 * 18.0;
    svg.finish(width, bottom + MARGIN, &title)
}

/// The width of the widest of `texts` in the plain font.
fn widest<'a>(texts: impl Iterator<Item = &'a str>) -> f64 {
    texts.map(|t| text_width(t, FONT)).fold(0.0, f64::max)
}

/// The lines under the plot: why a candidate has no bar, and the key.
fn notes(
    measured: &[&CandidateSummary],
    unmeasured: &[&CandidateSummary],
    bars: &[Bar],
    default_median: Option<f64>,
) -> Vec<String> {
    let unplotted = measured
        .iter()
        .filter(|c| !bars.iter().any(|b| b.candidate.name == c.name))
        .map(|c| {
            format!(
                "{} — median {}, no ratio: {}",
                c.name,
                details::median(c).map_or("-".into(), seconds),
                match default_median {
                    Some(_) => "not compared with default",
                    None => "default not measured",
                }
            )
        });
    unmeasured
        .iter()
        .map(|c| format!("{} — {}", c.name, details::why_unmeasured(c)))
        .chain(unplotted)
        .chain((!bars.is_empty()).then(|| {
            "bars: from 1 to the slowdown, default's median ÷ the candidate's; whiskers: default's median ÷ the candidate's q3 … q1; * significantly faster than default; ~ closer to default than the noise floor".to_string()
        }))
        .collect()
}

/// The ratio axis around 1: where a ratio lies across the plot, `width`
/// wide from `left`, which spans ×/÷ `exp(half_range)` on both sides of
/// its centre.
struct RatioAxis {
    left: f64,
    width: f64,
    half_range: f64,
}

impl RatioAxis {
    /// An axis holding every ratio shown and the margin, but never
    /// narrower than MIN_HALF_RANGE.
    fn of(bars: &[Bar], margin: f64, left: f64, width: f64) -> RatioAxis {
        let half_range = bars
            .iter()
            .flat_map(|b| {
                [Some(b.ratio), b.spread.map(|s| s.0), b.spread.map(|s| s.1)]
                    .into_iter()
                    .flatten()
            })
            .chain((margin > 1.0).then_some(margin))
            .map(|r| r.ln().abs())
            .fold(MIN_HALF_RANGE, f64::max)
            * 1.1;
        RatioAxis {
            left,
            width,
            half_range,
        }
    }

    fn centre(&self) -> f64 {
        self.left + self.width / 2.0
    }

    fn x(&self, ratio: f64) -> f64 {
        self.centre() + (ratio.ln() / self.half_range).clamp(-1.0, 1.0) * self.width / 2.0
    }
}

/// The plot from `top`: the axis, the margin and a row per bar with its
/// label; returns where the notes begin.
fn plot(
    svg: &mut Svg,
    axis: &RatioAxis,
    margin: f64,
    top: f64,
    (bars, labels): (&[Bar], &[String]),
) -> f64 {
    let bottom = top + bars.len() as f64 * ROW_H;
    grid(svg, axis, margin, top, bottom);
    for (i, (bar, label)) in bars.iter().zip(labels).enumerate() {
        let mid = top + (i as f64 + 0.5) * ROW_H;
        row(svg, axis, mid, bar, label);
    }
    let left = axis.left;
    svg.line((left, bottom), (left + axis.width, bottom), "#212121", 1.0);
    bottom + 44.0
}

/// The ticks' lines and labels (1 darker), the margin's dashed line and
/// the axis title.
fn grid(svg: &mut Svg, axis: &RatioAxis, margin: f64, top: f64, bottom: f64) {
    let half_range = axis.half_range;
    let min_gap = TICK_GAP / (axis.width / 2.0) * half_range;
    let (low, high) = ((-half_range).exp(), half_range.exp());
    for (value, label) in ratio_ticks(low, high, min_gap) {
        let tx = axis.x(value);
        let (stroke, width) = match value == 1.0 {
            true => ("#212121", 1.5),
            false => ("#e0e0e0", 1.0),
        };
        svg.line((tx, top - 6.0), (tx, bottom), stroke, width);
        svg.text(tx, bottom + 12.0, "middle", SMALL, &label);
    }
    if margin > 1.0 {
        let mx = axis.x(margin);
        svg.dashed((mx, top - 6.0), (mx, bottom), "#b71c1c", "4,3");
        let text = format!("margin {margin}×");
        svg.text(mx, top - 14.0, "middle", SMALL, &text);
    }
    svg.text(
        axis.centre(),
        bottom + 30.0,
        "middle",
        PLAIN,
        "slowdown against default (log scale): right of 1× faster, left slower",
    );
}

/// One candidate's row centred on `mid`: its name, its bar from 1, its
/// interquartile whiskers and its label.
fn row(svg: &mut Svg, axis: &RatioAxis, mid: f64, bar: &Bar, label: &str) {
    let candidate = bar.candidate;
    let is_default = candidate.name == DEFAULT;
    let style = if is_default { BOLD } else { PLAIN };
    svg.text(axis.left - 8.0, mid, "end", style, &candidate.name);
    let (one, at) = (axis.x(1.0), axis.x(bar.ratio));
    let (from, to) = match is_default {
        // Default's own bar has no length: a mark at 1.
        true => (one - 1.5, one + 1.5),
        false => (one.min(at), one.max(at)),
    };
    let fill = bar_fill(candidate);
    svg.rect(from, mid - BAR_H / 2.0, to - from, BAR_H, fill);
    let mut end = to;
    if let Some((low, high)) = bar.spread {
        let (x1, x3) = (axis.x(low), axis.x(high));
        svg.line((x1, mid), (x3, mid), "#212121", 1.5);
        for cap in [x1, x3] {
            svg.line((cap, mid - 5.0), (cap, mid + 5.0), "#212121", 1.5);
        }
        end = end.max(x3);
    }
    svg.text(end + 6.0, mid, "start", style, label);
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::report::fixture;

    fn svg(results: &Results, i: usize) -> (String, String) {
        (format!("check {i}"), render(results, &results.checks[i]))
    }

    #[test]
    fn every_candidate_is_named_with_its_median_and_ratio() {
        let results = fixture::results();
        for i in 0..results.checks.len() {
            let text = texts(&svg(&results, i));
            for candidate in &results.checks[i].candidates {
                assert!(
                    text.contains(&candidate.name),
                    "{} in {text}",
                    candidate.name
                );
            }
        }
        let bcast = texts(&svg(&results, 2));
        assert!(bcast.contains("6.00× faster *"), "{bcast}");
        let allreduce = texts(&svg(&results, 1));
        assert!(allreduce.contains("wrong: rank 3: element 17 is 4, expected 5"));
        assert!(allreduce.contains("1.20× slower"));
        assert!(texts(&svg(&results, 0)).contains("10.20 µs · 1.02× slower ~"));
        assert!(texts(&svg(&results, 3)).contains("no verdict: default not measured"));
    }

    /// The ratio axis: ticks at round ratios around 1, none at or below
    /// 0, both sides of 1 where candidates are faster and slower; one bar
    /// per measured candidate (and the background).
    #[test]
    fn bars_stand_on_a_ratio_axis_around_1() {
        let mut results = fixture::results();
        results.meta.margin = 1.05;
        let (_, xml) = svg(&results, 1);
        let ticks: Vec<f64> = labels(&xml)
            .iter()
            .filter_map(|l| l.strip_suffix('×'))
            .filter_map(|l| l.parse().ok())
            .collect();
        assert!(ticks.contains(&1.0), "{ticks:?}");
        assert!(ticks.iter().all(|t| *t > 0.0), "{ticks:?}");
        assert!(
            ticks.iter().any(|t| *t < 0.9) && ticks.iter().any(|t| *t > 1.5),
            "120 µs is 1.2× slower, 55 µs 1.82× faster than 100 µs: {ticks:?}"
        );
        assert!(labels(&xml).contains(&"margin 1.05×".to_string()));
        assert_eq!(count(&xml, "rect"), 1 + 3, "the background, three bars");
        // The 1.82× bar starts at 1, not at 0: at the axis' centre.
        let document = roxmltree::Document::parse(&xml).unwrap();
        let starts: Vec<f64> = document
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .skip(1)
            .map(|n| n.attribute("x").unwrap().parse().unwrap())
            .collect();
        let one = document
            .descendants()
            .find(|n| n.has_tag_name("text") && n.text() == Some("1×"))
            .and_then(|n| n.attribute("x"))
            .map(|x| x.parse::<f64>().unwrap())
            .unwrap();
        let faster = starts[0];
        assert!((faster - one).abs() < 0.2, "{starts:?} against 1× at {one}");
        assert!(starts[2] < one - 10.0, "the slower bar lies left of 1");
        // Log scale: 1.2× slower is as long against 1.82× faster as their
        // logarithms.
        let widths: Vec<f64> = document
            .descendants()
            .filter(|n| n.has_tag_name("rect"))
            .skip(1)
            .map(|n| n.attribute("width").unwrap().parse().unwrap())
            .collect();
        let expected = 1.2f64.ln() / (100.0f64 / 55.0).ln();
        assert!(
            (widths[2] / widths[0] - expected).abs() < 0.01,
            "bars {widths:?}: slower ÷ faster {} ≠ {expected:.3}",
            widths[2] / widths[0]
        );
    }

    /// The plot fills the page the heading sets: the rows reach its right
    /// margin, no text runs past it, and the key wraps inside it.
    #[test]
    fn the_plot_uses_the_page_s_width() {
        let results = fixture::results();
        for i in 0..3 {
            let (_, xml) = svg(&results, i);
            let document = roxmltree::Document::parse(&xml).unwrap();
            let width: f64 = document
                .root_element()
                .attribute("width")
                .unwrap()
                .parse()
                .unwrap();
            // (left, right, y) of every text.
            let extents: Vec<(f64, f64, f64)> = (document.descendants())
                .filter(|n| n.has_tag_name("text"))
                .map(|n| {
                    let at = |a: &str| -> f64 { n.attribute(a).unwrap().parse().unwrap() };
                    let w = text_width(n.text().unwrap(), at("font-size"));
                    let (x, y) = (at("x"), at("y"));
                    match n.attribute("text-anchor").unwrap() {
                        "start" => (x, x + w, y),
                        "middle" => (x - w / 2.0, x + w / 2.0, y),
                        _ => (x - w, x, y),
                    }
                })
                .collect();
            assert!(
                extents
                    .iter()
                    .all(|(l, r, _)| *l >= 0.0 && *r <= width - MARGIN + 0.5),
                "{extents:?} within {width}"
            );
            let axis: f64 = (document.descendants())
                .filter(|n| n.has_tag_name("line"))
                .map(|n| -> f64 { n.attribute("x2").unwrap().parse().unwrap() })
                .fold(0.0, f64::max);
            assert!(
                axis - MARGIN >= 0.6 * (width - 2.0 * MARGIN),
                "the plot ends at {axis} of {width}"
            );
            // Under the heading, the widest row or note nearly reaches the
            // margin (it reached 71 % of the page when the key set it).
            let rows_end = (extents.iter())
                .filter(|e| e.2 > 60.0)
                .map(|e| e.1)
                .fold(0.0, f64::max);
            assert!(
                rows_end >= 0.93 * (width - MARGIN),
                "rows end at {rows_end} of {width}"
            );
        }
    }
}
