//! Everything rank 0 shows and writes: the plan, the tables, the files, the
//! exit status. The only stage that prints.

pub mod clocks;
pub mod csv;
pub mod details;
pub mod grid;
pub mod json;
pub mod list;
pub mod markdown;
pub mod progress;
pub mod svg;
pub mod table;
pub mod verify;

use crate::analyse::guidelines::Guidelines;
use crate::analyse::{Severity, Verdict};
use crate::meta::Meta;
use crate::plan::Plan;
use serde::{Deserialize, Serialize};

/// Everything a run found, as `results.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    pub meta: Meta,
    /// False while measuring and when the run was interrupted.
    pub complete: bool,
    pub checks: Vec<Verdict>,
    /// PGMPI's monotony and split-robustness, from `default`'s data.
    #[serde(default)]
    pub guidelines: Guidelines,
    /// The comparison with `--baseline`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::analyse::baseline::Comparison>,
}

impl Results {
    /// The worst severity of any check. The universal guidelines do not
    /// count: they compare sizes measured at different times.
    pub fn worst(&self) -> Severity {
        self.checks
            .iter()
            .map(|c| c.severity)
            .max()
            .unwrap_or(Severity::Ok)
    }
}

/// Who a failed verification is about: the library, or a competitor.
pub fn who_failed(candidate: &str) -> String {
    match candidate {
        crate::candidates::native::DEFAULT => "the library's collective is wrong".into(),
        name => format!("{name} failed verification"),
    }
}

/// A case as messages name it: `MPI_Bcast 64 B (64 × byte bor, root 1)`.
pub fn case_label(
    collective: crate::collective::Collective,
    size_bytes: u64,
    count: usize,
    datatype: crate::element::Datatype,
    op: crate::element::Op,
    root: usize,
) -> String {
    let root = match collective.is_rooted() {
        true => format!(", root {root}"),
        false => String::new(),
    };
    format!(
        "{} {size_bytes} B ({count} × {} {}{root})",
        collective.mpi_name(),
        datatype.name(),
        op.name(),
    )
}

/// One line per candidate that failed verification and per case without a
/// verdict, for standard error: they must not hide in a table.
pub fn failures(results: &Results) -> Vec<String> {
    let mut lines = Vec::new();
    for check in &results.checks {
        let k = &check.key;
        let case = case_label(
            k.collective,
            k.size_bytes,
            k.count,
            k.datatype,
            k.op,
            k.root,
        );
        for c in check.candidates.iter().filter(|c| c.status == "wrong") {
            let reason = c.reason.as_deref().unwrap_or("");
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

/// The plan, progress and other remarks, on standard error so that
/// `--format json` on standard output stays clean.
pub fn remark(text: &str) {
    eprint!("{text}");
}

/// A problem that does not stop the run.
pub fn warning(message: &str) {
    eprintln!("pgcheck: warning: {message}");
}

/// The one message of an error that ends the run.
pub fn error(message: &str) {
    eprintln!("pgcheck: error: {message}");
}

/// Seconds in the unit that suits them: `12.34 µs`, `1.234 ms`.
pub fn seconds(s: f64) -> String {
    match s {
        s if s.is_nan() => "-".into(),
        s if s < 1e-3 => format!("{:.2} µs", s * 1e6),
        s if s < 1.0 => format!("{:.3} ms", s * 1e3),
        s => format!("{s:.3} s"),
    }
}

/// The plan, printed before measuring.
pub fn plan_text(plan: &Plan, meta: &Meta) -> String {
    let s = &plan.settings;
    let mut text = format!(
        "pgcheck {} on {} ({} processes, {} node(s) × {} ppn{})\n",
        meta.tool_version,
        meta.mpi_library.lines().next().unwrap_or("MPI"),
        meta.processes,
        meta.nodes,
        meta.ppn,
        if meta.virtual_nodes {
            ", virtual nodes"
        } else {
            ""
        },
    );
    text += &format!(
        "plan: {} cases, {} candidate measurements × {} budget = {:.1} s (rounds {}, warm-up {}, seed {}, sync {})\n",
        plan.cases.len(),
        plan.measurements(),
        humantime::format_duration(s.budget),
        plan.expected().as_secs_f64(),
        s.rounds,
        s.warmup,
        s.seed,
        meta.sync,
    );
    text
}

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

/// How the report is shown.
#[derive(Clone, Debug)]
pub struct View {
    pub format: crate::cli::Format,
    pub details: bool,
    pub color: bool,
}

impl View {
    pub fn new(args: &crate::cli::ReportArgs) -> View {
        use crate::cli::ColorChoice;
        let color = match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none() && interactive(&std::io::stdout())
            }
        };
        View {
            format: args.format,
            details: args.details,
            color,
        }
    }
}

/// The report for standard output.
pub fn render(results: &Results, view: &View) -> String {
    use crate::cli::Format;
    match view.format {
        Format::Table => {
            let mut text = table::render(results);
            text += &table::render_guidelines(results);
            text += &table::render_baseline(results);
            if view.details {
                text += &details::render(results);
            }
            text += &grid::render(results, view.color);
            text
        }
        Format::Markdown => markdown::render(results),
        Format::Json => serde_json::to_string_pretty(results).expect("results serialise") + "\n",
        Format::Csv => {
            let mut out = Vec::new();
            csv::summary(&mut out, results).expect("writing to memory");
            String::from_utf8(out).expect("CSV is UTF-8")
        }
    }
}

/// Writes every file of a finished analysis into `dir`.
pub fn write_files(dir: &std::path::Path, results: &Results) -> std::io::Result<()> {
    json::write(dir, results)?;
    csv::write_summary(dir, results)?;
    std::fs::write(dir.join("report.md"), markdown::render(results))?;
    svg::write_all(dir, results).map(|_| ())
}
