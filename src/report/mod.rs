//! Everything rank 0 shows: the plan, progress, the report in every format
//! (the terminal and Markdown write one [`document`] that [`sections`]
//! builds from the content of [`model`]; SVG, CSV and JSON render their
//! own), errors and warnings.
//! The only stage that prints; it decides no exit status and writes no file
//! (`store` writes what these modules render).

pub mod answer;
pub mod compare;
pub mod csv;
pub mod document;
#[cfg(test)]
pub(crate) mod fixture;
pub mod history;
pub mod json;
pub mod markdown;
pub mod model;
pub mod progress;
pub mod sections;
#[cfg(test)]
mod snapshot;
pub mod svg;
pub mod text;

use crate::analyse::Results;
use crate::meta::Meta;
use crate::plan::Plan;
use model::who_failed;

/// One line per candidate that failed verification and per case without a
/// verdict, for standard error: they must not hide in a table.
pub fn failures(results: &Results) -> Vec<String> {
    let mut lines = Vec::new();
    for check in &results.checks {
        let case = check.key.label();
        for c in check.candidates.iter().filter(|c| c.outcome.is_wrong()) {
            let reason = c.outcome.reason().unwrap_or("");
            lines.push(format!("{}: {case}: {reason}", who_failed(&c.name)));
        }
        if check.conclusion == crate::analyse::Conclusion::Unmeasured && results.complete {
            lines.push(format!(
                "no verdict for {case}: default not measured: {}",
                check.reason.as_deref().unwrap_or("")
            ));
        }
    }
    lines
}

/// The report itself, on standard output.
pub fn show(text: &str) {
    print!("{text}");
}

/// Writes `text` to standard error whole: standard output flushed first,
/// so that what it holds comes before, then one write, so that no line of
/// standard output lands inside the message where a launcher merges the
/// two ("pgcheck: error: WARNING: …" was seen under mpirun).
fn to_stderr(text: &str) {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

/// The plan, progress and other remarks, on standard error so that
/// `--format json` on standard output stays clean; wrapped to the report's
/// width.
pub fn remark(text: &str) {
    to_stderr(&fitted(text));
}

/// A problem that does not stop the run.
pub fn warning(message: &str) {
    remark(&format!("pgcheck: warning: {message}\n"));
}

/// `text` fitted to the report's width ([`text::width`]).
pub fn fitted(text: &str) -> String {
    fit(text, usize::from(text::width()))
}

/// `text`'s lines broken at spaces into lines of at most `width`
/// columns; continued lines are indented two spaces more than their
/// first, so that each reads as one message.
fn fit(text: &str, width: usize) -> String {
    text.lines()
        .map(|line| match line.trim_start().len() {
            0 => "\n".to_string(),
            words => text::wrap(line, width, &" ".repeat(line.len() - words + 2)),
        })
        .collect()
}

/// The one message of an error that ends the run.
pub fn error(message: &str) {
    to_stderr(&format!("pgcheck: error: {message}\n"));
}

/// The plan, printed before measuring.
pub fn plan_text(plan: &Plan, meta: &Meta) -> String {
    let s = &plan.settings;
    let mut text = format!(
        "pgcheck {} on {} ({} processes, {}{})\n",
        meta.tool_version,
        // The library and its version; its whole text is in results.json.
        model::library_name(&meta.mpi_library),
        meta.processes,
        model::node_layout(meta.nodes, meta.ppn),
        if meta.virtual_nodes {
            ", virtual nodes"
        } else {
            ""
        },
    );
    let long = plan.long_calls();
    // Long calls outlast the budget: the plan's first line gives the time
    // they take, so that no later line has to correct it.
    let total = match long.is_empty() {
        true => format!(" = {:.1} s", plan.budgeted().as_secs_f64()),
        false => format!(
            ", {:.1} s with the long calls below",
            plan.expected().as_secs_f64()
        ),
    };
    text += &format!(
        "plan: {}, {} candidate measurements × {} budget{total} (rounds {}, warm-up {}, seed {}, sync {})\n",
        crate::case::cases(plan.cases.len()),
        plan.measurements(),
        humantime::format_duration(s.budget),
        s.rounds,
        s.warmup,
        s.seed,
        meta.sync_text(),
    );
    if let Some(pinned) = meta.placement.pinned(meta.processes) {
        text += &format!("{pinned}\n");
    }
    for l in &long {
        text += &format!(
            "long calls: {} takes {} a call, longer than a round's share of the budget ({}): each of its {} rounds takes a call per candidate and one more that checks its output, {:.1} s for its {} candidates, and {} more calls each for warm-up and verification, {:.1} s; verification's reference, {:.1} s\n",
            l.label,
            seconds(l.call_s),
            seconds(s.budget.as_secs_f64() / s.rounds_for(l.call_s) as f64),
            s.rounds_for(l.call_s),
            l.slices_s,
            l.measurements,
            l.calls_outside,
            l.outside_s,
            l.reference_s,
        );
    }
    text += &format!(
        "disturbed rounds (every candidate {}× slower than usual) measured again: at most +{} %, {:.1} s\n",
        crate::analyse::disturbed::DISTURBED_FACTOR,
        (crate::plan::REMEASURE_SHARE * 100.0).round(),
        plan.remeasured_at_most().as_secs_f64(),
    );
    text
}

/// "240 ms", "1.20 s".
fn seconds(s: f64) -> String {
    match s < 1.0 {
        true => format!("{:.0} ms", s * 1e3),
        false => format!("{s:.2} s"),
    }
}

/// The very last line: the exit status, what it means and why, for a CI
/// log that shows only the tail.
pub fn exit_line(status: &crate::analyse::ExitStatus) -> String {
    format!(
        "pgcheck: exit {} ({}): {}\n",
        status.status, status.meaning, status.reason
    )
}

/// The last line of a run: wall time against the plan, where it went
/// when it overran the plan by more than [`OVERRUN`], and where the files
/// are.
pub fn wall_time(meta: &Meta, dir: &std::path::Path) -> String {
    let rest = meta.wall_s - meta.measuring_s - meta.verify_s - meta.prepare_s;
    let parts = match meta.wall_s > meta.plan_s * OVERRUN {
        true => format!(
            " ({:.2} s measuring, {:.2} s verifying, {:.2} s preparing, {:.2} s warming up, synchronising clocks and writing files)",
            meta.measuring_s,
            meta.verify_s,
            meta.prepare_s,
            rest.max(0.0),
        ),
        false => String::new(),
    };
    format!(
        "wall time {:.2} s for a plan of {:.2} s{parts}; files in {}\n",
        meta.wall_s,
        meta.plan_s,
        dir.display()
    )
}

/// The share of the plan by which a run must overrun it for the wall-time
/// line to say where the time went.
const OVERRUN: f64 = 1.2;

/// Whether a person watches `stream`: a terminal, not CI, not a dumb
/// terminal. Under Open MPI's mpirun every rank's output is a pseudo-terminal
/// even when mpirun's own is a file, so there it is never taken for one
/// (`--color always` still colours).
pub fn interactive(stream: &impl std::io::IsTerminal) -> bool {
    stream.is_terminal()
        && std::env::var_os("CI").is_none()
        && std::env::var_os("OMPI_COMM_WORLD_SIZE").is_none()
        && std::env::var("TERM").is_ok_and(|t| t != "dumb")
}

/// Whether standard output gets colour when no option says: only for a
/// person at a terminal, and not under `NO_COLOR`.
pub fn colour_auto() -> bool {
    std::env::var_os("NO_COLOR").is_none() && interactive(&std::io::stdout())
}

/// The format of the report on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Markdown,
    Json,
    Csv,
}

/// How the report is shown; `color` is the one decision on colour and
/// borders, the width comes from the terminal (`text::width`).
#[derive(Clone, Debug)]
pub struct View {
    pub format: Format,
    pub details: bool,
    pub color: bool,
}

/// The report for standard output.
pub fn render(results: &Results, view: &View) -> String {
    match view.format {
        Format::Table => text::render(results, view.details, &text::Look::stdout(view.color)),
        Format::Markdown => markdown::render(results),
        Format::Json => json::render(results),
        Format::Csv => {
            let mut out = Vec::new();
            csv::render(&mut out, results).expect("writing to memory");
            String::from_utf8(out).expect("CSV is UTF-8")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remarks_wrap_at_spaces_with_their_continuations_indented() {
        let line = "wall time 1.00 s for a plan of 2.00 s; files in out/run-1\n";
        assert_eq!(
            fit(line, 30),
            "wall time 1.00 s for a plan of\n  2.00 s; files in out/run-1\n"
        );
        assert_eq!(fit("a\n\n  b c\n", 4), "a\n\n  b\n    c\n");
        for l in fit(&line.repeat(3), 30).lines() {
            assert!(l.chars().count() <= 30, "{l}");
        }
    }
}
