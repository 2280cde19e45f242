//! The whole report as GitHub-flavoured Markdown, for a CI job summary.

use super::model::{self as details, overview, seconds, size_label, Mark, Universal, LEGEND};
use crate::analyse::Results;
use crate::analyse::{CaseKey, Conclusion, NoiseVerdict, Severity, Verdict};
use crate::collective::Collective;

/// Meta, overview grid, one Figure-2 table per collective with every
/// candidate folded away under it, and the list of violations.
pub fn render(results: &Results) -> String {
    let mut out = headline(results);
    out += &meta_table(results);
    if results.checks.is_empty() {
        out += "\nNo checks ran.\n";
        return out;
    }
    out += &overview_table(results);
    for (collective, checks) in details::by_collective(results) {
        out += &collective_section(results, collective, &checks);
    }
    out += &violations(results);
    out += &universal_guidelines(results);
    out += &baseline(results);
    out
}

/// The one line a reader of a CI summary needs first.
fn headline(results: &Results) -> String {
    let worst = results.worst();
    let count = |conclusion: Conclusion| {
        results
            .checks
            .iter()
            .filter(|c| c.conclusion == conclusion)
            .count()
    };
    let wrong = results
        .checks
        .iter()
        .filter(|c| c.candidates.iter().any(|c| c.outcome.is_wrong()))
        .count();
    let mut verdict = if worst == Severity::Ok {
        "✅ no guideline violations".to_string()
    } else {
        format!("❌ guideline violations, worst **{}**", worst.label())
    };
    if wrong > 0 {
        verdict = format!("❌ **wrong results in {wrong} case(s)**, {verdict}");
    }
    verdict += &format!(
        " ({} hold, {} inconclusive, {} unmeasured)",
        count(Conclusion::Holds),
        count(Conclusion::Inconclusive),
        count(Conclusion::Unmeasured)
    );
    let regressions = results
        .baseline
        .as_ref()
        .map_or(0, |b| b.regressions().count());
    let mut regressions = match regressions {
        0 => String::new(),
        n => format!(", ❌ {n} regression(s) against the baseline"),
    };
    if let Some(shift) = results
        .baseline
        .as_ref()
        .and_then(|b| b.shift)
        .filter(|s| s.significant)
    {
        regressions += &format!(
            ", ⚠️ the whole machine {:.2}× the baseline launches",
            shift.factor
        );
    }
    let incomplete = if results.complete {
        ""
    } else {
        " (⚠️ incomplete run)"
    };
    let mut warnings: String = results
        .meta
        .warnings
        .iter()
        .map(|w| format!("> ⚠️ {}\n\n", text(w)))
        .collect();
    if let Some((NoiseVerdict::Noisy, line)) = details::noise_line(results) {
        warnings += &format!("> ⚠️ **{}**\n\n", text(&line));
    }
    let summary = format!("{verdict}{regressions}{incomplete}");
    match &results.exit {
        // The exit status first: what a CI job did with this run.
        Some(exit) => {
            let icon = match exit.status {
                0 => "✅",
                9 => "⚠️",
                _ => "❌",
            };
            format!(
                "## pgcheck: {icon} exit {} ({}): {}\n\n{summary}\n\n{warnings}",
                exit.status,
                text(&exit.meaning),
                text(&exit.reason)
            )
        }
        None => format!("## pgcheck: {summary}\n\n{warnings}"),
    }
}

fn meta_table(results: &Results) -> String {
    let meta = &results.meta;
    let mut rows: Vec<(&str, String)> = vec![
        (
            "MPI library",
            text(meta.mpi_library.lines().next().unwrap_or("-")),
        ),
        (
            "processes",
            format!(
                "{} = {} node(s) × {} ppn{}",
                meta.processes,
                meta.nodes,
                meta.ppn,
                if meta.virtual_nodes {
                    " (virtual nodes)"
                } else {
                    ""
                }
            ),
        ),
        (
            "budget",
            format!(
                "{} per candidate and size, {} rounds, {} warm-up",
                seconds(meta.budget_s),
                meta.rounds,
                meta.warmup
            ),
        ),
        (
            "decision",
            format!(
                "{} test, α = {}, correction {}, outliers {}",
                text(&meta.test),
                meta.alpha,
                text(&meta.correction),
                text(&meta.outliers)
            ),
        ),
        (
            "synchronisation",
            format!(
                "{}, noise floor {}",
                text(&meta.sync_text()),
                seconds(meta.noise_floor_s)
            ),
        ),
        (
            "time",
            format!("plan {:.1} s, wall {:.1} s", meta.plan_s, meta.wall_s),
        ),
    ];
    if let Some(placement) = meta.placement.summary(meta.processes) {
        rows.push(("placement", text(&placement)));
    }
    if let Some(noise) = &meta.noise {
        let verdict = match noise.verdict {
            NoiseVerdict::Noisy => "**noisy**",
            NoiseVerdict::Quiet => "quiet",
        };
        rows.push(("noise", format!("{verdict}: {}", text(&noise.reason))));
    }
    rows.extend([
        (
            "complete",
            if results.complete {
                "yes".into()
            } else {
                "**no**: the run ended before its last check (interrupted, or stopped at a wrong result); only what was measured is shown".into()
            },
        ),
        (
            "pgcheck",
            match &meta.git_revision {
                Some(revision) => format!("{} ({})", text(&meta.tool_version), code(revision)),
                None => text(&meta.tool_version),
            },
        ),
    ]);
    if !meta.start_time.is_empty() {
        rows.push(("started", text(&meta.start_time)));
    }
    if !meta.hosts.is_empty() {
        rows.push(("hosts", text(&meta.hosts.join(", "))));
    }
    if !meta.environment.is_empty() {
        let variables: Vec<String> = meta
            .environment
            .iter()
            .map(|(k, v)| code(&format!("{k}={v}")))
            .collect();
        rows.push(("environment", variables.join(" ")));
    }
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(k, v)| vec![k.to_string(), v])
        .collect();
    table(&["", ""], &[Align::Left, Align::Left], &rows)
}

/// A severity as a cell: an emoji for scanning, bold for violations.
pub(crate) fn mark_cell(mark: Mark) -> String {
    match mark {
        Mark::Blank => String::new(),
        Mark::Unmeasured => "⚪ n/a".into(),
        Mark::Inconclusive => "❔ inconclusive".into(),
        Mark::Wrong => "❌ **WRONG**".into(),
        Mark::Severity(Severity::Ok) => "✅ ok".into(),
        Mark::Severity(severity) => {
            let emoji = match severity {
                Severity::Ok | Severity::Low => "🟡",
                Severity::Medium | Severity::MediumHigh => "🟠",
                Severity::High => "🔴",
                Severity::VeryHigh => "⛔",
            };
            format!("{emoji} **{}**", severity.label())
        }
    }
}

fn overview_table(results: &Results) -> String {
    let overview = overview(results);
    let mut header = vec!["collective".to_string()];
    header.extend(overview.sizes.iter().map(|&s| size_label(s)));
    let rows: Vec<Vec<String>> = overview
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![text(&row.label)];
            cells.extend(row.marks.iter().map(|&m| mark_cell(m)));
            cells
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut align = vec![Align::Center; header.len()];
    align[0] = Align::Left;
    format!(
        "\n### Overview\n\nSeverity of the worst competitor significantly faster by more than the margin per collective and size.\n\n{}",
        table(&header, &align, &rows)
    )
}

/// One check as a row of MPINPC's Figure 2, the competitor as code and the
/// severity marked.
fn figure2_row(results: &Results, check: &Verdict) -> Vec<String> {
    let mut row = details::figure2_row(results, check);
    if let Some(competitor) = &check.competitor {
        row[7] = code(competitor);
    }
    row[10] = mark_cell(Mark::of(check));
    row
}

fn collective_section(results: &Results, collective: Collective, checks: &[&Verdict]) -> String {
    let mut roots: Vec<usize> = checks.iter().map(|c| c.key.root).collect();
    roots.sort_unstable();
    roots.dedup();
    let several_roots = collective.is_rooted() && roots.len() > 1;
    let mut header: Vec<&str> = details::FIGURE2.to_vec();
    let mut align: Vec<Align> = details::FIGURE2
        .iter()
        .map(|&c| Align::numeric(!matches!(c, "competitor" | "severity" | "verdict")))
        .collect();
    if several_roots {
        header.insert(0, "root");
        align.insert(0, Align::Right);
    }
    let rows: Vec<Vec<String>> = checks
        .iter()
        .map(|check| {
            let mut row = figure2_row(results, check);
            if several_roots {
                row.insert(0, check.key.root.to_string());
            }
            row
        })
        .collect();
    let root = match roots.as_slice() {
        [root] if collective.is_rooted() => format!(", root {root}"),
        _ => String::new(),
    };
    let mut out = format!("\n### {}{root}\n\n", collective.mpi_name());
    out += &table(&header, &align, &rows);
    let notes = details::notes(checks);
    if !notes.is_empty() {
        out += "\n";
        for line in notes.lines() {
            out += &format!("- {}\n", text(line.trim()));
        }
    }
    out += &format!(
        "\n<details><summary>Every candidate of {}</summary>\n",
        collective.mpi_name()
    );
    for check in checks {
        out += &candidates(results, check);
    }
    out += &format!("\n{}\n\n</details>\n", text(LEGEND));
    out
}

/// MPINPC's Figure 5 for one check, as `details::render` prints it, and
/// the candidates' usual times.
fn candidates(results: &Results, check: &Verdict) -> String {
    let adjusted = details::has_adjusted(check);
    let header = details::header(adjusted);
    let align: Vec<Align> = header
        .iter()
        .map(|c| Align::numeric(details::is_numeric(c)))
        .collect();
    let ranked = details::ranked(check);
    let rows: Vec<Vec<String>> = ranked
        .measured
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut row = details::row(c, i + 1, adjusted);
            row[1] = code(&row[1]);
            row.iter_mut().skip(2).for_each(|cell| *cell = text(cell));
            row
        })
        .collect();
    let mut out = format!(
        "\n**{}**: {}\n\n",
        text(&details::title(check)),
        text(&details::verdict_line(check))
    );
    if !rows.is_empty() {
        out += &table(&header, &align, &rows);
    }
    if !ranked.unmeasured.is_empty() {
        out.push('\n');
        for candidate in &ranked.unmeasured {
            out += &format!(
                "- {}: {}\n",
                code(&candidate.name),
                text(&details::why_unmeasured(candidate))
            );
        }
    }
    let usual: Vec<Vec<String>> = ranked
        .measured
        .iter()
        .filter_map(|c| details::usual_row(c))
        .map(|mut row| {
            row[0] = code(&row[0]);
            row.iter_mut().skip(1).for_each(|cell| *cell = text(cell));
            row
        })
        .collect();
    if !usual.is_empty() {
        let align: Vec<Align> = details::USUAL_COLUMNS
            .iter()
            .map(|&c| Align::numeric(!matches!(c, "candidate" | "model")))
            .collect();
        out += &format!("\n{}\n\n", text(&details::usual_title(results)));
        out += &table(&details::USUAL_COLUMNS, &align, &usual);
    }
    out
}

/// Every significantly faster competitor, worst first.
fn violations(results: &Results) -> String {
    let mut found: Vec<(&Verdict, &crate::analyse::CandidateSummary)> = results
        .checks
        .iter()
        .flat_map(|check| {
            check
                .candidates
                .iter()
                .filter(|c| c.significant)
                .map(move |c| (check, c))
        })
        .collect();
    if found.is_empty() {
        return "\n### Violations\n\nNone: no competitor was significantly faster than the library's own collective.\n"
            .into();
    }
    found.sort_by(|a, b| {
        b.1.slowdown
            .partial_cmp(&a.1.slowdown)
            .expect("slowdowns are numbers")
    });
    let rows: Vec<Vec<String>> = found
        .into_iter()
        .map(|(check, c)| {
            let default = check.default_candidate().and_then(|d| d.median_s);
            let slowdown = c.slowdown.unwrap_or(1.0);
            vec![
                text(&details::title(check)),
                code(&c.name),
                default.map_or("-".into(), seconds),
                c.median_s.map_or("-".into(), seconds),
                format!("{slowdown:.3}"),
                c.p_adjusted
                    .or(c.p_value)
                    .map_or("-".into(), |p| format!("{p:.2e}")),
                mark_cell(Mark::Severity(Severity::of_slowdown(slowdown))),
            ]
        })
        .collect();
    format!(
        "\n### Violations\n\n{}",
        table(
            &[
                "check",
                "competitor",
                "default",
                "competitor's median",
                "slowdown",
                "p-value",
                "severity"
            ],
            &[
                Align::Left,
                Align::Left,
                Align::Right,
                Align::Right,
                Align::Right,
                Align::Right,
                Align::Left
            ],
            &rows,
        )
    )
}

/// PGMPI's monotony and split-robustness of `default`, as
/// `table::render_guidelines` prints them.
fn universal_guidelines(results: &Results) -> String {
    let (pairs, findings) = details::universal_findings(results);
    if pairs == 0 && findings.is_empty() {
        return String::new();
    }
    let mut out = "\n### Universal guidelines (PGMPI)\n\n".to_string();
    if findings.is_empty() {
        out += &format!(
            "Monotony holds for all {pairs} pairs of consecutive sizes; split-robustness holds.\n"
        );
        return out;
    }
    let rows: Vec<Vec<String>> = findings
        .into_iter()
        .map(|(guideline, f)| {
            let name = match guideline {
                Universal::Monotony => "monotony",
                Universal::SplitRobustness => "split-robustness",
            };
            let [collective, cells @ ..] = details::finding_row(f);
            let mut row = vec![name.to_string(), text(&collective)];
            row.extend(cells);
            row.push(mark_cell(Mark::Severity(f.severity)));
            row
        })
        .collect();
    use Align::{Left, Right};
    out += &table(
        &details::FINDING_COLUMNS,
        &[
            Left, Left, Right, Right, Left, Right, Right, Right, Right, Left,
        ],
        &rows,
    );
    out += &format!("\n{}\n", details::FINDING_ROUNDS);
    out
}

/// The comparison with `--baseline`: regressions of `default`, and the
/// cases only one of the runs has.
fn baseline(results: &Results) -> String {
    let Some(b) = &results.baseline else {
        return String::new();
    };
    let mut out = format!(
        "\n### Baseline\n\nCompared with {}: {} cases, tolerance {:.1} %.\n\n",
        code(&b.baseline),
        b.changes.len(),
        b.tolerance * 100.0
    );
    for note in details::baseline_notes(b) {
        out += &format!("{}\n\n", text(&note));
    }
    let rows: Vec<Vec<String>> = b
        .regressions()
        .map(|c| {
            let (ratio, p_value) = details::regression_numbers(c);
            vec![
                text(&details::title_of(&c.key)),
                seconds(c.baseline_median_s),
                seconds(c.median_s),
                ratio,
                p_value,
            ]
        })
        .collect();
    if rows.is_empty() {
        out += "No regression of the library's own collectives.\n";
    } else {
        use Align::{Left, Right};
        out += &table(
            &["regression", "baseline", "now", "ratio", "p-value"],
            &[Left, Right, Right, Right, Right],
            &rows,
        );
    }
    out += &violation_changes(b);
    let list = |keys: &[CaseKey]| {
        keys.iter()
            .map(|k| text(&details::title_of(k)))
            .collect::<Vec<_>>()
            .join("; ")
    };
    if !b.only_in_baseline.is_empty() {
        out += &format!("\nOnly in the baseline: {}\n", list(&b.only_in_baseline));
    }
    if !b.only_in_current.is_empty() {
        out += &format!("\nOnly in this run: {}\n", list(&b.only_in_current));
    }
    out
}

/// The baseline's violations this run removed, those that remain (and
/// what still beats `default`), and new ones.
fn violation_changes(b: &crate::analyse::baseline::Comparison) -> String {
    use crate::analyse::baseline::Transition;
    use crate::report::model::{violation_note, violation_side};
    let count = |kind| b.violations_of(kind).count();
    let mut out = format!(
        "\nViolations: {} removed, {} remaining, {} new.\n",
        count(Transition::Removed),
        count(Transition::Remaining),
        count(Transition::New)
    );
    let rows: Vec<Vec<String>> = Transition::ALL
        .into_iter()
        .flat_map(|kind| b.violations_of(kind).map(move |v| (kind, v)))
        .map(|(kind, v)| {
            vec![
                kind.label().to_string(),
                text(&details::title_of(&v.key)),
                text(&violation_side(&v.baseline)),
                text(&violation_side(&v.now)),
                text(&violation_note(v)),
            ]
        })
        .collect();
    if !rows.is_empty() {
        use Align::Left;
        out += "\n";
        out += &table(
            &[
                "violation",
                "case",
                "baseline",
                "now",
                "what beats default now",
            ],
            &[Left; 5],
            &rows,
        );
    }
    out
}

/// How a column's cells line up.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Align {
    Left,
    Right,
    Center,
}

impl Align {
    /// Right for numbers, left for words.
    fn numeric(numeric: bool) -> Align {
        if numeric {
            Align::Right
        } else {
            Align::Left
        }
    }
}

/// A GFM table; the header is escaped, the cells must be already.
pub(crate) fn table(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let mut out = line(header.iter().map(|h| text(h)).collect());
    out += &line(
        align
            .iter()
            .map(|a| match a {
                Align::Left => "---".to_string(),
                Align::Right => "---:".to_string(),
                Align::Center => ":---:".to_string(),
            })
            .collect(),
    );
    for row in rows {
        out += &line(row.clone());
    }
    out
}

/// Text safe in a table cell: no HTML, no emphasis, no cell breaks, one line.
pub(crate) fn text(s: &str) -> String {
    let mut escaped = String::with_capacity(s.len());
    for c in s.chars() {
        // Not `_`: GFM ignores it inside words, and `MPI_Bcast` stays readable.
        if matches!(c, '\\' | '*' | '~' | '`') {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// A name as inline code; code spans show entities literally, so only the
/// cell separator is escaped.
fn code(s: &str) -> String {
    format!(
        "`{}`",
        s.replace('`', "'")
            .replace('|', "\\|")
            .replace(['\n', '\r'], " ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

    #[test]
    fn has_meta_overview_tables_and_violations() {
        let md = render(&fixture::results());
        for part in [
            "## pgcheck: ❌ **wrong results in 1 case(s)**, ❌ guideline violations, worst **very-high** (1 hold, 0 inconclusive, 1 unmeasured)",
            "| MPI library | Open MPI v4.1.6 &lt;test &amp; build&gt; |",
            "| processes | 8 = 2 node(s) × 4 ppn |",
            "α = 0.05",
            "| time | plan 12.0 s, wall 12.4 s |",
            "| complete | yes |",
            "### Overview",
            "| collective | 8 B | 8 KiB | 1 MiB |",
            "| allreduce | ✅ ok | 🟠 **medium-high** |  |",
            "| bcast | ⛔ **very-high** |  |  |",
            "| scatter |  |  | ⚪ n/a |",
            "### MPI_Allreduce\n\n| size [B] | count | N | ppn | n | default | slowdown | competitor | its median | p-value | severity | verdict | sensitivity |",
            "| 8192 | 8192 | 2 | 4 | 100 | 100.00 µs | 1.818 | `allreduce_as_reducescatter_allgather` | 55.00 µs | 3.00e-6 | 🟠 **medium-high** | violated ! | 1.20× |",
            "- ! 8192 B: allreduce_as_allreduce_lane failed verification: rank 3: element 17 is 4, expected 5",
            "### MPI_Bcast, root 2",
            "- `allreduce_as_allreduce_lane`: wrong: rank 3: element 17 is 4, expected 5",
            "needs a commutative operator \\| not given",
            "### Violations",
            "worst **very-high** (1 hold, 0 inconclusive, 1 unmeasured), ❌ 1 regression(s) against the baseline\n",
            "### Universal guidelines (PGMPI)",
            "| monotony | allreduce | 8192 | 8 B | apart | 5.00 µs | 10.00 µs | 2.000 | 1.00e-4 | 🟠 **medium-high** |",
            "### Baseline\n\nCompared with `main/results.json`: 1 cases, tolerance 5.0 %.",
            "| MPI_Bcast, 8 B (8 × byte), root 2 | 300.00 µs | 600.00 µs | 2.000 | 1.00e-5 |",
            "Only in the baseline: MPI_Gather, 8 B per process (8 × byte), root 0",
            "Violations: 1 removed, 1 remaining, 0 new.",
            "| removed | MPI_Allreduce, 8 B (8 × byte, bor) | violated by allreduce_as_library_ring (1.500×, medium) | holds |  |",
            "| remaining | MPI_Bcast, 8 B (8 × byte), root 2 | violated by bcast_as_library_binomial (3.000×, high) | violated by bcast_as_scatter_allgather (6.000×, very-high) | only a new algorithm beats the library: bcast_as_scatter_allgather (mockup) |",
            "| MPI_Bcast, 8 B (8 × byte), root 2 | `bcast_as_scatter_allgather` | 600.00 µs | 100.00 µs | 6.000 | 3.00e-9 | ⛔ **very-high** |",
        ] {
            assert!(md.contains(part), "{part}\nmissing in\n{md}");
        }
        let violations = &md[md.find("### Violations").unwrap()..];
        assert!(violations.find("bcast_as").unwrap() < violations.find("allreduce_as").unwrap());
        assert!(!violations.contains("allreduce_as_reduce_bcast"));
    }

    /// Every row of every table has its header's number of cells.
    fn assert_tables_are_whole(md: &str) {
        let mut columns = None;
        for line in md.lines() {
            if !line.starts_with('|') {
                columns = None;
                continue;
            }
            let cells = line.replace("\\|", "").matches('|').count();
            assert_eq!(*columns.get_or_insert(cells), cells, "{line}");
        }
    }

    #[test]
    fn every_table_row_has_the_header_s_cell_count() {
        assert_tables_are_whole(&render(&fixture::results()));
    }

    #[test]
    fn says_so_when_all_is_well_or_incomplete() {
        let mut results = fixture::results();
        results.checks.truncate(1);
        results.guidelines.monotony.clear();
        results.baseline = None;
        results.complete = false;
        let md = render(&results);
        assert!(md.starts_with(
            "## pgcheck: ✅ no guideline violations (1 hold, 0 inconclusive, 0 unmeasured) (⚠️ incomplete run)"
        ));
        assert!(md.contains("| complete | **no**"));
        assert!(md.contains("### Violations\n\nNone"));
        results.checks.clear();
        assert!(render(&results).contains("No checks ran."));
    }

    #[test]
    fn the_headline_says_what_the_exit_status_says() {
        let mut results = fixture::results();
        results.exit = Some(crate::analyse::ExitStatus {
            status: 9,
            meaning: "undecided".into(),
            reason: "6 of 10 cases inconclusive or powerless".into(),
        });
        let md = render(&results);
        assert!(
            md.starts_with(
                "## pgcheck: ⚠️ exit 9 (undecided): 6 of 10 cases inconclusive or powerless\n\n\
                 ❌ **wrong results in 1 case(s)**, ❌ guideline violations"
            ),
            "{md}"
        );
    }

    #[test]
    fn says_when_the_run_was_noisy_and_shows_usual_times() {
        let md = render(&fixture::results());
        assert!(!md.contains("noisy") && !md.contains("| noise |") && !md.contains("usual times"));
        let results = fixture::results_with_usual();
        let md = render(&results);
        let headline = &md[..md.find("| MPI library").unwrap()];
        assert!(
            headline.contains("> ⚠️ **noisy run: median case sensitivity 1.200× &gt; 1.1× asked about (twice the --margin's excess)"),
            "{headline}"
        );
        assert!(
            md.contains("| noise | **noisy**: median case sensitivity"),
            "{md}"
        );
        assert_eq!(md.matches("| candidate | model | λ | fit p | window | t_min | mean error | t_max | empirical | above t_max | overhead |").count(), 3);
        assert!(
            md.contains("| `allreduce_as_reduce_bcast` | exponential |"),
            "{md}"
        );
        assert_tables_are_whole(&md);
    }
}
