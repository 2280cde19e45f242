//! One module per subcommand, each a straight pipeline: config → plan →
//! measure → analyse → report. Each takes its settings
//! ([`arguments`]) and returns how it ended
//! ([`Ending`]), which [`crate::exit::status`] maps to the exit status.
//! What several share is here.

pub mod analyze;
pub mod arguments;
pub mod clocks;
pub mod compare;
pub mod history;
pub mod list;
pub mod run;
pub mod tune;
pub mod verify;

use crate::analyse::defaults::Defaults;
use crate::analyse::launches::Launch;
use crate::analyse::{self, Options, Results, Verdict};
use crate::commands::arguments::{Report, Setup};
use crate::config::Config;
use crate::exit::{self, Ending};
use crate::measure::Context;
use crate::plan::{self, World};
use crate::report;
use crate::store;
use crate::watchdog::{self, Failure};
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// A panic on any rank aborts the whole job instead of leaving the other
/// ranks waiting in a collective.
pub fn abort_on_panic() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        let rank = SimpleCommunicator::world().rank();
        watchdog::ending();
        report::error(&format!("rank {rank} failed; aborting the job"));
        SimpleCommunicator::world().abort(exit::status(Ending::Panicked).code());
    }));
}

/// Starts the watchdog: a failure it ends the job with is said on standard
/// error and, where `output` (the run's directory) can be reached, recorded
/// in its `results.json`.
pub fn start_watchdog(ctx: &Context, bound_s: f64, output: Option<PathBuf>) {
    let report = move |rank: usize, failure: Failure, what: &str| {
        let kind = failure.label();
        let status = exit::Exit::of_failure(failure).code();
        report::error(&format!(
            "rank {rank} {what}; ending the job with status {status} ({kind})"
        ));
        // Every rank records what it saw where it can reach the output
        // directory (rank 0's node, or a shared file system).
        if let Some(dir) = output.as_ref().filter(|d| d.is_dir()) {
            let seen = analyse::RankFailure {
                rank,
                what: what.into(),
            };
            if let Err(e) = store::results::record_failure(dir, kind, status, seen) {
                report::warning(&format!("cannot record the {kind} in results.json: {e}"));
            }
        }
    };
    let on_end = watchdog::OnEnd {
        status: |failure| exit::Exit::of_failure(failure).code(),
        report: Box::new(report),
    };
    watchdog::start(ctx.rank(), bound_s, on_end);
}

/// Reports an input error once, from rank 0.
pub fn input_error(leader: bool, message: &str) -> Ending {
    if leader {
        report::error(message);
    }
    Ending::InputError
}

/// Tells every rank rank 0's exit status: rank 0 keeps its ending, the
/// others end as it does.
fn agree(ctx: &Context, ending: Ending) -> Ending {
    let mut code = [exit::status(ending).code()];
    ctx.control.broadcast(&mut code);
    match ctx.rank() {
        0 => ending,
        _ => Ending::AsRankZero { code: code[0] },
    }
}

/// The processes and their node topology (real, or virtual with `ppn`):
/// `--ppn` first, else the file's. A ppn error names the file's line when
/// the file set it.
pub fn context(
    comm: &Rc<SimpleCommunicator>,
    setup: &Setup,
    config: Option<&Config>,
) -> Result<Context, String> {
    let ppn = setup.ppn.or(config.and_then(|c| c.ppn));
    let size = comm.size() as usize;
    if let Some(n) = ppn {
        if n == 0 || !size.is_multiple_of(n) {
            let message =
                format!("--ppn {n} does not divide the {size} processes into equal virtual nodes");
            return Err(
                match (setup.ppn, config.and_then(|c| Some((c, c.ppn_line?)))) {
                    (None, Some((config, line))) => {
                        config.error_at(line, &message.replace("--ppn", "ppn")).0
                    }
                    _ => message,
                },
            );
        }
    }
    let topology = algorithms::topology::Topology::new(comm, ppn).map(Rc::new);
    Ok(Context {
        comm: comm.clone(),
        control: crate::control::Control::new(comm),
        topology,
    })
}

/// The process world as the plan sees it; collective.
fn world(ctx: &Context, setup: &Setup) -> World {
    let on_this_host = crate::measure::survey::ranks_on_this_host(ctx);
    World {
        processes: ctx.size(),
        topology: ctx.topology.as_ref().map(|_| ()).map_err(Clone::clone),
        persistent: match crate::candidates::persistent_request::missing(
            mpi::environment::version(),
            &crate::measure::machine::library_version(),
        ) {
            Some(why) => Err(why),
            None => Ok(()),
        },
        max_memory: setup
            .max_memory
            .unwrap_or_else(|| plan::default_max_memory(on_this_host)),
        resident_bytes: crate::measure::resident_bytes(ctx),
    }
}

/// The baseline `--baseline` names, read before measuring so that its
/// errors stop the run early.
enum Baseline {
    /// One launch: its verdicts and `default` samples come from its files.
    One {
        name: String,
        saved: Box<store::Saved>,
    },
    /// Several launches: their verdicts are all the comparison reads.
    Launches(Vec<Launch>),
}

impl Baseline {
    fn read(report: &Report) -> Result<Option<Baseline>, String> {
        if report.baseline.is_empty() {
            return Ok(None);
        }
        let runs = store::runs(&report.baseline).map_err(|e| format!("--baseline: {e}"))?;
        if let [one] = &runs[..] {
            let saved = store::load_baseline(&one.dir)?;
            return Ok(Some(Baseline::One {
                name: one.name.clone(),
                saved: Box::new(saved),
            }));
        }
        runs.iter()
            .map(|run| {
                let results =
                    store::load_results(&run.dir).map_err(|e| format!("--baseline: {e}"))?;
                Ok(Launch {
                    name: run.name.clone(),
                    start_time: results.meta.start_time,
                    checks: results.checks,
                    calibration_s: results.meta.machine_state.map(|s| s.calibration_s),
                })
            })
            .collect::<Result<_, String>>()
            .map(|launches| Some(Baseline::Launches(launches)))
    }
}

/// A baseline as the comparison takes it.
enum Against<'a, B: ?Sized> {
    /// One launch's name, verdicts and `default` samples.
    One(&'a str, &'a [Verdict], &'a B),
    Launches(&'a [Launch]),
}

/// The baseline's verdicts: as its `results.json` has them (those `tune`
/// decided from), else decided again from its observations with this run's
/// options.
fn baseline_verdicts(saved: &store::Saved, options: &Options) -> Vec<Verdict> {
    match &saved.results {
        Some(r) => r.checks.clone(),
        None => analyse::verdicts(&saved.cases, options),
    }
}

/// Compares `results` with the baseline, if there is one: `default` case
/// by case (`cases` has this run's samples), and what became of the
/// baseline's violations (of its latest launch).
fn compare_with_baseline<B: Defaults + ?Sized, C: Defaults + ?Sized>(
    results: &mut Results,
    baseline: Option<Against<B>>,
    cases: &C,
    tolerance: f64,
    options: &Options,
) {
    results.baseline = baseline.map(|against| match against {
        Against::One(name, verdicts, old) => analyse::baseline::compare_runs(
            name,
            old,
            cases,
            (verdicts, &results.checks),
            tolerance,
            options,
        ),
        Against::Launches(launches) => {
            let mut in_order: Vec<&Launch> = launches.iter().collect();
            in_order.sort_by(|a, b| a.start_time.cmp(&b.start_time));
            let verdicts: Vec<&[Verdict]> = in_order.iter().map(|l| &l.checks[..]).collect();
            let calibrations: Vec<Option<f64>> = launches.iter().map(|l| l.calibration_s).collect();
            let now = results.meta.machine_state.as_ref().map(|s| s.calibration_s);
            let (judged, left_out) = analyse::launches::in_state(launches, now);
            let mut comparison = analyse::launches::compare_within(
                launches,
                &judged,
                &results.checks,
                tolerance,
                options,
            );
            if !left_out.is_empty() {
                let words = analyse::launches::in_state_words(judged.len(), &left_out);
                comparison.method = format!("{words}; {}", comparison.method);
                comparison.left_out = left_out;
            }
            analyse::baseline::Comparison {
                violations: analyse::baseline::violation_changes(
                    &verdicts,
                    &results.checks,
                    options,
                ),
                machine_state: analyse::baseline::StateAgainst::of(now, &calibrations),
                ..comparison
            }
        }
    });
}

/// Rank 0's end of an analysis: the gate's exit status, the report,
/// failures on standard error, the files.
fn finish(results: &mut Results, settings: &Report, dir: &Path) -> Ending {
    let (exit, status) = exit::gate(results, settings.gate);
    results.exit = Some(status.clone());
    report::show(&report::render(results, &settings.view));
    // The terminal report says each failure under its table, and the exit
    // line names them; other formats go to files or programs, so a person
    // reads them here.
    if settings.view.format != report::Format::Table {
        for line in report::failures(results) {
            report::error(&line);
        }
    }
    if let Err(e) = store::write_reports(dir, results) {
        report::error(&format!("cannot write {e}"));
        return Ending::CannotWrite;
    }
    report::remark(&report::wall_time(&results.meta, dir));
    report::remark(&report::exit_line(&status));
    Ending::Gated(exit)
}
