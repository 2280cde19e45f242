//! The overview grid (MPINPC's Figure 3): collectives × sizes, each cell the
//! severity of the worst significantly faster competitor.

use super::table::style;
use super::Results;
use crate::analyse::{Conclusion, Severity, Verdict};
use crate::candidates::native::DEFAULT;
use crate::collective::Collective;
use comfy_table::{Attribute, Cell, CellAlignment, Color, Table};

/// What one cell of the grid shows. Ordered from least to most telling, so
/// that the worst of several checks in one cell is the maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mark {
    /// No check of this collective at this size.
    Blank,
    /// The severity of a violation; `Severity::Ok` where the guideline holds.
    Severity(Severity),
    /// Neither violated nor shown to hold.
    Inconclusive,
    /// Checked, but the default was never measured (interrupted or excluded).
    Unmeasured,
    /// The library's own collective failed verification.
    Wrong,
}

impl Mark {
    /// A check's mark, from its verdict.
    pub(crate) fn of(check: &Verdict) -> Mark {
        match check.conclusion {
            Conclusion::LibraryWrong => Mark::Wrong,
            Conclusion::Unmeasured => Mark::Unmeasured,
            Conclusion::Inconclusive => Mark::Inconclusive,
            Conclusion::Holds | Conclusion::Violated => Mark::Severity(check.severity),
        }
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Mark::Blank => "",
            Mark::Unmeasured => "n/a",
            Mark::Inconclusive => "inconclusive",
            Mark::Wrong => "WRONG",
            Mark::Severity(s) => s.label(),
        }
    }

    /// Position from least to most telling.
    fn weight(self) -> u8 {
        match self {
            Mark::Blank => 0,
            Mark::Severity(Severity::Ok) => 1,
            Mark::Inconclusive => 2,
            Mark::Unmeasured => 3,
            Mark::Severity(s) => 3 + s as u8,
            Mark::Wrong => 10,
        }
    }
}

impl Ord for Mark {
    fn cmp(&self, other: &Mark) -> std::cmp::Ordering {
        self.weight().cmp(&other.weight())
    }
}

impl PartialOrd for Mark {
    fn partial_cmp(&self, other: &Mark) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One row of the grid: a collective (and its root when a run checked
/// several roots of it), one mark per size of [`Overview::sizes`].
pub(crate) struct Row {
    pub label: String,
    pub marks: Vec<Mark>,
    /// Per size: a competitor failed verification there.
    pub wrong: Vec<bool>,
}

/// The grid's content, shared by the text, Markdown and SVG renderers.
pub(crate) struct Overview {
    /// Every size any check used, ascending.
    pub sizes: Vec<u64>,
    /// In `Collective::ALL` order, only the collectives present.
    pub rows: Vec<Row>,
}

/// The grid of a run. A cell holding several checks (other datatypes or
/// operators) shows the worst of them.
pub(crate) fn overview(results: &Results) -> Overview {
    let mut sizes: Vec<u64> = results.checks.iter().map(|c| c.key.size_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for collective in Collective::ALL {
        let checks: Vec<&Verdict> = results
            .checks
            .iter()
            .filter(|c| c.key.collective == collective)
            .collect();
        let root_of = |c: &Verdict| collective.is_rooted().then_some(c.key.root);
        let mut roots: Vec<Option<usize>> = checks.iter().map(|c| root_of(c)).collect();
        roots.sort_unstable();
        roots.dedup();
        let several_roots = roots.len() > 1;
        for root in roots {
            let label = match root {
                Some(r) if several_roots => format!("{} root {r}", collective.name()),
                _ => collective.name().to_string(),
            };
            let in_cell = |size: u64| {
                checks
                    .iter()
                    .filter(move |c| c.key.size_bytes == size && root_of(c) == root)
            };
            let marks = sizes
                .iter()
                .map(|&size| {
                    in_cell(size)
                        .map(|c| Mark::of(c))
                        .fold(Mark::Blank, Mark::max)
                })
                .collect();
            let wrong = sizes
                .iter()
                .map(|&size| {
                    in_cell(size).any(|c| {
                        c.candidates
                            .iter()
                            .any(|c| c.outcome.is_wrong() && c.name != DEFAULT)
                    })
                })
                .collect();
            rows.push(Row {
                label,
                marks,
                wrong,
            });
        }
    }
    Overview { sizes, rows }
}

/// A size as people write it: `8 B`, `1000 B`, `8 KiB`, `10 kB`, `1 MiB`.
/// Exact only: a size that is no whole multiple of a unit stays in bytes.
pub(crate) fn size_label(bytes: u64) -> String {
    // (unit, smallest size shown in it, name): 10 kB but 1000 B, because
    // small decimal sizes read better in bytes.
    const UNITS: [(u64, u64, &str); 6] = [
        (1 << 30, 1 << 30, "GiB"),
        (1_000_000_000, 1_000_000_000, "GB"),
        (1 << 20, 1 << 20, "MiB"),
        (1_000_000, 1_000_000, "MB"),
        (1 << 10, 1 << 10, "KiB"),
        (1000, 10_000, "kB"),
    ];
    UNITS
        .iter()
        .find(|&&(unit, smallest, _)| bytes >= smallest && bytes.is_multiple_of(unit))
        .map(|&(unit, _, name)| format!("{} {name}", bytes / unit))
        .unwrap_or_else(|| format!("{bytes} B"))
}

/// The overview grid as a text table; `color` adds ANSI colours per severity,
/// without it the output holds no escape codes at all.
pub fn render(results: &Results, color: bool) -> String {
    let overview = overview(results);
    if overview.rows.is_empty() {
        return String::new();
    }
    let mut table = Table::new();
    style(&mut table);
    if color {
        table.enforce_styling();
    } else {
        table.force_no_tty();
    }
    table.style_text_only();
    let mut header = vec![Cell::new("collective")];
    header.extend(
        overview
            .sizes
            .iter()
            .map(|&s| Cell::new(size_label(s)).set_alignment(CellAlignment::Center)),
    );
    table.set_header(header);
    for row in &overview.rows {
        let mut cells = vec![Cell::new(&row.label)];
        cells.extend(row.marks.iter().zip(&row.wrong).map(|(&mark, &wrong)| {
            let label = format!("{}{}", mark.label(), if wrong { " !" } else { "" });
            paint(Cell::new(label).set_alignment(CellAlignment::Center), mark)
        }));
        table.add_row(cells);
    }
    format!("\nOverview: severity of the worst significantly faster competitor (ok: holds within the margin; inconclusive: this run could not tell; WRONG: the library's result; !: a competitor failed verification)\n{table}\n")
}

/// Green for ok, yellow to orange for the middling severities, red for the
/// high ones, reversed bold red for very-high.
fn paint(cell: Cell, mark: Mark) -> Cell {
    match mark {
        Mark::Blank => cell,
        Mark::Unmeasured | Mark::Inconclusive => cell.fg(Color::DarkGrey),
        Mark::Wrong => cell
            .fg(Color::Magenta)
            .add_attribute(Attribute::Bold)
            .add_attribute(Attribute::Reverse),
        Mark::Severity(severity) => match severity {
            Severity::Ok => cell.fg(Color::Green),
            Severity::Low => cell.fg(Color::Yellow),
            Severity::Medium => cell.fg(Color::DarkYellow),
            Severity::MediumHigh => cell.fg(Color::AnsiValue(208)),
            Severity::High => cell.fg(Color::Red).add_attribute(Attribute::Bold),
            Severity::VeryHigh => cell
                .fg(Color::Red)
                .add_attribute(Attribute::Bold)
                .add_attribute(Attribute::Reverse),
        },
    }
}

/// A hand-made run for the renderers' tests. Built from JSON, as
/// `results.json` would hold it, so that fields added with a serde default
/// elsewhere leave these tests alone.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::analyse::{CandidateSummary, Severity, Verdict};
    use crate::collective::Collective;
    use crate::meta::Meta;
    use crate::report::Results;
    use serde_json::{json, Value};

    fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> T {
        serde_json::from_value(value).expect("the fixture matches the types")
    }

    /// A measured candidate: median `m` µs against the default's
    /// `default_us`, raw p-value `p`, adjusted p-value `3p`.
    pub fn measured(name: &str, default_us: f64, m: f64, p: Option<f64>) -> CandidateSummary {
        let slowdown = default_us / m;
        let adjusted = p.map(|p| (p * 3.0).min(1.0));
        from_json(json!({
            "name": name,
            "status": "measured",
            "verified": true,
            "n": 100,
            "outliers_removed": 2,
            "median_s": m * 1e-6,
            "round_median_s": m * 1e-6,
            "rounds": 10,
            "q1_s": m * 0.95e-6,
            "q3_s": m * 1.1e-6,
            "slowdown": slowdown,
            "p_value": p,
            "p_adjusted": adjusted,
            "significant": adjusted.is_some_and(|p| p < 0.05) && slowdown > 1.0,
            "below_noise": ((default_us - m) * 1e-6).abs() < 0.5e-6,
        }))
    }

    pub fn excluded(name: &str, status: &str, reason: &str) -> CandidateSummary {
        from_json(json!({
            "name": name,
            "status": status,
            "reason": reason,
            "verified": status != "wrong",
            "n": 0,
            "outliers_removed": 0,
            "median_s": null,
            "q1_s": null,
            "q3_s": null,
            "slowdown": null,
            "p_value": null,
            "p_adjusted": null,
            "significant": false,
            "below_noise": false,
        }))
    }

    fn key(collective: Collective, size_bytes: u64, root: usize) -> Value {
        json!({
            "collective": collective,
            "size_bytes": size_bytes,
            "count": size_bytes,
            "datatype": "byte",
            "op": "bor",
            "root": root,
        })
    }

    /// A verdict whose default takes `default_us` and whose competitors
    /// take the given medians (µs) with the given raw p-values.
    pub fn check(
        collective: Collective,
        size_bytes: u64,
        root: usize,
        default_us: f64,
        competitors: &[(&str, f64, f64)],
        others: Vec<CandidateSummary>,
    ) -> Verdict {
        let mut candidates = vec![measured("default", default_us, default_us, None)];
        candidates.extend(
            competitors
                .iter()
                .map(|&(name, m, p)| measured(name, default_us, m, Some(p))),
        );
        candidates.extend(others);
        let competitors = || {
            candidates
                .iter()
                .filter(|c| c.name != "default" && c.median_s.is_some())
        };
        let fastest = competitors().min_by(|a, b| a.median_s.partial_cmp(&b.median_s).unwrap());
        let worst = competitors()
            .filter(|c| c.significant)
            .max_by(|a, b| a.slowdown.partial_cmp(&b.slowdown).unwrap());
        let shown = worst.or(fastest);
        let mut verdict = key(collective, size_bytes, root);
        let fields = json!({
            "verdict": if worst.is_some() { "violated" } else { "holds" },
            "candidates": candidates,
            "competitor": shown.map(|f| f.name.clone()),
            "competitor_median_s": shown.and_then(|f| f.median_s),
            "fastest": fastest.map(|f| f.name.clone()),
            "slowdown": shown.and_then(|f| f.slowdown),
            "p_value": shown.and_then(|f| f.p_adjusted),
            "sensitivity": 1.2,
            "severity": worst.map_or(Severity::Ok, |w| Severity::of_slowdown(w.slowdown.unwrap())),
            "violated_by": worst.map(|w| w.name.clone()),
        });
        verdict
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        from_json(verdict)
    }

    /// Allreduce at 8 B (ok) and 8 KiB (medium-high, with a wrong and a
    /// skipped competitor); bcast at 8 B only (very-high) and root 2;
    /// scatter at 1 MiB with the default never measured; a monotony
    /// violation of allreduce and a baseline regression of bcast.
    pub fn results() -> Results {
        let wrong = excluded(
            "allreduce_as_allreduce_lane",
            "wrong",
            "rank 3: element 17 is 4, expected 5",
        );
        let skipped = excluded(
            "allreduce_as_allreduce_hier",
            "skipped",
            "needs a commutative operator | not given",
        );
        let mut unmeasured = check(Collective::Scatter, 1 << 20, 0, 100.0, &[], vec![]);
        unmeasured.candidates = vec![excluded("default", "skipped", "interrupted")];
        unmeasured.conclusion = crate::analyse::Conclusion::Unmeasured;
        unmeasured.reason = Some("interrupted".into());
        let meta = Meta {
            tool: "pgcheck".into(),
            tool_version: "0.1.0".into(),
            mpi_library: "Open MPI v4.1.6 <test & build>\nsecond line".into(),
            processes: 8,
            nodes: 2,
            ppn: 4,
            budget_s: 1.0,
            rounds: 10,
            alpha: 0.05,
            test: "mwu".into(),
            correction: "holm".into(),
            plan_s: 12.0,
            wall_s: 12.4,
            noise_floor_s: 2e-6,
            ..Meta::default()
        };
        let checks = vec![
            check(
                Collective::Allreduce,
                8,
                0,
                10.0,
                &[
                    ("allreduce_as_reduce_bcast", 12.0, 0.9),
                    ("allreduce_as_reducescatter_allgather", 10.2, 0.3),
                ],
                vec![],
            ),
            check(
                Collective::Allreduce,
                8192,
                0,
                100.0,
                &[
                    ("allreduce_as_reduce_bcast", 120.0, 0.8),
                    ("allreduce_as_reducescatter_allgather", 55.0, 1e-6),
                ],
                vec![wrong, skipped],
            ),
            check(
                Collective::Bcast,
                8,
                2,
                600.0,
                &[("bcast_as_scatter_allgather", 100.0, 1e-9)],
                vec![],
            ),
            unmeasured,
        ];
        let with = |mut key: Value, fields: Value| {
            key.as_object_mut()
                .unwrap()
                .extend(fields.as_object().unwrap().clone());
            key
        };
        let monotony = with(
            key(Collective::Allreduce, 8192, 0),
            json!({"other_size_bytes": 8, "median_s": 5e-6, "bound_s": 10e-6, "ratio": 2.0,
                   "p_value": 1e-4, "severity": "medium-high"}),
        );
        let regression = with(
            key(Collective::Bcast, 8, 2),
            json!({"baseline_median_s": 300e-6, "median_s": 600e-6, "ratio": 2.0,
                   "p_value": 1e-5, "regression": true}),
        );
        from_json(json!({
            "meta": meta,
            "complete": true,
            "checks": checks,
            "guidelines": {"monotony": [monotony], "split_robustness": []},
            "baseline": {"baseline": "main/results.json", "tolerance": 0.05, "changes": [regression],
                         "only_in_baseline": [key(Collective::Gather, 8, 0)], "only_in_current": []},
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_every_cell_with_its_label() {
        let results = fixture::results();
        let overview = overview(&results);
        assert_eq!(overview.sizes, vec![8, 8192, 1 << 20]);
        let rows: Vec<(&str, Vec<&str>)> = overview
            .rows
            .iter()
            .map(|r| {
                (
                    r.label.as_str(),
                    r.marks.iter().map(|m| m.label()).collect(),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![
                ("allreduce", vec!["ok", "medium-high", ""]),
                ("bcast", vec!["very-high", "", ""]),
                ("scatter", vec!["", "", "n/a"]),
            ]
        );
        let text = render(&results, false);
        for word in [
            "allreduce",
            "bcast",
            "scatter",
            "8 B",
            "8 KiB",
            "1 MiB",
            "medium-high",
            "very-high",
            "n/a",
        ] {
            assert!(text.contains(word), "{word} missing in\n{text}");
        }
        let allreduce = text.lines().find(|l| l.contains("allreduce")).unwrap();
        assert!(allreduce.find(" ok ").unwrap() < allreduce.find("medium-high").unwrap());
    }

    #[test]
    fn colours_only_when_asked() {
        let results = fixture::results();
        assert!(!render(&results, false).contains('\x1b'));
        let coloured = render(&results, true);
        assert!(coloured.contains('\x1b'));
        assert!(coloured.contains("very-high"));
    }

    #[test]
    fn several_roots_get_a_row_each() {
        let mut results = fixture::results();
        let mut other_root = results.checks[2].clone();
        other_root.key.root = 5;
        other_root.severity = Severity::Low;
        results.checks.push(other_root);
        let labels: Vec<String> = overview(&results)
            .rows
            .into_iter()
            .map(|r| r.label)
            .collect();
        assert_eq!(
            labels,
            ["allreduce", "bcast root 2", "bcast root 5", "scatter"]
        );
    }

    #[test]
    fn the_worst_check_fills_a_shared_cell() {
        let mut results = fixture::results();
        let mut other_type = results.checks[0].clone();
        other_type.severity = Severity::High;
        results.checks.push(other_type);
        assert_eq!(
            overview(&results).rows[0].marks[0],
            Mark::Severity(Severity::High)
        );
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        let labels: Vec<String> = [0, 8, 1000, 1024, 10_000, 12_345, 65_536, 1 << 20, 3_000_000]
            .into_iter()
            .map(size_label)
            .collect();
        assert_eq!(
            labels,
            ["0 B", "8 B", "1000 B", "1 KiB", "10 kB", "12345 B", "64 KiB", "1 MiB", "3 MB"]
        );
    }

    #[test]
    fn an_empty_run_renders_nothing() {
        let mut results = fixture::results();
        results.checks.clear();
        assert_eq!(render(&results, true), "");
    }
}
