//! The report as GitHub-flavoured Markdown, for a CI job summary: a
//! writer of the document `sections::markdown` builds (and of `compare`'s
//! and `history`'s).

use super::document::{Align, Block, Icon, Line, Span};
use super::model::Mark;
use crate::analyse::{Results, Severity};

/// Headline, facts, overview grid, a table per collective with every
/// candidate folded away under it, violations, universal guidelines,
/// baseline.
pub fn render(results: &Results) -> String {
    let mut text = Vec::new();
    write_to(&mut text, results).expect("writing to memory");
    String::from_utf8(text).expect("Markdown is UTF-8")
}

/// [`render`] written to `out` a block at a time, as the document is built.
pub fn write_to(mut out: impl std::io::Write, results: &Results) -> std::io::Result<()> {
    for (i, b) in super::sections::markdown(results).enumerate() {
        if i > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(block(&b).as_bytes())?;
    }
    Ok(())
}

/// Blocks one blank line apart.
pub(crate) fn write(blocks: &[Block]) -> String {
    blocks.iter().map(block).collect::<Vec<_>>().join("\n")
}

fn block(block: &Block) -> String {
    match block {
        Block::Heading(2, line) => format!("## {}\n", spans(line)),
        Block::Heading(3, line) => format!("### {}\n", spans(line)),
        // A case's run-in heading stays out of the page's outline.
        Block::Heading(_, line) | Block::Paragraph(line) => format!("{}\n", spans(line)),
        Block::Warning(line) => format!("> {}{}\n", icon(Icon::Warning), spans(line)),
        Block::Table(t) => {
            let header: Vec<&str> = t.columns.iter().map(|(c, _)| c.as_str()).collect();
            let align: Vec<Align> = t.columns.iter().map(|(_, a)| *a).collect();
            let rows: Vec<Vec<String>> = t
                .rows
                .iter()
                .map(|row| row.iter().map(spans).collect())
                .collect();
            table(&header, &align, &rows)
        }
        Block::List(items) => items
            .iter()
            .map(|item| format!("- {}\n", spans(item)))
            .collect(),
        Block::Fold(summary, blocks) => format!(
            "<details><summary>{}</summary>\n\n{}\n</details>\n",
            text(summary),
            write(blocks)
        ),
    }
}

/// A line's spans with their markup; plain words escaped.
fn spans(line: &Line) -> String {
    line.0
        .iter()
        .map(|span| match span {
            Span::Plain(s) => text(s),
            Span::Code(s) => code(s),
            Span::Strong(s) => format!("**{}**", text(s)),
            Span::Mark(mark, s) => marked(*mark, s),
            Span::Icon(i) => icon(*i).to_string(),
            Span::Break => "<br>".to_string(),
        })
        .collect()
}

fn icon(icon: Icon) -> &'static str {
    match icon {
        Icon::Pass => "✅ ",
        Icon::Fail => "❌ ",
        Icon::Warning => "⚠️ ",
    }
}

/// Words that stand for a mark: an emoji for scanning, bold for a
/// violation and for a wrong library.
fn marked(mark: Mark, words: &str) -> String {
    let emoji = match mark {
        Mark::Blank => return text(words),
        Mark::Unmeasured => "⚪",
        Mark::Inconclusive => "❔",
        Mark::Wrong => "❌",
        Mark::Severity(Severity::Ok) => "✅",
        Mark::Severity(Severity::Low) => "🟡",
        Mark::Severity(Severity::Medium | Severity::MediumHigh) => "🟠",
        Mark::Severity(Severity::High) => "🔴",
        Mark::Severity(Severity::VeryHigh) => "⛔",
    };
    match mark {
        Mark::Wrong => format!("{emoji} **{}**", text(words)),
        Mark::Severity(severity) if severity != Severity::Ok => {
            format!("{emoji} **{}**", text(words))
        }
        _ => format!("{emoji} {}", text(words)),
    }
}

/// A GFM table; the header is escaped, the cells must be already.
fn table(header: &[&str], align: &[Align], rows: &[Vec<String>]) -> String {
    let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    let name = |h: &&str| h.split('\n').map(text).collect::<Vec<_>>().join("<br>");
    let mut out = line(header.iter().map(name).collect());
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
fn text(s: &str) -> String {
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

    /// Between launches, the baseline section says from which ratio a
    /// regression shows, per row and for the median and worst case.
    #[test]
    fn the_baseline_section_names_the_smallest_regression_it_could_show() {
        let mut results = fixture::results();
        let baseline = results.baseline.as_mut().unwrap();
        baseline.launches = 5;
        for (change, detectable) in baseline.changes.iter_mut().zip([1.25, 1.731]) {
            change.detectable = Some(detectable);
        }
        let md = render(&results);
        fixture::assert_contains(
            &md,
            &[
                "a regression shows from 1.49× in the median case, from 1.73× at MPI_Allreduce, 8 B (8 × byte, bor) (the worst); a smaller one stays hidden there, whatever the budget.",
                "| case | baseline | now | ratio | p-value | shows from | verdict |",
                "| MPI_Bcast, 8 B (8 × byte), root 2 | 300.00 µs | 600.00 µs | 2.000 | 1.00e-5 | 1.250 | regression |",
                "| MPI_Allreduce, 8 B (8 × byte, bor) | 10.00 µs | 14.00 µs | 1.400 | 2.00e-1 | 1.731 | not shown |",
            ],
        );
        let single = render(&fixture::results());
        assert!(!single.contains("shows from"), "one launch tests no spread");
    }

    /// A case slower beside its competitors only, in a launch named faster
    /// as a whole and `default` there no slower than the shift makes it:
    /// its row and the verdict say so, not that the spread hid it.
    #[test]
    fn a_case_slower_only_beside_its_references_says_so() {
        let mut results = fixture::results();
        let baseline = results.baseline.as_mut().unwrap();
        baseline.launches = 5;
        baseline.shift = Some(crate::analyse::baseline::Shift {
            factor: 0.7,
            p_value: 1e-4,
            significant: true,
        });
        baseline.changes.retain(|c| !c.regression);
        let unshown = &mut baseline.changes[0];
        (unshown.ratio, unshown.normalised_ratio) = (0.72, Some(1.4));
        let md = render(&results);
        fixture::assert_contains(
            &md,
            &[
                "Compared with `main/results.json`: 1 case, tolerance 5.0 %.",
                "No regression shown: 1 case(s) slower by more than 5 % beside their references only, the library's own call no slower than its usual time (than the launch's shift makes it, where the launch ran faster as a whole).",
                "| 1.400 | 2.00e-1 | not slower in its own time |",
            ],
        );
        // Slower than the shift makes it: the spread hid it.
        let baseline = results.baseline.as_mut().unwrap();
        baseline.changes[0].ratio = 0.9;
        fixture::assert_contains(
            &render(&results),
            &[
                "| 1.400 | 2.00e-1 | not shown |",
                "No regression shown, but 1 case(s) slower",
            ],
        );
    }

    #[test]
    fn has_meta_overview_tables_and_violations() {
        let md = render(&fixture::results());
        fixture::assert_contains(
            &md,
            &[
                "## pgcheck: ❌ **wrong results in 1 case(s)**, ❌ guideline violations, worst **very-high** (1 hold, 0 inconclusive, 1 unmeasured)",
                "| MPI library | Open MPI v4.1.6 &lt;test &amp; build&gt; |",
                "| processes | 8 = 2 nodes × 4 ppn |",
                "α = 0.05",
                "| time | plan 12.0 s, wall 12.4 s |",
                "| complete | yes |",
                "### Overview",
                "| collective | 8 B | 8 KiB | 1 MiB |",
                "| allreduce | ✅ ok | 🟠 **medium-high** ! |  |",
                "| bcast | ⛔ **very-high** |  |  |",
                "| scatter |  |  | ⚪ n/a |",
                "### MPI_Allreduce\n\n| size [B] | n | default | slowdown | competitor | p-value | verdict |",
                "| 8192 | 100 | 100.00 µs | 1.818 | `reducescatter_allgather` | 3.00e-6 | 🟠 **violated · medium-high** ! |",
                "| 8 | 100 | 10.00 µs | 0.980\\~ | `reducescatter_allgather` | 9.00e-1 | ✅ holds |",
                "- ! 8192 B: allreduce_as_allreduce_lane failed verification: rank 3: element 17 is 4, expected 5",
                "### MPI_Bcast, root 2",
                "- `allreduce_lane`: wrong: rank 3: element 17 is 4, expected 5",
                "needs a commutative operator \\| not given",
                "### Violations",
                "worst **very-high** (1 hold, 0 inconclusive, 1 unmeasured), ❌ 1 regression(s) against the baseline, ⚠️ 1 case(s) slower than the baseline's tolerance, not shown a regression\n",
                "### Universal guidelines (PGMPI)",
                "| monotony | allreduce | 8192 | 8 B | apart | 5.00 µs | 10.00 µs | 2.000 | 1.00e-4 | 🟠 **medium-high** |",
                "### Baseline\n\nCompared with `main/results.json`: 2 cases, tolerance 5.0 %.",
                "1 regression(s) of the library's own collectives; 1 more case(s) slower by more than 5 %, not shown.",
                "| MPI_Bcast, 8 B (8 × byte), root 2 | 300.00 µs | 600.00 µs | 2.000 | 1.00e-5 | regression |",
                "| MPI_Allreduce, 8 B (8 × byte, bor) | 10.00 µs | 14.00 µs | 1.400 | 2.00e-1 | not shown |",
                "Only in the baseline: MPI_Gather, 8 B per process (8 × byte), root 0",
                "Violations: 1 removed, 1 remaining, 0 new.",
                "| removed | MPI_Allreduce, 8 B (8 × byte, bor) | 4 of 5 | violated by library_ring (1.500×, medium) | holds |  |",
                "| remaining | MPI_Bcast, 8 B (8 × byte), root 2 | 5 of 5 | violated by library_binomial (3.000×, high) | violated by scatter_allgather (6.000×, very-high) | only a new algorithm beats the library: scatter_allgather (mockup) |",
                "| MPI_Bcast, 8 B (8 × byte), root 2 | `bcast_as_scatter_allgather` | 600.00 µs | 100.00 µs | 6.000 | 3.00e-9 | ⛔ **very-high** |",
            ],
        );
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
        let results = fixture::results_noisy();
        let md = render(&results);
        let headline = &md[..md.find("| MPI library").unwrap()];
        assert!(
            headline.contains("> ⚠️ **noisy run: 3 of 3 cases undecided and unable to flag 1.1× (twice the --margin's excess), more than half; median case sensitivity 1.200×"),
            "{headline}"
        );
        assert!(
            md.contains("| noise | **noisy**: 3 of 3 cases undecided"),
            "{md}"
        );
        assert_eq!(md.matches("| candidate | model | λ | fit p | window | t_min | mean error | t_max | empirical | above t_max | overhead |").count(), 3);
        assert!(md.contains("| `reduce_bcast` | exponential |"), "{md}");
        assert_tables_are_whole(&md);
    }
}
