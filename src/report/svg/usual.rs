//! `usual-<collective>-<size>B[-root<r>].svg`: per check, one panel per
//! candidate with a usual time (Kluge et al. 2005): its times' histogram
//! (bars), the fitted model's expected counts (line, dashed where the χ²
//! test rejects the fit), t_max (red dashed) and the plain q_max quantile
//! (grey dotted). Every panel spans the same times, so that panels compare
//! at a glance. A rejected fit says what that means and what the verdict
//! rests on instead: "fit rejected" alone left a new reader guessing.

use super::axis::time_ticks;
use super::{page_width, run_line, text_width, wrapped, Pen, Svg};
use super::{BOLD, MARGIN, PLAIN, SMALL, TITLE};
use crate::analyse::{CandidateSummary, Results, Verdict};
use crate::candidates::native::DEFAULT;
use crate::report::model::{self as details, ranked, seconds};
use crate::stats::usual::{Histogram, Usual};

const PANEL_W: f64 = 380.0;
const PANEL_H: f64 = 264.0;
/// Between the lines of a caption.
const LINE_H: f64 = 16.0;
const PLOT_W: f64 = 300.0;
const PLOT_H: f64 = 120.0;
const COLUMNS: usize = 3;
/// The fewest pixels between two time ticks' centres.
const TICK_GAP: f64 = 58.0;

/// A p-value as a reader takes it in: `p = 0.34`, `p = 0.004`, `p < 0.001`.
pub(super) fn p_text(p: f64) -> String {
    match p {
        p if p < 0.001 => "p < 0.001".into(),
        p if p < 0.01 => format!("p = {p:.3}"),
        p => format!("p = {p:.2}"),
    }
}

/// The goodness of fit in words: whether the χ² test rejects the model at
/// `alpha`, and its p-value.
pub(super) fn fit_text(fit_p: Option<f64>, alpha: f64) -> (String, bool) {
    match fit_p {
        None => ("no χ² test (too few bins)".into(), false),
        Some(p) if p < alpha => (format!("fit rejected: χ² {} < α {alpha}", p_text(p)), true),
        Some(p) => (format!("fit not rejected (χ² {})", p_text(p)), false),
    }
}

/// What a rejected fit means and what follows, two caption lines, given
/// `meta.outliers`: the case's tests take per-round medians, of times
/// under t_max only with `--outliers tmax` (docs/statistics.md).
pub(super) fn rejection(outliers: &str) -> [&'static str; 2] {
    let verdict = match outliers {
        "tmax" => "verdict: round medians of times ≤ this t_max",
        _ => "verdict does not use it: tests round medians",
    };
    ["the times are not described by this law;", verdict]
}

/// None when no candidate of the check has a usual time.
pub(super) fn render(results: &Results, check: &Verdict) -> Option<String> {
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
    let alpha = match results.meta.alpha {
        a if a > 0.0 && a < 1.0 => a,
        _ => 0.05,
    };
    let title = format!("Usual times: {}", details::title(check));
    let subtitle = format!(
        "Kluge et al. (2005): t = t_min + error; t_max = t_min + the fitted error's {} quantile · {}",
        results.meta.qmax,
        run_line(results)
    );
    let legend = format!("bars: times per bin of whole windows; line: the fitted model's expected counts, dashed where the χ² test rejects it at α = {alpha} (a p-value under α: counts this far from the law arise by chance less often than α); red dashed: t_max; grey dotted: the plain q_max quantile; every panel spans the same times");
    let (low, high) = time_range(&panels);
    let ticks = match high > low {
        true => thinned(time_ticks(low, high), low, high),
        false => Vec::new(),
    };
    let mut svg = Svg::new();
    svg.heading(&title, &subtitle);
    let top = 56.0;
    let fits = Fits {
        alpha,
        rejected: rejection(&results.meta.outliers),
    };
    for (i, candidate) in panels.iter().enumerate() {
        let x0 = MARGIN + (i % COLUMNS) as f64 * PANEL_W;
        let y0 = top + (i / COLUMNS) as f64 * PANEL_H;
        panel(&mut svg, (x0, y0), candidate, &fits, (low, high), &ticks);
    }
    let width = page_width([
        MARGIN + panels.len().min(COLUMNS) as f64 * PANEL_W,
        MARGIN + text_width(&title, TITLE.size),
        MARGIN + text_width(&subtitle, SMALL.size),
    ]);
    let rows = panels.len().div_ceil(COLUMNS);
    let mut legend_y = top + rows as f64 * PANEL_H + 4.0;
    for line in wrapped(&legend, width - 2.0 * MARGIN, SMALL.size) {
        svg.text(MARGIN, legend_y, "start", SMALL, &line);
        legend_y += LINE_H;
    }
    Some(svg.finish(width, legend_y + MARGIN, &title))
}

/// One time range for every panel: the widest of their histograms.
fn time_range(panels: &[&CandidateSummary]) -> (f64, f64) {
    panels
        .iter()
        .filter_map(|c| {
            let edges = &c.usual.as_ref()?.histogram.edges_s;
            Some((*edges.first()?, *edges.last()?))
        })
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(a), hi.max(b))
        })
}

/// Where a panel's plot lies and what it spans: times from `low` to
/// `high` across, counts from 0 to `most` up.
struct Frame {
    left: f64,
    top: f64,
    bottom: f64,
    low: f64,
    high: f64,
    most: f64,
}

impl Frame {
    fn x(&self, t: f64) -> f64 {
        self.left + ((t - self.low) / (self.high - self.low)).clamp(0.0, 1.0) * PLOT_W
    }

    fn y(&self, count: f64) -> f64 {
        self.bottom - (count / self.most).clamp(0.0, 1.0) * PLOT_H
    }
}

/// The χ² test's α and what a panel says under a fit it rejects.
struct Fits {
    alpha: f64,
    rejected: [&'static str; 2],
}

/// One candidate's panel from (`x0`, `y0`): its caption, and its plot
/// when its histogram and the time range are not empty.
fn panel(
    svg: &mut Svg,
    (x0, y0): (f64, f64),
    candidate: &CandidateSummary,
    fits: &Fits,
    (low, high): (f64, f64),
    ticks: &[(f64, String)],
) {
    let usual = candidate.usual.as_ref().expect("filtered");
    let (fit, h) = (&usual.fit, &usual.histogram);
    let (fit_words, rejected) = fit_text(fit.fit_p, fits.alpha);
    let model = details::model_name(fit.model);
    let mut lines = vec![format!("{model} · {fit_words}")];
    if rejected {
        lines.extend(fits.rejected.map(str::to_string));
    }
    caption(svg, (x0, y0), candidate, &lines);
    if h.edges_s.len() < 2 || high <= low {
        return;
    }
    let plot_top = y0 + 36.0 + 4.0 * LINE_H;
    let most = h
        .counts
        .iter()
        .map(|&c| c as f64)
        .chain(h.expected.iter().copied())
        .fold(1.0, f64::max);
    let frame = Frame {
        left: x0 + 40.0,
        top: plot_top,
        bottom: plot_top + PLOT_H,
        low,
        high,
        most,
    };
    bars(svg, &frame, h, candidate.name == DEFAULT);
    let pen = match rejected {
        true => Pen {
            stroke: "#d84315",
            width: 1.5,
            dash: Some("4,3"),
        },
        false => Pen::solid("#d84315", 1.5),
    };
    let points: Vec<(f64, f64)> = h
        .expected
        .iter()
        .enumerate()
        .map(|(k, &e)| {
            let middle = 0.5 * (frame.x(h.edges_s[k]) + frame.x(h.edges_s[k + 1]));
            (middle, frame.y(e))
        })
        .collect();
    svg.series(&points, pen, &format!("{model} fit, {fit_words}"));
    quantiles(svg, &frame, fit);
    axes(svg, &frame, ticks);
    let beyond = match h.beyond {
        0 => String::new(),
        n => format!(" · {n} beyond (model {:.1})", h.expected_beyond),
    };
    let x_title = format!(
        "time, window {}{beyond}",
        details::fine_seconds(fit.window_s)
    );
    let centre = frame.left + PLOT_W / 2.0;
    svg.text(centre, frame.bottom + 26.0, "middle", SMALL, &x_title);
}

/// The candidate's name, the lines on the model and its fit, t_max and
/// the overhead.
fn caption(svg: &mut Svg, (x0, y0): (f64, f64), candidate: &CandidateSummary, fit: &[String]) {
    let style = if candidate.name == DEFAULT {
        BOLD
    } else {
        PLAIN
    };
    svg.text(x0, y0 + 8.0, "start", style, &candidate.name);
    let usual = &candidate.usual.as_ref().expect("filtered").fit;
    let line = format!(
        "t_max {} · overhead {:.1} %",
        seconds(usual.tmax_s),
        100.0 * usual.overhead_share
    );
    for (i, text) in fit.iter().chain([&line]).enumerate() {
        svg.text(x0, y0 + 24.0 + i as f64 * LINE_H, "start", SMALL, text);
    }
}

/// A bar per bin of the histogram, `default`'s grey.
fn bars(svg: &mut Svg, frame: &Frame, h: &Histogram, default: bool) {
    let fill = if default { "#78909c" } else { "#90caf9" };
    for (k, &count) in h.counts.iter().enumerate() {
        let (a, b) = (frame.x(h.edges_s[k]), frame.x(h.edges_s[k + 1]));
        let top = frame.y(count as f64);
        svg.rect(
            a + 0.25,
            top,
            (b - a - 0.5).max(0.5),
            frame.bottom - top,
            fill,
        );
    }
}

/// The plain q_max quantile (when within the range) and t_max, marked.
fn quantiles(svg: &mut Svg, frame: &Frame, fit: &Usual) {
    let (top, bottom) = (frame.top, frame.bottom);
    if fit.empirical_tmax_s <= frame.high {
        let q = frame.x(fit.empirical_tmax_s);
        svg.dashed((q, top), (q, bottom), "#757575", "2,2");
    }
    let t = frame.x(fit.tmax_s);
    svg.dashed((t, top), (t, bottom), "#b71c1c", "5,3");
    svg.text(t + 3.0, top + 4.0, "start", SMALL, "t_max");
}

/// The count axis (0 and the most) and the time axis with its ticks.
fn axes(svg: &mut Svg, frame: &Frame, ticks: &[(f64, String)]) {
    let (left, top, bottom) = (frame.left, frame.top, frame.bottom);
    svg.line((left, top), (left, bottom), "#212121", 1.0);
    svg.line((left, bottom), (left + PLOT_W, bottom), "#212121", 1.0);
    let most = format!("{:.0}", frame.most);
    svg.text(left - 4.0, top, "end", SMALL, &most);
    svg.text(left - 4.0, bottom, "end", SMALL, "0");
    svg.text(left, top - 12.0, "middle", SMALL, "count");
    for (value, label) in ticks {
        let tx = frame.x(*value);
        svg.line((tx, bottom), (tx, bottom + 3.0), "#212121", 1.0);
        svg.text(tx, bottom + 11.0, "middle", SMALL, label);
    }
}

/// Every k-th of `ticks`, k the smallest that keeps their labels
/// [`TICK_GAP`] apart on a plot from `low` to `high`.
fn thinned(ticks: Vec<(f64, String)>, low: f64, high: f64) -> Vec<(f64, String)> {
    let gap = match ticks.as_slice() {
        [a, b, ..] => (b.0 - a.0) / (high - low) * PLOT_W,
        _ => return ticks,
    };
    let every = (TICK_GAP / gap).ceil().max(1.0) as usize;
    ticks.into_iter().step_by(every).collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::report::fixture;

    #[test]
    fn small_p_values_are_written_out_and_a_rejected_fit_says_so() {
        assert_eq!(p_text(0.523), "p = 0.52");
        assert_eq!(p_text(0.0042), "p = 0.004");
        assert_eq!(p_text(3e-9), "p < 0.001");
        assert_eq!(
            fit_text(Some(1e-6), 0.05),
            ("fit rejected: χ² p < 0.001 < α 0.05".to_string(), true)
        );
        assert_eq!(
            fit_text(Some(0.3), 0.05),
            ("fit not rejected (χ² p = 0.30)".to_string(), false)
        );
        assert!(!fit_text(None, 0.05).1);
    }

    #[test]
    fn panels_per_candidate_on_one_time_range() {
        let mut results = fixture::results_with_usual();
        results.meta.alpha = 0.05;
        let check = &mut results.checks[1];
        check.candidates[0].usual.as_mut().unwrap().fit.fit_p = Some(1e-7);
        let xml = render(&results, &results.checks[1]).expect("usual times");
        let text = texts(&("usual".into(), xml.clone()));
        assert!(text.contains("Usual times: MPI_Allreduce, 8 KiB"), "{text}");
        for candidate in [
            "default",
            "allreduce_as_reduce_bcast",
            "allreduce_as_reducescatter_allgather",
        ] {
            assert!(text.contains(candidate), "{candidate} missing in {text}");
        }
        assert!(!text.contains("allreduce_as_allreduce_lane"));
        assert!(
            text.contains("fit rejected: χ² p < 0.001 < α 0.05"),
            "{text}"
        );
        // Every p-value written is one a reader can take in: never 0.00.
        for written in text.split("p = ").skip(1) {
            let p: f64 = written.split([')', ' ']).next().unwrap().parse().unwrap();
            assert!(p >= 0.001, "{written}");
        }
        // A bar per bin, and the background.
        let histograms: usize = results.checks[1]
            .candidates
            .iter()
            .filter_map(|c| c.usual.as_ref())
            .map(|u| u.histogram.counts.len())
            .sum();
        assert_eq!(count(&xml, "rect"), histograms + 1);
        let labels = labels(&xml);
        assert_eq!(labels.iter().filter(|l| *l == "t_max").count(), 3);
        // The rejected fit is dashed, the others solid.
        let document = roxmltree::Document::parse(&xml).unwrap();
        let dashed: Vec<bool> = document
            .descendants()
            .filter(|n| n.has_tag_name("polyline"))
            .map(|n| n.attribute("stroke-dasharray").is_some())
            .collect();
        assert_eq!(dashed.iter().filter(|d| **d).count(), 1, "{dashed:?}");
        // One shared time axis: every tick label, with its unit, in each
        // of the three panels (their own ranges would tick apart: the
        // medians are 55, 100 and 120 µs).
        let ticks: Vec<&String> = labels
            .iter()
            .filter(|l| l.ends_with(" µs") && !l.starts_with("time, window"))
            .collect();
        assert!(ticks.len() >= 2 * 3, "{labels:?}");
        for tick in &ticks {
            assert_eq!(
                ticks.iter().filter(|t| t == &tick).count(),
                3,
                "{tick} in every panel: {ticks:?}"
            );
        }
        // … and at the same place in each panel: the panels' ranges are one.
        for tick in &ticks {
            let mut at: Vec<f64> = document
                .descendants()
                .filter(|n| n.has_tag_name("text") && n.text() == Some(tick.as_str()))
                .map(|n| n.attribute("x").unwrap().parse().unwrap())
                .collect();
            at.sort_by(f64::total_cmp);
            let offsets: Vec<f64> = at.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(
                offsets.iter().all(|d| (d - PANEL_W).abs() < 0.01),
                "{tick} at {at:?}: not {PANEL_W} apart"
            );
        }
        // No usual times, no panels.
        let plain = fixture::results();
        assert!(plain.checks.iter().all(|c| render(&plain, c).is_none()));
    }

    /// A rejected fit says why and what the verdict rests on instead, as
    /// `--outliers` has it, in lines that stay inside their panel.
    #[test]
    fn a_rejected_fit_says_what_it_means_for_the_verdict() {
        for (outliers, verdict) in [
            ("none", "verdict does not use it: tests round medians"),
            ("tmax", "verdict: round medians of times ≤ this t_max"),
        ] {
            let mut results = fixture::results_with_usual();
            results.meta.alpha = 0.05;
            results.meta.outliers = outliers.into();
            let check = &mut results.checks[1];
            check.candidates[0].usual.as_mut().unwrap().fit.fit_p = Some(0.004);
            check.candidates[1].usual.as_mut().unwrap().fit.fit_p = Some(0.3);
            let xml = render(&results, &results.checks[1]).unwrap();
            let labels = labels(&xml);
            let count = |l: &str| labels.iter().filter(|x| *x == l).count();
            assert_eq!(count("the times are not described by this law;"), 1);
            assert_eq!(count(verdict), 1, "{labels:?}");
            assert!(labels
                .iter()
                .any(|l| l.ends_with("fit rejected: χ² p = 0.004 < α 0.05")));
            assert!(labels
                .iter()
                .any(|l| l.ends_with("fit not rejected (χ² p = 0.30)")));
            let captions = labels.iter().filter(|l| {
                l.contains(" fit ")
                    || l.starts_with("t_max ")
                    || rejection(outliers).contains(&l.as_str())
            });
            for label in captions {
                assert!(text_width(label, SMALL.size) < PANEL_W - 8.0, "{label}");
            }
        }
    }
}
