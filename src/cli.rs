//! Command-line options.

use crate::analyse::{Correction, Outliers, Test};
use crate::element::{Datatype, Op};
use crate::exit::{Exit, FailOn};
use crate::operation::Operation;
use crate::report::Format;
use crate::settings::{CacheState, PinMode, SyncRequest, TimedForms, UniversalMode};
use crate::units::{
    parse_bytes, parse_duration, parse_duration_or_zero, parse_fraction, parse_sizes,
    parse_sizes_or_zero,
};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

/// What each exit status means, as `--help` lists it.
fn exit_status_line(exit: Exit) -> &'static str {
    match exit {
        Exit::Pass => "pass: every case decided, nothing --fail-on fails on",
        Exit::Violation => {
            "a guideline violation --fail-on fails on (default: any violated case), or a regression\n     \
             against --baseline"
        }
        Exit::Input => "usage or input error",
        Exit::Verification => {
            "wrong result: a candidate, the library's own call included, failed verification"
        }
        Exit::Internal => "MPI, I/O or internal error",
        Exit::Interrupted => "interrupted by a signal; the files hold what was measured",
        Exit::Unmeasured => "a case without verdict: the library's own call was not measured",
        Exit::Hang => "hang: a call or a wait outlived --timeout; the watchdog ended the job",
        Exit::LostRank => "lost rank: a rank exited, aborted or crashed while MPI ran",
        Exit::Undecided => {
            "undecided: a noisy run, or more than half of the cases inconclusive or powerless\n     \
             (--allow-undecided passes it)"
        }
    }
}

/// The statuses each subcommand can end with, as its `--help` lists them
/// (a test keeps them in step with the help).
pub fn exit_statuses_of(subcommand: &str) -> &'static [Exit] {
    use Exit::*;
    match subcommand {
        "run" => &Exit::ALL,
        // The gate of a saved run: what ended it early, not the watchdog.
        "analyze" => &[
            Pass,
            Violation,
            Input,
            Verification,
            Internal,
            Interrupted,
            Unmeasured,
            Undecided,
        ],
        "verify" => &[Pass, Input, Verification, Internal, Hang, LostRank],
        _ => &[Pass, Input, Internal],
    }
}

/// The `Exit status:` section of a help text: `statuses` with what each means.
fn exit_statuses(statuses: &[Exit]) -> String {
    // Only the commands with a gate (run, analyze) pass or fail a check.
    let gated = statuses.contains(&Exit::Violation);
    let lines: Vec<String> = statuses
        .iter()
        .map(|&e| match e {
            Exit::Pass if !gated => "  0  success".to_string(),
            e => format!("  {}  {}", e.code(), exit_status_line(e)),
        })
        .collect();
    format!("Exit status:\n{}", lines.join("\n"))
}

/// `exit_statuses` of a subcommand, for its `after_help`.
fn exit_help(subcommand: &str) -> String {
    exit_statuses(exit_statuses_of(subcommand))
}

/// An option given twice takes its last value (a script's defaults, then
/// the user's), except those that collect values, like `--baseline`.
#[derive(Parser, Debug)]
#[command(
    name = "pgcheck",
    version,
    about = "Checks an MPI library's collectives against the self-consistent performance guidelines",
    long_about = "Checks an MPI library's collectives against the self-consistent performance \
guidelines: a collective must not be slower than the same semantics built from other \
collectives (a mock-up) nor than a known better algorithm (lane, hierarchical, circulant) or a \
minimal one from point-to-point calls (p2p). \
Run it under mpirun; rank 0 prints the report.",
    after_help = exit_statuses(&Exit::ALL)
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Measure every candidate of every check and report slowdowns and severities.
    Run(RunArgs),
    /// Run every competitor once and compare its result with the library's own collective.
    Verify(VerifyArgs),
    /// Re-analyse a run's observations (raw/, raw.csv.gz or raw.csv) and results.json without MPI: other tests, alpha, corrections, q_max.
    Analyze(AnalyzeArgs),
    /// List every collective with its competitors and the guideline each checks.
    #[command(after_help = exit_help("list"))]
    List,
    /// Synchronise clocks as --sync roundtime does and show how far every rank is from rank 0.
    Clocks(ClocksArgs),
    /// Put runs of the same input (on other libraries or machines) side by side, without MPI.
    Compare(CompareArgs),
    /// Follow default's launch medians per case over runs in start order, and find where they changed, without MPI.
    History(HistoryArgs),
    /// Write the library's tuning file that selects its algorithms significantly faster than its own choice.
    Tune(TuneArgs),
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("tune"))]
pub struct TuneArgs {
    /// A run written by `pgcheck run --output DIR` with `competitors: library`; on Intel MPI,
    /// launches that each set one I_MPI_ADJUST_<COLLECTIVE> preset and launches without
    /// (3 or more each; a directory of runs counts as its runs).
    #[arg(required = true, num_args = 1.., value_name = "DIR")]
    pub runs: Vec<PathBuf>,
    /// The tuning file to write: Open MPI's coll_tuned rules, MPICH's variables, Intel MPI's presets.
    #[arg(long, short)]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("compare"))]
pub struct CompareArgs {
    /// Directories written by `pgcheck run --output DIR` (or their results.json), one column each.
    #[arg(required = true, num_args = 2.., value_name = "DIR")]
    pub runs: Vec<PathBuf>,
    /// What goes to standard output.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// Also write compare.md and compare.svg into this directory.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Colour the severities and embolden the fastest medians: auto (terminal and no NO_COLOR), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// The formats of `pgcheck compare` on standard output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Markdown,
    Svg,
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("history"))]
pub struct HistoryArgs {
    /// Runs written by `pgcheck run --output DIR` (or their results.json), or directories
    /// holding such runs; ordered by their start time.
    #[arg(required = true, value_name = "DIR")]
    pub runs: Vec<PathBuf>,
    /// What goes to standard output.
    #[arg(long, value_enum, default_value_t = crate::report::history::Format::Table)]
    pub format: crate::report::history::Format,
    /// Also write history.svg, history.md and history.json into this directory.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// The launch a CI gate is judging: drawn beside the history's launches, marked, and
    /// kept out of their change points.
    #[arg(long, value_name = "DIR")]
    pub under_test: Option<PathBuf>,
    /// A change point is kept when its permutation p-value is below this.
    #[arg(long, default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Shuffles per permutation test; the smallest p-value is 1/(permutations + 1).
    #[arg(long, default_value_t = 999, value_parser = parse_positive)]
    pub permutations: usize,
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("clocks"))]
pub struct ClocksArgs {
    /// How long to wait before measuring the offsets a second time.
    #[arg(long, value_parser = parse_duration, default_value = "2s")]
    pub wait: Duration,
    /// Ping-pong exchanges per pair of processes.
    #[arg(long, default_value_t = 20)]
    pub exchanges: usize,
    /// Fit a linear drift from two synchronisations this far apart (0: offsets only).
    #[arg(long, value_parser = parse_duration_or_zero, default_value = "0")]
    pub drift: Duration,
}

/// What the report shows and when the run fails.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// What goes to standard output; the files in the output directory are always written.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also show every candidate's median, slowdown, p-value and rank per check.
    #[arg(long)]
    pub details: bool,
    /// Colour the overview grid: auto (terminal and no NO_COLOR), always, never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Exit with status 1 when a violation of at least this severity is found: `violated`,
    /// any; `inconclusive`: also when a case could neither show a violation nor that the
    /// guideline holds; `new` (with --baseline): only a violation the baseline launches did
    /// not have (known ones are reported); `none`: report only. Regressions always fail.
    #[arg(long, value_enum, default_value_t = FailOn::Violated, requires_if("new", "baseline"))]
    pub fail_on: FailOn,
    /// Pass a run that could not decide (noisy, or more than half of its cases inconclusive
    /// or powerless) instead of exiting with status 9.
    #[arg(long)]
    pub allow_undecided: bool,
    /// Previous launches to compare `default` with: repeat the option, or name a directory
    /// of runs. A `default` significantly slower than the spread between these launches
    /// allows, by more than --tolerance, is a regression and fails the run.
    #[arg(long, value_name = "DIR|results.json")]
    pub baseline: Vec<PathBuf>,
    /// How much slower than the baseline is tolerated, e.g. 5% or 0.05.
    #[arg(long, value_parser = parse_fraction, default_value = "5%")]
    pub tolerance: f64,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("analyze"), args_override_self = true)]
pub struct AnalyzeArgs {
    /// A directory written by `pgcheck run --output DIR`.
    pub dir: PathBuf,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Where to write the new results.json, summary.csv, report.md and SVG figures, as
    /// `run --output` names them (default: DIR/reanalysis).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

/// Options shared by commands that prepare candidates.
#[derive(Args, Debug, Clone, Default)]
pub struct SetupArgs {
    /// Form virtual nodes of N consecutive ranks (for lane and hier candidates).
    #[arg(long, value_name = "N")]
    pub ppn: Option<usize>,
    /// Memory a process may hold, e.g. 512MiB, 2GiB: its resident set when planning, and
    /// per case the buffers, verification's copies, every competitor's scratch and twice
    /// the largest buffer for the library's temporaries; what does not fit is skipped
    /// (default: a quarter of the node's memory shared by its processes, at most 4 GiB).
    #[arg(long, value_parser = parse_bytes, value_name = "BYTES")]
    pub max_memory: Option<u64>,
    /// Element datatype (overrides the file's; default byte with --collective).
    #[arg(long, value_enum)]
    pub datatype: Option<DatatypeArg>,
    /// Reduction operator (overrides the file's; default bor with --collective).
    #[arg(long, value_enum)]
    pub op: Option<OpArg>,
    /// A call of the library, or a wait for the other ranks, that lasts longer
    /// than this (and than 10 × the budget and 10 × the call's verification)
    /// is a hang: the job ends with status 7. Default 10s, times the square of
    /// the ranks per CPU where ranks share CPUs (busy-polling ranks wait for
    /// each other's time slices).
    #[arg(long, value_parser = parse_duration)]
    pub timeout: Option<Duration>,
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("run"), args_override_self = true)]
pub struct RunArgs {
    /// The YAML list of checks; or give one check with --collective and --sizes instead.
    /// Without either: the default input, inputs/quick.yaml (compiled in; a few seconds:
    /// allreduce, bcast, allgather, scatter and gather at two sizes each).
    // The check's options say one check instead of the file's: clap does
    // not require what conflicts with a present argument, so each conflicts.
    #[arg(conflicts_with_all = ["collective", "sizes", "competitors", "root", "blocks"])]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub check: CheckArgs,
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Time budget per candidate and size, e.g. 500ms, 2s (overrides the file; default 1s).
    #[arg(long, value_parser = parse_duration)]
    pub budget: Option<Duration>,
    /// Rounds the budget is cut into; each round runs the candidates in a fresh random order
    /// (overrides the file; default one per 5 ms of the budget, 20 to 300).
    #[arg(long, value_parser = parse_positive)]
    pub rounds: Option<usize>,
    /// Seed of the candidate order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Warm-up calls per candidate and size before measuring.
    #[arg(long, default_value_t = 3)]
    pub warmup: usize,
    /// Run even when the test cannot reach significance with the rounds
    /// given (a warning instead of an input error).
    #[arg(long)]
    pub allow_powerless: bool,
    /// Synchronisation of observations (overrides the file; default auto).
    #[arg(long, value_enum)]
    pub sync: Option<SyncRequest>,
    /// Cache state at the start of each observation.
    #[arg(long, value_enum, default_value_t = CacheState::Warm)]
    pub cache: CacheState,
    /// How the universal guidelines compare sizes: from cases measured apart (reported only)
    /// or with the next smaller size in every case's rounds (counted for --fail-on).
    #[arg(long, value_enum, default_value_t = UniversalMode::Apart)]
    pub universal: UniversalMode,
    /// The share of the time in timed calls that checking sampled outputs against the
    /// reference may cost, e.g. 0.02 (0: only each chunk's last call and one more call).
    #[arg(long, value_parser = parse_fraction, default_value = "0.02")]
    pub check_share: f64,
    /// Bind each rank the launcher left unbound to a core of its own (auto), or leave
    /// placement to the launcher and the scheduler (none).
    #[arg(long, value_enum, default_value_t = PinMode::Auto)]
    pub pin: PinMode,
    /// With --sync roundtime, resynchronise clocks older than this.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub resync: Duration,
    /// With --sync roundtime, also fit a linear clock drift from two synchronisations
    /// this far apart (0: offsets only; default 100ms when ranks span several nodes, else 0).
    #[arg(long, value_parser = parse_duration_or_zero)]
    pub drift: Option<Duration>,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub report: ReportArgs,
    /// Directory for the run's files: raw/ (a Parquet file per case; see --raw) with every
    /// observation, results.json (everything decided), summary.csv (one row per case and
    /// candidate), report.md, overview.svg, per collective latency-<collective>.svg,
    /// and per case check-<collective>-<size>B.svg, rounds-<collective>-<size>B.svg
    /// and usual-<collective>-<size>B.svg (with -root<r> for rooted collectives).
    /// files.txt lists them: an earlier run's files that this run does not write again are
    /// removed (only those it listed), other files left alone.
    #[arg(long, short, default_value = "pgcheck-results")]
    pub output: PathBuf,
    /// How to keep every observation: raw/, a Parquet file per case (about 3
    /// bytes each), raw.csv.gz (3–5), raw.csv (65–77), or not at all
    /// (`analyze` then cannot decide the run again).
    #[arg(long, value_enum, default_value_t = crate::store::raw::RawFormat::Parquet)]
    pub raw: crate::store::raw::RawFormat,
}

/// One check on the command line instead of a file: what a file's check
/// can say.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The collective (or operation: send, put, get, …) to check, instead of an input file.
    #[arg(long, visible_alias = "operation", value_parser = crate::config::parse_operation, value_name = "NAME")]
    pub collective: Option<Operation>,
    /// Sizes in bytes, comma-separated, with binary units (K = KiB = 1024) and OSU-style
    /// ranges: `8,1KiB,4K:1M` (4K:1M: 4 KiB, 8 KiB, 16 KiB, … up to 1 MiB;
    /// 4K:1M:4: 4 KiB, 16 KiB, 64 KiB, …, times 4 each step). Per process for allgather, alltoall, gather, scatter,
    /// reduce_scatter_block; the whole vector otherwise.
    #[arg(long, value_parser = parse_size_list, requires = "collective", value_name = "LIST")]
    pub sizes: Option<SizeList>,
    /// Competitors to measure against (comma-separated; `all`: the collective's built-in
    /// ones, `library`: the library's own algorithms).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "all",
        requires = "collective"
    )]
    pub competitors: Vec<String>,
    /// Root of bcast, gather, reduce and scatter.
    #[arg(long, requires = "collective")]
    pub root: Option<usize>,
    /// Blocks of the n-block circulant broadcast (bcast).
    #[arg(long, value_parser = parse_positive, requires = "collective")]
    pub blocks: Option<usize>,
    /// Which forms of the library's call are timed: the usual one (false), the in-place one
    /// (true), or both, the in-place one as the competitor default_in_place. With an input
    /// file: over the `in_place` of its every check but bcast's (which has no in-place form).
    #[arg(long, value_enum)]
    pub in_place: Option<InPlaceArg>,
}

/// A list of sizes in bytes (`--sizes`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeList(pub Vec<u64>);

fn parse_size_list(text: &str) -> Result<SizeList, String> {
    parse_sizes(text).map(SizeList)
}

fn parse_size_list_or_zero(text: &str) -> Result<SizeList, String> {
    parse_sizes_or_zero(text).map(SizeList)
}

/// `--in-place`, as the input's `in_place` spells it.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum InPlaceArg {
    False,
    True,
    Both,
}

impl From<InPlaceArg> for TimedForms {
    fn from(a: InPlaceArg) -> TimedForms {
        match a {
            InPlaceArg::False => TimedForms::Usual,
            InPlaceArg::True => TimedForms::InPlace,
            InPlaceArg::Both => TimedForms::Both,
        }
    }
}

/// How observations become verdicts.
#[derive(Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Significance level of the tests.
    #[arg(long, default_value_t = 0.05, value_parser = parse_alpha)]
    pub alpha: f64,
    /// Two-sample test; the alternative is "default is slower". Default: paired
    /// (Wilcoxon signed-rank on the per-round medians, paired by round) from 20
    /// rounds on, where it found more known slowdowns than rounds (Mann–Whitney on
    /// the per-round medians), else rounds; both kept A/A false alarms below
    /// alpha. On all observations (mwu) they are not independent and it flags ~half.
    #[arg(long, value_enum)]
    pub test: Option<Test>,
    /// Correction for multiple comparisons within each case (its competitors).
    #[arg(long, value_enum, default_value_t = Correction::Holm)]
    pub correction: Correction,
    /// The slowdown that matters, e.g. 1.05: a guideline is violated when a
    /// competitor is shown to be more than this factor faster than default,
    /// and holds when every one is shown to be less (two one-sided tests at
    /// the same boundary, so runs cannot flip between the two).
    #[arg(long, default_value_t = crate::analyse::DEFAULT_MARGIN, value_parser = parse_margin)]
    pub margin: f64,
    /// Outlier filter applied to each candidate's valid observations before the tests
    /// (the usual times reported are fitted before it, on every valid observation).
    #[arg(long, value_enum, default_value_t = Outliers::None)]
    pub outliers: Outliers,
    /// Quantile of the fitted error law (Poisson or discretised exponential above the
    /// fastest time) that bounds each candidate's usual time: t_max = min + the error's
    /// q_max quantile; time beyond it is overhead. Kluge et al. (2005) suggest 0.8 to 0.99.
    #[arg(long, default_value_t = crate::analyse::DEFAULT_QMAX, value_parser = parse_qmax)]
    pub qmax: f64,
}

fn parse_positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{text}` must be a whole number of at least 1")),
    }
}

fn parse_margin(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if m > 1.0 && m.is_finite() => Ok(m),
        _ => Err(format!(
            "margin `{text}` must be a factor above 1, e.g. 1.05"
        )),
    }
}

fn parse_qmax(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(q) if q > 0.0 && q < 1.0 => Ok(q),
        _ => Err(format!(
            "qmax `{text}` must be a quantile between 0 and 1 (exclusive), e.g. 0.95"
        )),
    }
}

fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("alpha `{text}` must be a number between 0 and 1")),
    }
}

#[derive(Args, Debug)]
#[command(after_help = exit_help("verify"))]
pub struct VerifyArgs {
    /// The YAML list of checks; without it, every collective and competitor at built-in sizes.
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Only these collectives (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub collective: Vec<String>,
    /// Only these competitors (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub competitor: Vec<String>,
    /// Only competitors of these families: mockup, lane, hier, circulant, p2p, nonblocking,
    /// persistent, communicator, library, transfer (send, put, get; comma-separated).
    #[arg(long, value_delimiter = ',', value_enum)]
    pub family: Vec<FamilyArg>,
    /// Sizes instead of the built-in set, as `run --sizes` takes them (`8,1KiB,4K:1M`), and
    /// 0 (a call with no elements).
    #[arg(long, value_parser = parse_size_list_or_zero, value_name = "LIST")]
    pub sizes: Option<SizeList>,
    /// Roots to try: ranks or `first`, `middle`, `last` (comma-separated; default first,middle,last).
    #[arg(long, value_delimiter = ',')]
    pub roots: Vec<String>,
}

macro_rules! value_enum_of {
    ($arg:ident, $target:ty, $($variant:ident),*) => {
        #[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
        pub enum $arg { $($variant),* }
        impl From<$arg> for $target {
            fn from(a: $arg) -> $target {
                match a { $($arg::$variant => <$target>::$variant),* }
            }
        }
    };
}

value_enum_of!(
    FamilyArg,
    crate::candidates::Family,
    Mockup,
    Lane,
    Hier,
    Circulant,
    Nonblocking,
    Communicator,
    P2p,
    Persistent,
    Library,
    Transfer
);
value_enum_of!(DatatypeArg, Datatype, Byte, Int32, Int64, Float32, Float64);
value_enum_of!(OpArg, Op, Sum, Prod, Min, Max, Band, Bor, Bxor);
#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn every_help_lists_the_exit_statuses_of_its_command() {
        let mut cli = Cli::command();
        let top = cli.render_long_help().to_string();
        for e in Exit::ALL {
            assert!(
                top.contains(&format!("\n  {}  ", e.code())),
                "{e:?} in --help"
            );
        }
        assert!(!top.contains("\n  10  "));
        let mut names = Vec::new();
        // clap's own `help` prints and exits 0.
        for command in cli.get_subcommands_mut().filter(|c| c.get_name() != "help") {
            let name = command.get_name().to_string();
            let help = command.render_long_help().to_string();
            assert!(help.contains("Exit status:"), "{name} --help");
            for e in Exit::ALL {
                let line = format!("\n  {}  ", e.code());
                assert_eq!(
                    help.contains(&line),
                    exit_statuses_of(&name).contains(&e),
                    "{name} --help and status {e:?}:\n{help}"
                );
            }
            names.push(name);
        }
        assert_eq!(names.len(), 8, "{names:?}");
    }

    #[test]
    fn run_takes_a_file_or_a_check_or_neither_but_not_both() {
        let parse = |args: &[&str]| {
            Cli::try_parse_from(["pgcheck", "run"].iter().chain(args))
                .map(drop)
                .map_err(|e| e.to_string())
        };
        assert!(parse(&["in.yaml"]).is_ok());
        let both = parse(&["in.yaml", "--collective", "bcast", "--sizes", "8"]).unwrap_err();
        assert!(both.contains("cannot be used with"), "{both}");
        // Neither: the default input.
        assert!(parse(&[]).is_ok());
        let help = Cli::command()
            .find_subcommand_mut("run")
            .expect("run")
            .render_long_help()
            .to_string();
        assert!(help.contains("[INPUT]"), "{help}");
        assert!(
            help.contains("Without either: the default input, inputs/quick.yaml"),
            "{help}"
        );
        // A barrier needs no sizes: whether a collective does is the
        // input's check (`config`), not the parser's.
        assert!(parse(&["--collective", "barrier"]).is_ok());
        let no_collective = parse(&["--sizes", "8"]).unwrap_err();
        assert!(
            no_collective.contains("--collective <NAME>"),
            "{no_collective}"
        );
        for stray in [
            &["in.yaml", "--root", "1"][..],
            &["in.yaml", "--competitors", "x"],
        ] {
            let stray = parse(stray).unwrap_err();
            assert!(stray.contains("cannot be used with"), "{stray}");
        }
        assert!(parse(&["--root", "1"])
            .unwrap_err()
            .contains("--collective <NAME>"));
        let bad = parse(&["--collective", "bcast", "--sizes", "8,1X"]).unwrap_err();
        assert!(
            bad.contains("invalid value '8,1X' for '--sizes <LIST>': unknown unit `X` in `1X`"),
            "{bad}"
        );
        let typo = parse(&["--collective", "bcst", "--sizes", "8"]).unwrap_err();
        assert!(
            typo.contains("unknown collective `bcst` (did you mean `bcast`?)"),
            "{typo}"
        );
    }
}
