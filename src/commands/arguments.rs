//! The command line converted once into what each subcommand runs with, as
//! ripgrep turns its low-level arguments into high-level ones: clap's
//! arguments (`cli`) go in, settings the commands can use as they are come
//! out, and no command reads a clap argument.

use crate::analyse::{Options, Test};
use crate::cli::{self, ColorChoice, CompareFormat};
use crate::config::{Config, RawCheck};
use crate::element::{Datatype, Op};
use crate::exit::Gate;
use crate::meta::Meta;
use crate::operation::Operation;
use crate::plan::verify::Selection;
use crate::report::{self, View};
use crate::settings::{
    self, CacheState, PinMode, Settings, SyncRequest, TimedForms, UniversalMode,
};
use crate::stats::change_point;
use crate::store::raw::RawFormat;
use std::path::PathBuf;
use std::time::Duration;

/// One subcommand and what it runs with.
pub enum Command {
    Run(Run),
    Verify(Verify),
    Analyze(Analyze),
    List,
    Clocks(Clocks),
    Compare(Compare),
    History(History),
    Tune(Tune),
}

impl Command {
    /// The settings of a parsed command line.
    pub fn of(command: cli::Command) -> Command {
        match command {
            cli::Command::Run(a) => Command::Run(Run::of(a)),
            cli::Command::Verify(a) => Command::Verify(Verify::of(a)),
            cli::Command::Analyze(a) => Command::Analyze(Analyze {
                dir: a.dir.clone(),
                analysis: Analysis::of(&a.analysis, &a.report),
                report: Report::of(a.report),
                // As `run --output` names the files, beside the run's own.
                output: a.output.unwrap_or_else(|| a.dir.join("reanalysis")),
            }),
            cli::Command::List => Command::List,
            cli::Command::Clocks(a) => Command::Clocks(Clocks {
                wait_s: a.wait.as_secs_f64(),
                exchanges: a.exchanges,
                drift_s: a.drift.as_secs_f64(),
            }),
            cli::Command::Compare(a) => Command::Compare(Compare {
                runs: a.runs,
                format: a.format,
                output: a.output,
                color: colour(a.color),
            }),
            cli::Command::History(a) => Command::History(History {
                runs: a.runs,
                under_test: a.under_test,
                format: a.format,
                output: a.output,
                change_points: change_point::Settings {
                    alpha: a.alpha,
                    permutations: a.permutations,
                    seed: HISTORY_SEED,
                },
            }),
            cli::Command::Tune(a) => Command::Tune(Tune {
                runs: a.runs,
                output: a.output,
            }),
        }
    }
}

/// The seed of `history`'s permutation tests: fixed, so that the same runs
/// give the same p-values every time.
const HISTORY_SEED: u64 = 0;

/// Where the candidates run and what a case may hold (`run`, `verify`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setup {
    /// Virtual nodes of this many consecutive ranks (`--ppn`, which comes
    /// before the input's `ppn`).
    pub ppn: Option<usize>,
    /// The bytes a process may hold (`--max-memory`); `None`: a share of
    /// the node's memory.
    pub max_memory: Option<u64>,
    /// The element datatype and operator of every check, over the input's.
    pub datatype: Option<Datatype>,
    pub op: Option<Op>,
    /// How long a call or a wait may last before it is a hang, if given
    /// ([`crate::settings::timeout`] gives the default).
    pub timeout: Option<Duration>,
}

impl Setup {
    /// How long a call or a wait may last before it is a hang, given where
    /// ranks share CPUs ([`crate::settings::timeout`]).
    pub fn timeout(&self, shared: Option<&crate::meta::SharedCpus>) -> Duration {
        settings::timeout(self.timeout, shared)
    }

    fn of(a: &cli::SetupArgs) -> Setup {
        Setup {
            ppn: a.ppn,
            max_memory: a.max_memory,
            datatype: a.datatype.map(Into::into),
            op: a.op.map(Into::into),
            timeout: a.timeout,
        }
    }
}

/// How observations become verdicts (`run`, `analyze`).
#[derive(Clone, Debug)]
pub struct Analysis {
    /// The options as the command line gives them; the noise floor and the
    /// timer's resolution are 0 until measuring finds them, and the test
    /// the default until the rounds are known ([`Analysis::options`]).
    pub given: Options,
    /// `--test`, if given.
    pub test: Option<Test>,
}

impl Analysis {
    fn of(a: &cli::AnalysisArgs, report: &cli::ReportArgs) -> Analysis {
        Analysis {
            test: a.test,
            given: Options {
                alpha: a.alpha,
                test: a.test.unwrap_or(Test::Rounds),
                correction: a.correction,
                outliers: a.outliers,
                noise_floor_s: 0.0,
                margin: a.margin,
                qmax: a.qmax,
                timer_resolution_s: 0.0,
                fail_on: report.fail_on.severity(),
            },
        }
    }

    /// The options to decide with, given the noise floor, the timer
    /// resolution and the rounds of the run (`meta`).
    pub fn options(&self, meta: &Meta) -> Options {
        Options {
            noise_floor_s: meta.noise_floor_s,
            timer_resolution_s: meta.timer_resolution_s,
            test: self.test_for(meta.rounds),
            ..self.given.clone()
        }
    }

    /// The test asked for, else the default for `rounds` rounds.
    pub fn test_for(&self, rounds: usize) -> Test {
        self.test.unwrap_or_else(|| Test::for_rounds(rounds))
    }
}

/// How the report is shown, what the run is compared with, and what fails
/// it (`run`, `analyze`).
#[derive(Clone, Debug)]
pub struct Report {
    pub view: View,
    pub gate: Gate,
    /// Previous launches to compare `default` with (`--baseline`).
    pub baseline: Vec<PathBuf>,
    /// How much slower than the baseline is tolerated.
    pub tolerance: f64,
}

impl Report {
    fn of(a: cli::ReportArgs) -> Report {
        Report {
            view: View {
                format: a.format,
                details: a.details,
                color: colour(a.color),
            },
            gate: Gate {
                fail_on: a.fail_on,
                allow_undecided: a.allow_undecided,
            },
            baseline: a.baseline,
            tolerance: a.tolerance,
        }
    }
}

/// Whether to colour standard output: `auto` only for a person at a
/// terminal who did not set `NO_COLOR`.
fn colour(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => report::colour_auto(),
    }
}

/// What `run` checks: an input file, one check given by options, or the
/// default input ([`crate::config::DEFAULT_INPUT`]).
pub enum Input {
    File(PathBuf),
    Check(RawCheck),
    Default,
}

/// `pgcheck run`.
pub struct Run {
    pub input: Input,
    /// `--in-place`, over every check of the input that has an in-place
    /// form; a check of `--collective` has it already.
    pub in_place: Option<TimedForms>,
    pub setup: Setup,
    /// Over the input's budget and rounds; default 1 s and the rounds
    /// that budget buys ([`crate::settings::default_rounds`]).
    pub budget: Option<Duration>,
    pub rounds: Option<usize>,
    pub seed: u64,
    pub warmup: usize,
    /// Over the input's `sync`; default `auto`.
    pub sync: Option<SyncRequest>,
    pub cache: CacheState,
    pub universal: UniversalMode,
    pub check_share: f64,
    pub resync: Duration,
    /// `None`: by where the ranks run ([`Run::measuring`]).
    pub drift: Option<Duration>,
    /// A test that cannot reach significance is a warning, not an error.
    pub allow_powerless: bool,
    pub pin: PinMode,
    pub analysis: Analysis,
    pub report: Report,
    /// The run's directory.
    pub output: PathBuf,
    pub raw: RawFormat,
}

impl Run {
    fn of(a: cli::RunArgs) -> Run {
        let setup = Setup::of(&a.setup);
        let in_place = a.check.in_place.map(Into::into);
        let input = match (a.input, a.check.collective) {
            (Some(path), _) => Input::File(path),
            (None, Some(operation)) => Input::Check(check_of(operation, a.check, &setup)),
            (None, None) => Input::Default,
        };
        Run {
            input,
            in_place,
            setup,
            budget: a.budget,
            rounds: a.rounds,
            seed: a.seed,
            warmup: a.warmup,
            sync: a.sync,
            cache: a.cache,
            universal: a.universal,
            check_share: a.check_share,
            resync: a.resync,
            drift: a.drift,
            allow_powerless: a.allow_powerless,
            pin: a.pin,
            analysis: Analysis::of(&a.analysis, &a.report),
            report: Report::of(a.report),
            output: a.output,
            raw: a.raw,
        }
    }

    /// How to measure: the command line over the input (`config`), then
    /// the defaults. `nodes_apart`: the ranks span real nodes, whose
    /// clocks drift apart (those of one node do not).
    pub fn measuring(&self, config: &Config, nodes_apart: bool) -> Settings {
        let budget = self
            .budget
            .or(config.budget)
            .unwrap_or(Duration::from_secs(1));
        Settings {
            budget,
            rounds: self
                .rounds
                .or(config.rounds)
                .unwrap_or_else(|| settings::default_rounds(budget)),
            rounds_by_budget: self.rounds.or(config.rounds).is_none(),
            seed: self.seed,
            warmup: self.warmup,
            sync: self.sync.or(config.sync).unwrap_or_default(),
            cache: self.cache,
            resync_s: self.resync.as_secs_f64(),
            universal: self.universal,
            check_share: self.check_share,
            drift_s: self.drift.map_or(
                match nodes_apart {
                    true => 0.1,
                    false => 0.0,
                },
                |d| d.as_secs_f64(),
            ),
        }
    }
}

/// The check `--collective` and its options give, as a file's check is
/// written, with the element options of `setup`.
fn check_of(operation: Operation, a: cli::CheckArgs, setup: &Setup) -> RawCheck {
    RawCheck {
        collective: operation,
        sizes: a.sizes.map(|s| s.0).unwrap_or_default(),
        root: a.root,
        competitors: match &a.competitors[..] {
            [all] if all == "all" => None,
            _ => Some(a.competitors),
        },
        datatype: setup.datatype,
        op: setup.op,
        blocks: a.blocks,
        in_place: a.in_place.map(Into::into),
    }
}

/// `pgcheck verify`.
#[derive(Clone, Debug)]
pub struct Verify {
    /// The input whose checks are verified; `None`: the built-in set.
    pub input: Option<PathBuf>,
    pub setup: Setup,
    pub selection: Selection,
}

impl Verify {
    fn of(a: cli::VerifyArgs) -> Verify {
        let setup = Setup::of(&a.setup);
        Verify {
            input: a.input,
            selection: Selection {
                collectives: a.collective,
                competitors: a.competitor,
                families: a.family.into_iter().map(Into::into).collect(),
                sizes: a.sizes.map(|s| s.0).unwrap_or_default(),
                roots: a.roots,
                datatype: setup.datatype,
                op: setup.op,
            },
            setup,
        }
    }
}

/// `pgcheck analyze`.
#[derive(Clone, Debug)]
pub struct Analyze {
    /// The run to decide again.
    pub dir: PathBuf,
    pub analysis: Analysis,
    pub report: Report,
    /// Where the new files go.
    pub output: PathBuf,
}

/// `pgcheck clocks`.
#[derive(Clone, Debug, PartialEq)]
pub struct Clocks {
    /// How long to wait before measuring the offsets again.
    pub wait_s: f64,
    /// Ping-pong exchanges per pair of processes.
    pub exchanges: usize,
    /// Fit a drift from two synchronisations this far apart (0: offsets only).
    pub drift_s: f64,
}

/// `pgcheck compare`.
#[derive(Clone, Debug, PartialEq)]
pub struct Compare {
    pub runs: Vec<PathBuf>,
    pub format: CompareFormat,
    /// Where to write the comparison's files too.
    pub output: Option<PathBuf>,
    pub color: bool,
}

/// `pgcheck history`.
#[derive(Clone, Debug)]
pub struct History {
    pub runs: Vec<PathBuf>,
    /// The launch a gate judges, drawn beside the accepted ones.
    pub under_test: Option<PathBuf>,
    pub format: report::history::Format,
    /// Where to write the history's files too.
    pub output: Option<PathBuf>,
    pub change_points: change_point::Settings,
}

/// `pgcheck tune`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tune {
    /// The run, or Intel MPI's launches, to tune from.
    pub runs: Vec<PathBuf>,
    /// The tuning file to write.
    pub output: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use clap::Parser;

    fn settings(args: &[&str]) -> Command {
        let cli = cli::Cli::try_parse_from(std::iter::once(&"pgcheck").chain(args)).unwrap();
        Command::of(cli.command)
    }

    #[test]
    fn run_settings_come_from_the_command_line_over_the_input_over_the_defaults() {
        let Command::Run(run) = settings(&[
            "run",
            "in.yaml",
            "--rounds",
            "7",
            "--ppn",
            "2",
            "--datatype",
            "int32",
            "--alpha",
            "0.01",
            "--fail-on",
            "high",
            "--color",
            "never",
        ]) else {
            panic!("run")
        };
        assert!(matches!(&run.input, Input::File(p) if p == &PathBuf::from("in.yaml")));
        assert_eq!(run.setup.ppn, Some(2));
        assert_eq!(run.setup.datatype, Some(Datatype::Int32));
        assert_eq!(run.analysis.given.alpha, 0.01);
        assert_eq!(
            run.analysis.given.fail_on,
            Some(crate::analyse::Severity::High)
        );
        assert!(!run.report.view.color);
        assert_eq!(run.report.gate.fail_on, crate::exit::FailOn::High);
        let config = crate::config::from_options(crate::config::RawCheck {
            collective: Collective::Bcast.into(),
            sizes: vec![8],
            root: None,
            competitors: None,
            datatype: None,
            op: None,
            blocks: None,
            in_place: None,
        })
        .unwrap();
        let config = Config {
            budget: Some(Duration::from_millis(20)),
            rounds: Some(3),
            sync: Some(SyncRequest::Barrier),
            ..config
        };
        let measuring = run.measuring(&config, false);
        assert_eq!(measuring.budget, Duration::from_millis(20), "the input's");
        assert_eq!(measuring.rounds, 7, "the command line's");
        assert_eq!(measuring.sync, SyncRequest::Barrier);
        assert_eq!(measuring.drift_s, 0.0, "one node");
        assert_eq!(run.measuring(&config, true).drift_s, 0.1, "nodes apart");
        let bare = Config {
            budget: None,
            rounds: None,
            sync: None,
            ..config
        };
        let measuring = run.measuring(&bare, false);
        assert_eq!(
            (measuring.budget, measuring.rounds, measuring.sync),
            (Duration::from_secs(1), 7, SyncRequest::Auto),
            "the defaults, but the command line's rounds"
        );
        let Command::Run(bare_run) = settings(&["run", "in.yaml"]) else {
            panic!("run")
        };
        // The default budget of 1 s cut into slices of 5 ms.
        assert_eq!(bare_run.measuring(&bare, false).rounds, 200, "the default");
        // Its test: paired from 20 rounds on, unless --test says.
        let tests = [10, 19, 20, 100].map(|r| bare_run.analysis.test_for(r));
        assert_eq!(
            tests,
            [Test::Rounds, Test::Rounds, Test::Paired, Test::Paired]
        );
        let Command::Run(mwu) = settings(&["run", "in.yaml", "--test", "mwu"]) else {
            panic!("run")
        };
        assert_eq!(mwu.analysis.test_for(100), Test::Mwu);
    }

    #[test]
    fn run_takes_one_check_instead_of_a_file() {
        let Command::Run(run) = settings(&[
            "run",
            "--collective",
            "bcast",
            "--sizes",
            "8,1K:4K",
            "--root",
            "1",
            "--competitors",
            "bcast_as_scatter_allgather",
            "--datatype",
            "int32",
        ]) else {
            panic!("run")
        };
        let Input::Check(check) = run.input else {
            panic!("a check, not a file")
        };
        assert_eq!(check.collective, Collective::Bcast.into());
        assert_eq!(check.sizes, [8, 1024, 2048, 4096]);
        assert_eq!(check.root, Some(1));
        assert_eq!(
            check.competitors,
            Some(vec!["bcast_as_scatter_allgather".to_string()])
        );
        assert_eq!(check.datatype, Some(Datatype::Int32));
        // Without --competitors: all, as the default input has it.
        let Command::Run(run) = settings(&["run", "--collective", "allreduce", "--sizes", "8"])
        else {
            panic!("run")
        };
        let Input::Check(check) = run.input else {
            panic!("a check, not a file")
        };
        assert_eq!(check.competitors, None);
        // --in-place with a file, or with the default input: over its checks.
        for args in [
            &["run", "in.yaml", "--in-place", "both"][..],
            &["run", "--in-place", "true"],
        ] {
            let Command::Run(run) = settings(args) else {
                panic!("run")
            };
            assert!(run.in_place.is_some(), "{args:?}");
        }
    }

    #[test]
    fn the_measured_options_fill_in_what_the_command_line_cannot_know() {
        let Command::Analyze(analyze) = settings(&["analyze", "runs/a", "--margin", "1.2"]) else {
            panic!("analyze")
        };
        assert_eq!(analyze.output, PathBuf::from("runs/a/reanalysis"));
        let meta = Meta {
            noise_floor_s: 2e-6,
            timer_resolution_s: 1e-7,
            ..Meta::default()
        };
        let options = analyze.analysis.options(&meta);
        assert_eq!(
            (options.noise_floor_s, options.timer_resolution_s),
            (2e-6, 1e-7)
        );
        assert_eq!(options.margin, 1.2);
    }

    #[test]
    fn verify_selects_with_the_element_options() {
        let Command::Verify(verify) = settings(&[
            "verify",
            "--collective",
            "bcast,reduce",
            "--family",
            "lane",
            "--sizes",
            "0,8",
            "--op",
            "sum",
        ]) else {
            panic!("verify")
        };
        assert_eq!(verify.input, None);
        assert_eq!(
            verify.selection,
            Selection {
                collectives: vec!["bcast".into(), "reduce".into()],
                families: vec![crate::candidates::Family::Lane],
                sizes: vec![0, 8],
                op: Some(Op::Sum),
                ..Selection::default()
            }
        );
    }
}
