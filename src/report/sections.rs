//! `run`'s and `analyze`'s report as one document (`document`): every
//! section is built here once, from the pieces of `model`, and the terminal
//! and Markdown documents are the same sections in each format's order.
//! Markdown, a CI summary read alone, leads with a headline and the run's
//! facts and folds every candidate away; the terminal, read under the plan,
//! leads with the run's settings and ends with the overview grid.

use super::answer;
use super::document::{Align, Block, Icon, Line, Table};
use super::model::{self, seconds, size_label, Mark, Universal, LEGEND};
use crate::analyse::baseline::{Change, Comparison, Transition};
use crate::analyse::{
    CaseKey, Conclusion, ExitStatus, NoiseVerdict, Overlap, Results, Severity, Verdict,
};
use crate::meta::Meta;
use crate::operation::Operation;

/// The Markdown report: headline, facts, overview, a section per
/// collective with its candidates folded, violations, universal
/// guidelines, baseline.
pub fn markdown(results: &Results) -> impl Iterator<Item = Block> + '_ {
    let mut head = headline(results);
    head.push(Block::Table(facts(results)));
    let measured = !results.checks.is_empty();
    match measured {
        true => head.extend(overview(results)),
        false => head.push(Block::Paragraph("No checks ran.".into())),
    }
    // A collective's blocks at a time: all of them at once, for 1,000
    // checks, took rank 0 9 MB at the end of the run. Without checks there
    // are no collectives.
    let collectives = model::by_operation(results)
        .into_iter()
        .flat_map(move |(collective, checks)| collective_blocks(results, collective, &checks));
    let tail = std::iter::once_with(move || match measured {
        true => [
            violations(results),
            universal_guidelines(results),
            overlap(results),
            baseline(results),
        ]
        .concat(),
        false => Vec::new(),
    });
    head.into_iter().chain(collectives).chain(tail.flatten())
}

/// A collective's Markdown section, with its candidates folded.
fn collective_blocks(results: &Results, collective: Operation, checks: &[&Verdict]) -> Vec<Block> {
    let mut blocks = collective_section(results, collective, checks);
    let mut fold: Vec<Block> = checks
        .iter()
        .flat_map(|check| candidates(results, check))
        .collect();
    fold.push(Block::Paragraph(LEGEND.into()));
    blocks.push(Block::Fold(
        format!("Every candidate of {}", collective.mpi_name()),
        fold,
    ));
    blocks
}

/// Above this many cases the compact terminal report ends its table with
/// the overview grid too: the table no longer fits a screen.
const GRID_FROM: usize = 16;

/// The terminal report: the run's settings, every case in one table with
/// the notes summarised (with `details`: a table per collective with a
/// note per case, and every candidate), universal guidelines, baseline,
/// then the answer, which holds the warnings.
pub fn terminal(results: &Results, details: bool) -> Vec<Block> {
    let measured = !results.checks.is_empty();
    let mut blocks = Vec::new();
    if details {
        blocks.extend(settings(results));
        for (collective, checks) in model::by_operation(results) {
            blocks.extend(collective_section(results, collective, &checks));
        }
    } else {
        blocks.push(reading(results));
        if measured {
            blocks.push(Block::Table(cases_table(results)));
        }
        let notes = answer::summarised_notes(results);
        if !notes.is_empty() {
            blocks.push(Block::List(notes));
        }
    }
    blocks.extend(universal_guidelines(results));
    blocks.extend(overlap(results));
    blocks.extend(baseline(results));
    if details && measured {
        for check in &results.checks {
            blocks.extend(candidates(results, check));
        }
        blocks.push(Block::Paragraph(LEGEND.into()));
    }
    if measured && (details || results.checks.len() > GRID_FROM) {
        blocks.extend(overview(results));
    }
    blocks.extend(answer::answer(results));
    blocks
}

/// Every case a row: the collective (and root), the size, and MPINPC's
/// Figure 2 columns but the observation count and the p-value (the
/// verdict holds the test's answer; `--details` shows both).
pub fn cases_table(results: &Results) -> Table {
    let mut table = Table::new([
        ("collective", Align::Left),
        ("size", Align::Right),
        ("default", Align::Right),
        ("slowdown", Align::Right),
        ("competitor", Align::Left),
        ("verdict", Align::Left),
    ]);
    for (_, checks) in model::by_operation(results) {
        for check in checks {
            let mut row = vec![Line::plain(answer::collective_label(check))];
            row.push(Line::plain(model::case_size_label(&check.key)));
            let mut figure2 = figure2_row(check);
            figure2.remove(4);
            row.extend(figure2.into_iter().skip(1));
            table.push(row);
        }
    }
    table
}

/// The one line a reader of a CI summary needs first, then the warnings.
fn headline(results: &Results) -> Vec<Block> {
    let mut summary = verdicts_line(results);
    if let Some(b) = &results.baseline {
        summary = against_baseline(summary, b);
    }
    if !results.complete {
        summary = summary
            .and(" (")
            .and_icon(Icon::Warning)
            .and("incomplete run)");
    }
    let mut blocks = match &results.exit {
        // The exit status first: what a CI job did with this run.
        Some(exit) => vec![
            Block::Heading(2, exit_line(exit)),
            Block::Paragraph(summary),
        ],
        None => {
            let mut heading = Line::plain("pgcheck: ");
            heading.0.extend(summary.0);
            vec![Block::Heading(2, heading)]
        }
    };
    for warning in &results.meta.warnings {
        blocks.push(Block::Warning(Line::plain(warning.as_str())));
    }
    if let Some((NoiseVerdict::Noisy, line)) = model::noise_line(results) {
        blocks.push(Block::Warning(Line::default().and_strong(line)));
    }
    blocks
}

/// The cases with wrong results, the worst violation and how many checks
/// came to each other conclusion.
fn verdicts_line(results: &Results) -> Line {
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
    let mut summary = Line::default();
    if wrong > 0 {
        summary = summary
            .and_icon(Icon::Fail)
            .and_strong(format!("wrong results in {wrong} case(s)"))
            .and(", ");
    }
    summary = match (results.worst_gated(), results.worst()) {
        (Severity::Ok, Severity::Ok) => summary.and_icon(Icon::Pass).and("no guideline violations"),
        (Severity::Ok, worst) => summary
            .and_icon(Icon::Warning)
            .and("guideline violations within the noise floor only (~, not gated), worst ")
            .and_strong(worst.label()),
        (worst, _) => summary
            .and_icon(Icon::Fail)
            .and("guideline violations, worst ")
            .and_strong(worst.label()),
    };
    summary.and(format!(
        " ({} hold, {} inconclusive, {} unmeasured)",
        count(Conclusion::Holds),
        count(Conclusion::Inconclusive),
        count(Conclusion::Unmeasured)
    ))
}

/// `summary` with the regressions against the baseline, the cases slower
/// than its tolerance and a shift of the whole machine, where there are.
fn against_baseline(mut summary: Line, b: &Comparison) -> Line {
    let regressions = b.regressions().count();
    if regressions > 0 {
        summary = summary
            .and(", ")
            .and_icon(Icon::Fail)
            .and(format!("{regressions} regression(s) against the baseline"));
    }
    let unshown = b.unshown().count();
    if unshown > 0 {
        summary = summary.and(", ").and_icon(Icon::Warning).and(format!(
            "{unshown} case(s) slower than the baseline's tolerance, not shown a regression"
        ));
    }
    if let Some(shift) = b.shift.filter(|s| s.significant) {
        summary = summary.and(", ").and_icon(Icon::Warning).and(format!(
            "the whole machine {:.2}× the baseline launches",
            shift.factor
        ));
    }
    summary
}

/// `pgcheck: exit 1 (…): …`, its icon by the status.
fn exit_line(exit: &ExitStatus) -> Line {
    let icon = match exit.status {
        0 => Icon::Pass,
        9 => Icon::Warning,
        _ => Icon::Fail,
    };
    Line::plain("pgcheck: ").and_icon(icon).and(format!(
        "exit {} ({}): {}",
        exit.status, exit.meaning, exit.reason
    ))
}

/// What the run ran on and how it decided, a fact a row.
fn facts(results: &Results) -> Table {
    let meta = &results.meta;
    let mut rows = setup_facts(meta);
    rows.extend(state_facts(results));
    rows.extend(origin_facts(meta));
    let mut table = Table::new([("", Align::Left), ("", Align::Left)]);
    for (fact, value) in rows {
        table.push(vec![Line::plain(fact), value]);
    }
    table
}

/// The library, the processes and how the run measured and decided.
fn setup_facts(meta: &Meta) -> Vec<(&'static str, Line)> {
    let virtual_nodes = if meta.virtual_nodes {
        " (virtual nodes)"
    } else {
        ""
    };
    vec![
        (
            "MPI library",
            Line::plain(meta.mpi_library.lines().next().unwrap_or("-")),
        ),
        (
            "processes",
            Line::plain(format!(
                "{} = {}{virtual_nodes}",
                meta.processes,
                model::node_layout(meta.nodes, meta.ppn),
            )),
        ),
        (
            "budget",
            Line::plain(format!(
                "{} per candidate and size, {} rounds, {} warm-up",
                seconds(meta.budget_s),
                meta.rounds,
                meta.warmup
            )),
        ),
        (
            "decision",
            Line::plain(format!(
                "{} test, α = {}, correction {}, outliers {}",
                meta.test, meta.alpha, meta.correction, meta.outliers
            )),
        ),
        (
            "synchronisation",
            Line::plain(format!(
                "{}, noise floor {}",
                meta.sync_text(),
                seconds(meta.noise_floor_s)
            )),
        ),
        (
            "time",
            Line::plain(format!(
                "plan {:.1} s, wall {:.1} s",
                meta.plan_s, meta.wall_s
            )),
        ),
    ]
}

/// Where the ranks ran, the noise verdict, and whether the run completed.
fn state_facts(results: &Results) -> Vec<(&'static str, Line)> {
    let meta = &results.meta;
    let mut rows = Vec::new();
    if let Some(placement) = meta.placement.summary(meta.processes) {
        rows.push(("placement", Line::plain(placement)));
    }
    if let Some(noise) = &meta.noise {
        let verdict = match noise.verdict {
            NoiseVerdict::Noisy => Line::default().and_strong("noisy"),
            NoiseVerdict::Quiet => Line::plain("quiet"),
        };
        rows.push(("noise", verdict.and(format!(": {}", noise.reason))));
    }
    rows.push((
        "complete",
        match results.complete {
            true => Line::plain("yes"),
            false => Line::default().and_strong("no").and(
                ": the run ended before its last check (interrupted, or stopped at a wrong result); only what was measured is shown",
            ),
        },
    ));
    rows
}

/// pgcheck's version, when and where the run started, its environment.
fn origin_facts(meta: &Meta) -> Vec<(&'static str, Line)> {
    let mut rows = vec![(
        "pgcheck",
        match &meta.git_revision {
            Some(revision) => Line::plain(format!("{} (", meta.tool_version))
                .and_code(revision.as_str())
                .and(")"),
            None => Line::plain(meta.tool_version.as_str()),
        },
    )];
    if !meta.start_time.is_empty() {
        rows.push(("started", Line::plain(meta.start_time.as_str())));
    }
    if !meta.hosts.is_empty() {
        rows.push(("hosts", Line::plain(meta.hosts.join(", "))));
    }
    if !meta.environment.is_empty() {
        let mut variables = Line::default();
        for (i, (k, v)) in meta.environment.iter().enumerate() {
            if i > 0 {
                variables = variables.and(" ");
            }
            variables = variables.and_code(format!("{k}={v}"));
        }
        rows.push(("environment", variables));
    }
    rows
}

/// The terminal's opening lines: warnings, what every row shares, what
/// the columns mean, the noise verdict.
fn settings(results: &Results) -> Vec<Block> {
    let m = &results.meta;
    let noise = model::noise_line(results);
    let mut blocks = Vec::new();
    blocks.push(Block::Paragraph(Line::plain(format!(
        "{}, {} test, {} correction, α = {}, margin {}; noise floor (barrier median) {}: slowdowns marked ~ differ by less",
        layout(m),
        m.test,
        m.correction,
        m.alpha,
        m.margin,
        seconds(m.noise_floor_s)
    ))));
    blocks.push(Block::Paragraph(model::SLOWDOWN.into()));
    if let Some((NoiseVerdict::Quiet, line)) = &noise {
        blocks.push(Block::Paragraph(Line::plain(line.as_str())));
    }
    if !results.complete {
        blocks.push(Block::Paragraph(
            "INCOMPLETE: the run ended before its last check (interrupted, or stopped at a wrong result); these are the checks it finished".into(),
        ));
    }
    blocks
}

/// `2 processes (1 node × 2 ppn), sync auto: roundtime, …`.
fn layout(m: &Meta) -> String {
    format!(
        "{} processes ({}), sync {}",
        m.processes,
        model::node_layout(m.nodes, m.ppn),
        m.sync_text()
    )
}

/// How to read the compact table, in one paragraph: the slowdown, when a
/// case is violated, and the marks (the run's layout is on standard
/// error too, its settings in full under `--details`).
fn reading(results: &Results) -> Block {
    let m = &results.meta;
    let incomplete = match results.complete {
        true => "",
        false => "INCOMPLETE run: these are the checks it finished. ",
    };
    Block::Paragraph(Line::plain(format!(
        "{incomplete}{}; slowdown = default's median / the competitor's (each the median of its \
         per-round medians; paired: the median of the rounds' ratios); violated: a competitor significantly more than the margin {}× \
         faster ({} test, {} correction, α = {}); inconclusive (≥ s×): this run could flag only \
         slowdowns of at least s×; ~: the medians differ by less than the noise floor, {} (a \
         barrier's median)",
        layout(m),
        m.margin,
        m.test,
        m.correction,
        m.alpha,
        seconds(m.noise_floor_s)
    )))
}

/// The grid: collectives × sizes, each cell the worst mark of its checks.
fn overview(results: &Results) -> Vec<Block> {
    let overview = model::overview(results);
    let mut columns = vec![("collective".to_string(), Align::Left)];
    columns.extend(
        overview
            .sizes
            .iter()
            .map(|&s| (size_label(s), Align::Center)),
    );
    let mut table = Table::new(columns);
    for row in &overview.rows {
        let mut cells = vec![Line::plain(row.label.as_str())];
        cells.extend(row.marks.iter().zip(&row.wrong).map(|(&mark, &wrong)| {
            let cell = Line::mark(mark, mark.label());
            match wrong {
                true => cell.and(" !"),
                false => cell,
            }
        }));
        table.push(cells);
    }
    vec![
        Block::Heading(3, "Overview".into()),
        Block::Paragraph(
            "Severity of the worst competitor significantly faster by more than the margin, per collective and size (ok: holds within the margin; inconclusive: this run could not tell; WRONG: the library's result; !: a competitor failed verification).".into(),
        ),
        Block::Table(table),
    ]
}

/// A collective's heading, its table of checks (MPINPC's Figure 2) and the
/// notes on its cases.
fn collective_section(results: &Results, collective: Operation, checks: &[&Verdict]) -> Vec<Block> {
    let mut roots: Vec<usize> = checks.iter().map(|c| c.key.root).collect();
    roots.sort_unstable();
    roots.dedup();
    let several_roots = collective.is_rooted() && roots.len() > 1;
    // The count only where it is not the size: bytes count themselves.
    let count = checks
        .iter()
        .any(|c| c.key.count as u64 != c.key.size_bytes);
    let mut columns = Vec::new();
    if several_roots {
        columns.push(("root", Align::Right));
    }
    columns.push(("size [B]", Align::Right));
    if count {
        columns.push(("count", Align::Right));
    }
    columns.extend([
        ("n", Align::Right),
        ("default", Align::Right),
        ("slowdown", Align::Right),
        ("competitor", Align::Left),
        ("p-value", Align::Right),
        ("verdict", Align::Left),
    ]);
    let overlaps = checks.iter().any(|c| c.overlap.is_some());
    if overlaps {
        columns.push(("overlap", Align::Right));
    }
    let mut table = Table::new(columns);
    for check in checks {
        let mut row = Vec::new();
        if several_roots {
            row.push(Line::plain(check.key.root.to_string()));
        }
        row.push(Line::plain(check.key.size_bytes.to_string()));
        if count {
            row.push(Line::plain(check.key.count.to_string()));
        }
        row.extend(figure2_row(check));
        if overlaps {
            row.push(Line::plain(
                check.overlap.as_ref().map_or("—".into(), percent),
            ));
        }
        table.push(row);
    }
    let root = match roots.as_slice() {
        [root] if collective.is_rooted() => format!(", root {root}"),
        _ => String::new(),
    };
    let mut blocks = vec![
        Block::Heading(3, Line::plain(format!("{}{root}", collective.mpi_name()))),
        Block::Table(table),
    ];
    let notes = model::notes(&results.meta, checks);
    if !notes.is_empty() {
        blocks.push(Block::List(notes.into_iter().map(Line::plain).collect()));
    }
    blocks
}

/// MPINPC's Figure 5 for one check: every candidate by the median that
/// slowdowns compare, the unmeasured ones with their reason, usual times.
fn candidates(results: &Results, check: &Verdict) -> Vec<Block> {
    let collective = check.key.operation;
    let invalid = model::has_invalid(check);
    let ranked = model::ranked(check);
    let mut blocks = vec![Block::Heading(
        4,
        Line::default()
            .and_strong(model::title(check))
            .and(format!(": {}", model::verdict_line(check))),
    )];
    if !ranked.measured.is_empty() {
        let mut table = Table::new(
            model::header(invalid)
                .into_iter()
                .map(|c| (c, Align::numeric(model::is_numeric(c)))),
        );
        for c in &ranked.measured {
            let mut row: Vec<Line> = model::row(c, invalid)
                .into_iter()
                .map(Line::plain)
                .collect();
            row[0] = Line::code(model::short_name(collective, &c.name));
            table.push(row);
        }
        blocks.push(Block::Table(table));
    }
    if !ranked.unmeasured.is_empty() {
        blocks.push(Block::List(
            ranked
                .unmeasured
                .iter()
                .map(|c| {
                    Line::code(model::short_name(collective, &c.name))
                        .and(format!(": {}", model::why_unmeasured(c)))
                })
                .collect(),
        ));
    }
    let mut usual = Table::new(
        model::USUAL_COLUMNS
            .iter()
            .map(|&c| (c, Align::numeric(!matches!(c, "candidate" | "model")))),
    );
    for c in &ranked.measured {
        if let Some(cells) = model::usual_row(c) {
            let mut row: Vec<Line> = cells.into_iter().map(Line::plain).collect();
            row[0] = Line::code(model::short_name(collective, &c.name));
            usual.push(row);
        }
    }
    if !usual.rows.is_empty() {
        blocks.push(Block::Paragraph(model::usual_title(results).into()));
        blocks.push(Block::Table(usual));
    }
    blocks
}

/// Every significantly faster competitor, worst first.
fn violations(results: &Results) -> Vec<Block> {
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
        return vec![
            Block::Heading(3, "Violations".into()),
            Block::Paragraph(
                "None: no competitor was significantly faster than the library's own collective."
                    .into(),
            ),
        ];
    }
    found.sort_by(|a, b| {
        b.1.slowdown
            .partial_cmp(&a.1.slowdown)
            .expect("slowdowns are numbers")
    });
    use Align::{Left, Right};
    let mut table = Table::new([
        ("check", Left),
        ("competitor", Left),
        ("default", Right),
        ("competitor's median", Right),
        ("slowdown", Right),
        ("p-value", Right),
        ("severity", Left),
    ]);
    for (check, c) in found {
        let default = check.default_candidate().and_then(|d| d.round_median_s);
        let slowdown = c.slowdown.unwrap_or(1.0);
        let severity = Severity::of_slowdown(slowdown);
        table.push(vec![
            Line::plain(model::title(check)),
            Line::code(c.name.as_str()),
            Line::plain(default.map_or("-".into(), seconds)),
            Line::plain(c.round_median_s.map_or("-".into(), seconds)),
            Line::plain(format!("{slowdown:.3}")),
            Line::plain(
                c.p_adjusted
                    .or(c.p_value)
                    .map_or("-".into(), |p| format!("{p:.2e}")),
            ),
            Line::mark(Mark::Severity(severity), severity.label()),
        ]);
    }
    vec![Block::Heading(3, "Violations".into()), Block::Table(table)]
}

/// PGMPI's monotony and split-robustness of `default`.
fn universal_guidelines(results: &Results) -> Vec<Block> {
    let (pairs, findings) = model::universal_findings(results);
    if pairs == 0 && findings.is_empty() {
        return Vec::new();
    }
    // Nothing found is one line, not a section.
    if findings.is_empty() {
        return vec![Block::Paragraph(Line::plain(format!(
            "Universal guidelines (PGMPI): monotony holds for all {pairs} pairs of consecutive \
             sizes; split-robustness holds."
        )))];
    }
    let mut blocks = vec![Block::Heading(3, "Universal guidelines (PGMPI)".into())];
    use Align::{Left, Right};
    let align = [
        Left, Left, Right, Right, Left, Right, Right, Right, Right, Left,
    ];
    let mut table = Table::new(model::FINDING_COLUMNS.into_iter().zip(align));
    for (guideline, f) in findings {
        let name = match guideline {
            Universal::Monotony => "monotony",
            Universal::SplitRobustness => "split-robustness",
        };
        let mut row = vec![Line::plain(name)];
        row.extend(model::finding_row(f).into_iter().map(Line::plain));
        row.push(Line::mark(Mark::Severity(f.severity), f.severity.label()));
        table.push(row);
    }
    blocks.push(Block::Table(table));
    blocks.push(Block::Paragraph(model::FINDING_ROUNDS.into()));
    blocks
}

/// What of its nonblocking calls the library overlapped with computation
/// (IMB-NBC's measure), a line per operation with each size's rounds'
/// quartiles; named a finding at the sizes where it overlapped less than
/// [`Overlap::LITTLE_PERCENT`] in most rounds ([`Overlap::is_little`]):
/// one size's median moved between launches (8 B: 0–2 % in some, 26–30 %
/// in others), so no statement rests on a count of sizes. It is no
/// guideline and no verdict: a call that overlaps nothing may still be as
/// fast as the blocking one, but a program that moved to it to compute
/// meanwhile gains nothing.
fn overlap(results: &Results) -> Vec<Block> {
    let mut lines = Vec::new();
    for (operation, checks) in model::by_operation(results) {
        let measured: Vec<(&Verdict, &Overlap)> = checks
            .iter()
            .filter_map(|&c| Some((c, c.overlap.as_ref()?)))
            .collect();
        if measured.is_empty() {
            continue;
        }
        let sizes: Vec<String> = measured
            .iter()
            .map(|(c, o)| format!("{} {}", size_label(c.key.size_bytes), percent(o)))
            .collect();
        let little: Vec<String> = measured
            .iter()
            .filter(|(_, o)| o.is_little())
            .map(|(c, _)| size_label(c.key.size_bytes))
            .collect();
        let finding = match little.is_empty() {
            false => format!(
                "; below {:.0} % in most rounds at {}: computation between {} and MPI_Wait \
                 hardly runs alongside the call there, which the library progresses mostly \
                 inside MPI_Wait",
                Overlap::LITTLE_PERCENT,
                little.join(", "),
                operation.mpi_name()
            ),
            true => String::new(),
        };
        lines.push(Line::plain(format!(
            "{operation}: {}{finding}.",
            sizes.join(", ")
        )));
    }
    if lines.is_empty() {
        return Vec::new();
    }
    vec![
        Block::Paragraph(Line::plain(
            "Overlap with computation (IMB-NBC's measure: the share of the shorter of call and \
             computation that ran at the same time, with as much computation as the call takes \
             alone; in brackets, the quartiles of that share round by round):",
        )),
        Block::List(lines),
    ]
}

/// "12 % (3–20 %)" with the rounds' quartiles, or "12 %" without enough
/// rounds.
fn percent(overlap: &Overlap) -> String {
    match overlap.by_round_percent {
        Some([low, high]) => format!("{:.0} % ({low:.0}–{high:.0} %)", overlap.percent),
        None => format!("{:.0} %", overlap.percent),
    }
}

/// The comparison with `--baseline`: regressions of `default`, the
/// violations removed, remaining and new, the cases only one run has.
fn baseline(results: &Results) -> Vec<Block> {
    let Some(b) = &results.baseline else {
        return Vec::new();
    };
    let mut blocks = vec![
        Block::Heading(3, "Baseline".into()),
        Block::Paragraph(
            Line::plain("Compared with ")
                .and_code(b.baseline.as_str())
                .and(format!(
                    ": {}, tolerance {:.1} %.",
                    crate::case::cases(b.changes.len()),
                    b.tolerance * 100.0
                )),
        ),
    ];
    for note in model::baseline_notes(b) {
        blocks.push(Block::Paragraph(Line::plain(note)));
    }
    let verdict = regression_verdict(b, results.meta.alpha);
    blocks.push(Block::Paragraph(Line::plain(verdict)));
    let changes = changes_table(b);
    if !changes.rows.is_empty() {
        blocks.push(Block::Table(changes));
    }
    blocks.extend(violation_changes(b));
    blocks.extend(only_in_one(b));
    blocks
}

/// A row per regression and per case slower than the tolerance but not
/// shown a regression; between launches, with the ratio from which each
/// would have shown.
fn changes_table(b: &Comparison) -> Table {
    use Align::{Left, Right};
    let between_launches = b.has_detectable();
    let mut columns = vec![
        ("case", Left),
        ("baseline", Right),
        ("now", Right),
        ("ratio", Right),
        ("p-value", Right),
    ];
    if between_launches {
        columns.push(("shows from", Right));
    }
    columns.push(("verdict", Left));
    let mut changes = Table::new(columns);
    let unshown = |c: &Change| match b.only_beside_references(c) {
        true => "not slower in its own time",
        false => "not shown",
    };
    for (c, verdict) in b
        .regressions()
        .map(|c| (c, "regression"))
        .chain(b.unshown().map(|c| (c, unshown(c))))
    {
        let (ratio, p_value) = model::regression_numbers(c);
        let mut row = vec![
            Line::plain(model::title_of(&c.key)),
            Line::plain(seconds(c.baseline_median_s)),
            Line::plain(seconds(c.median_s)),
            Line::plain(ratio),
            Line::plain(p_value),
        ];
        if between_launches {
            row.push(Line::plain(
                c.detectable.map_or("–".into(), |d| format!("{d:.3}")),
            ));
        }
        row.push(Line::plain(verdict));
        changes.push(row);
    }
    changes
}

/// What the changes against the baseline amount to, in a sentence.
fn regression_verdict(b: &Comparison, alpha: f64) -> String {
    let (regressions, unshown) = (b.regressions().count(), b.unshown().count());
    let tolerance = format!("{:.0} %", b.tolerance * 100.0);
    match (regressions, unshown) {
        _ if b.undecided.is_some() => format!(
            "Regressions and new violations {}: the changes below are shown, not judged, and \
             the run is undecided (exit 9) unless --allow-undecided.",
            b.undecided.as_deref().unwrap_or_default()
        ),
        (0, 0) => format!(
            "No regression of the library's own collectives: none is slower than the \
             baseline by more than {tolerance}."
        ),
        (0, n) => {
            let beside = b.unshown().filter(|c| b.only_beside_references(c)).count();
            let spread = format!(
                "{} case(s) slower than the baseline by more than {tolerance}, not significantly \
                 at α = {alpha} against the spread between launches (not shown): {}",
                n - beside,
                match b.has_detectable() {
                    true => "each below the ratio it would have shown from",
                    false => "more baseline launches would decide",
                }
            );
            let own = format!(
                "{beside} case(s) slower by more than {tolerance} beside their references only, \
                 the library's own call no slower than its usual time (than the launch's shift \
                 makes it, where the launch ran faster as a whole)"
            );
            match (n - beside, beside) {
                (_, 0) => format!("No regression shown, but {spread}."),
                (0, _) => format!("No regression shown: {own}."),
                _ => format!("No regression shown, but {spread}; {own}."),
            }
        }
        (r, 0) => format!("{r} regression(s) of the library's own collectives."),
        (r, n) => format!(
            "{r} regression(s) of the library's own collectives; {n} more case(s) slower by \
             more than {tolerance}, not shown."
        ),
    }
}

/// The cases only the baseline has and those only this run has.
fn only_in_one(b: &Comparison) -> Vec<Block> {
    let list = |keys: &[CaseKey]| {
        keys.iter()
            .map(model::title_of)
            .collect::<Vec<_>>()
            .join("; ")
    };
    let mut blocks = Vec::new();
    if !b.only_in_baseline.is_empty() {
        blocks.push(Block::Paragraph(Line::plain(format!(
            "Only in the baseline: {}",
            list(&b.only_in_baseline)
        ))));
    }
    if !b.only_in_current.is_empty() {
        blocks.push(Block::Paragraph(Line::plain(format!(
            "Only in this run: {}",
            list(&b.only_in_current)
        ))));
    }
    blocks
}

/// The baseline's violations this run removed, those that remain (and
/// what still beats `default`), and new ones.
fn violation_changes(b: &Comparison) -> Vec<Block> {
    let count = |kind| b.violations_of(kind).count();
    let mut blocks = vec![Block::Paragraph(Line::plain(format!(
        "Violations: {} removed, {} remaining, {} new.",
        count(Transition::Removed),
        count(Transition::Remaining),
        count(Transition::New)
    )))];
    let mut table = Table::new([
        ("violation", Align::Left),
        ("case", Align::Left),
        ("baseline launches violated", Align::Right),
        ("latest baseline", Align::Left),
        ("now", Align::Left),
        ("what beats default now", Align::Left),
    ]);
    for kind in Transition::ALL {
        for v in b.violations_of(kind) {
            table.push(vec![
                Line::plain(kind.label()),
                Line::plain(model::title_of(&v.key)),
                Line::plain(format!(
                    "{} of {}",
                    v.baseline_violated, v.baseline_launches
                )),
                Line::plain(model::violation_side(&v.baseline, v.key.operation)),
                Line::plain(model::violation_side(&v.now, v.key.operation)),
                Line::plain(model::violation_note(v)),
            ]);
        }
    }
    if !table.rows.is_empty() {
        blocks.push(Block::Table(table));
    }
    blocks
}

/// One check as the cells of the per-collective table (MPINPC's Figure 2)
/// after its size: n, default's median, slowdown, the competitor that sets
/// the severity (else the fastest), p-value, verdict (the competitor's
/// median is default's over the slowdown, so not shown again). A
/// slowdown marked `~`: the medians differ by less than the
/// synchronisation's own cost. A candidate that failed verification marks
/// the verdict with `!`.
pub(crate) fn figure2_row(check: &Verdict) -> Vec<Line> {
    let default = check.default_candidate();
    let below_noise = check
        .candidates
        .iter()
        .any(|c| Some(&c.name) == check.competitor.as_ref() && c.below_noise);
    let wrong = check.candidates.iter().any(|c| c.outcome.is_wrong());
    let default_median = match check.conclusion {
        Conclusion::LibraryWrong => "WRONG".into(),
        _ => default
            .and_then(|d| d.round_median_s)
            .map_or("-".into(), seconds),
    };
    let verdict = Line::mark(Mark::of(check), model::verdict_label(check));
    vec![
        Line::plain(default.map_or(0, |d| d.n).to_string()),
        Line::plain(default_median),
        Line::plain(check.slowdown.map_or("-".into(), |s| {
            format!("{s:.3}{}", if below_noise { "~" } else { "" })
        })),
        match &check.competitor {
            Some(name) => Line::code(model::short_name(check.key.operation, name)),
            None => Line::plain("-"),
        },
        Line::plain(check.p_value.map_or("-".into(), |p| format!("{p:.2e}"))),
        if wrong { verdict.and(" !") } else { verdict },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::Overlap;
    use crate::collective::Collective;
    use crate::report::fixture;

    /// A size is named where the library overlapped little in most rounds,
    /// not where its median alone is low: 8 B's median of 1 % with rounds
    /// up to 28 % is not named, 4 KiB's 3 % with rounds up to 6 % is, and
    /// no count of sizes decides.
    #[test]
    fn little_overlap_is_named_where_most_rounds_show_it() {
        let mut results = fixture::results();
        results.checks = [
            (8, 1.0, [0.0, 28.0]),
            (1024, 20.0, [18.0, 26.0]),
            (4096, 3.0, [1.0, 6.0]),
        ]
        .into_iter()
        .map(|(size, percent, by_round)| {
            let mut check = fixture::check(Collective::Allreduce, size, 0, 10.0, &[], vec![]);
            check.key.operation = Operation::nonblocking(Collective::Allreduce);
            check.overlap = Some(Overlap {
                compute_s: 10e-6,
                overlapped_median_s: 19.9e-6,
                percent,
                by_round_percent: Some(by_round),
            });
            check
        })
        .collect();
        let Some(Block::List(lines)) = overlap(&results).pop() else {
            panic!("a list of operations")
        };
        let Some(crate::report::document::Span::Plain(line)) = lines[0].0.first() else {
            panic!("a plain line")
        };
        assert!(
            line.starts_with(
                "iallreduce: 8 B 1 % (0–28 %), 1 KiB 20 % (18–26 %), 4 KiB 3 % (1–6 %)"
            ) && line.contains("; below 10 % in most rounds at 4 KiB: computation"),
            "{line}"
        );
        // Without the rounds' quartiles, the median decides.
        let mut alone = results.checks[0].overlap.clone().unwrap();
        alone.by_round_percent = None;
        assert!(alone.is_little());
    }
}
