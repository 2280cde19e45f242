//! The pipelines of the commands: config → plan → measure → analyse → report.

use crate::analyse::{self, CaseData, CaseKey, Exclusion, Options, Sample};
use crate::cli::{AnalysisArgs, AnalyzeArgs, ReportArgs, RunArgs, SetupArgs, VerifyArgs};
use crate::collective::Collective;
use crate::config::{Config, InputError};
use crate::exit::Exit;
use crate::measure::{self, CaseRun, Context, Harness, Status};
use crate::plan::{self, Plan, World};
use crate::report::{self, Results};
use crate::settings::Settings;
use crate::{candidates, meta};
use mpi::traits::*;
use std::path::Path;
use std::time::Duration;

/// A panic on any rank aborts the whole job instead of leaving the other
/// ranks waiting in a collective.
pub fn abort_on_panic() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        let rank = mpi::topology::SimpleCommunicator::world().rank();
        crate::report::error(&format!("rank {rank} failed; aborting the job"));
        mpi::topology::SimpleCommunicator::world().abort(Exit::Internal.code());
    }));
}

/// Reports an input error once, from rank 0.
pub fn input_error(leader: bool, message: &str) -> Exit {
    if leader {
        report::error(message);
    }
    Exit::Input
}

/// The process world as the plan sees it; collective.
fn world(ctx: &Context, setup: &SetupArgs) -> World {
    let on_this_host = ctx.comm.split_shared(0).size() as usize;
    World {
        processes: ctx.size(),
        topology: ctx.topology.as_ref().map(|_| ()).map_err(Clone::clone),
        max_memory: setup
            .max_memory
            .unwrap_or_else(|| plan::default_max_memory(on_this_host)),
    }
}

/// Applies `--datatype`/`--op` to every check, checking them again.
fn override_elements(config: &Config, setup: &SetupArgs) -> Result<Config, InputError> {
    let mut config = config.clone();
    for check in &mut config.checks {
        if let Some(d) = setup.datatype {
            check.datatype = d.into();
        }
        if let Some(o) = setup.op {
            check.op = o.into();
        }
        check.validate_elements().map_err(|msg| {
            InputError(format!("{}:{}: {msg}", config.path.display(), check.line))
        })?;
    }
    Ok(config)
}

/// Checks that the output directory can be written, on rank 0, and tells
/// every rank.
fn prepare_output(ctx: &Context, dir: &Path) -> Result<(), String> {
    let mut ok = 1u8;
    let mut message = String::new();
    if ctx.rank() == 0 {
        if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| report::csv::create_raw(dir)) {
            ok = 0;
            message = format!("output directory {}: {e}", dir.display());
        }
    }
    ctx.comm.process_at_rank(0).broadcast_into(&mut ok);
    if ok == 1 {
        Ok(())
    } else {
        Err(message)
    }
}

/// Tells every rank rank 0's exit status.
fn agree(ctx: &Context, exit: Exit) -> Exit {
    let mut code = exit.code();
    ctx.comm.process_at_rank(0).broadcast_into(&mut code);
    [
        Exit::Pass,
        Exit::Violation,
        Exit::Input,
        Exit::Verification,
        Exit::Internal,
        Exit::Interrupted,
        Exit::Unmeasured,
    ]
    .into_iter()
    .find(|e| e.code() == code)
    .unwrap_or(Exit::Internal)
}

/// `pgcheck run`.
pub fn run(ctx: &Context, config: &Config, args: &RunArgs) -> Exit {
    let leader = ctx.rank() == 0;
    let config = match override_elements(config, &args.setup) {
        Ok(c) => c,
        Err(e) => return input_error(leader, &e.0),
    };
    let settings = Settings {
        budget: args
            .budget
            .or(config.budget)
            .unwrap_or(Duration::from_secs(1)),
        rounds: args.rounds.or(config.rounds).unwrap_or(10),
        seed: args.seed,
        warmup: args.warmup,
        sync: args
            .sync
            .or(config.sync)
            .unwrap_or(crate::settings::SyncMode::Roundtime),
        cache: args.cache,
        resync_s: args.resync.as_secs_f64(),
        // Clocks of different nodes drift apart; those of one node do not.
        drift_s: args.drift.map_or_else(
            || match &ctx.topology {
                Ok(t) if t.nodes > 1 && !t.virtual_nodes => 0.1,
                _ => 0.0,
            },
            |d| d.as_secs_f64(),
        ),
    };
    let plan = match plan::from_config(&config, settings, &world(ctx, &args.setup)) {
        Ok(p) => p,
        Err(e) => return input_error(leader, &e.0),
    };
    let a = &args.analysis;
    let powerless = plan::powerless(&plan, a.test, a.correction, a.alpha);
    match &powerless {
        Some(why) if !args.allow_powerless => return input_error(leader, why),
        Some(why) if leader => report::warning(why),
        _ => {}
    }
    if let Err(e) = prepare_output(ctx, &args.output) {
        return input_error(leader, &e);
    }
    // Every rank reads the baseline so that all agree on its errors.
    let baseline = match load_baseline(&args.report) {
        Ok(b) => b,
        Err(e) => return input_error(leader, &e),
    };
    let mut meta = meta::collect(ctx);
    meta.warnings.extend(powerless);
    meta.start_time = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    meta.budget_s = plan.settings.budget.as_secs_f64();
    meta.rounds = plan.settings.rounds;
    meta.warmup = plan.settings.warmup;
    meta.seed = plan.settings.seed;
    meta.sync = format!("{:?}", plan.settings.sync).to_lowercase();
    meta.cache = format!("{:?}", plan.settings.cache).to_lowercase();
    meta.plan_s = plan.expected().as_secs_f64();
    if leader {
        report::remark(&report::plan_text(&plan, &meta));
    }
    let mut harness = Harness::start(ctx, &plan.settings);
    meta.noise_floor_s = measure::barrier_floor(ctx, 100);
    if let Some(why) = harness.fall_back_if_too_slow(meta.noise_floor_s) {
        if leader {
            report::warning(&why);
        }
        meta.warnings.push(why);
        meta.sync = "barrier".into();
    }
    let options = analysis_options(&mut meta, a);
    let mut measured = Vec::with_capacity(plan.cases.len());
    let mut progress =
        leader.then(|| report::progress::Progress::start(plan.expected().as_secs_f64()));
    for (i, case) in plan.cases.iter().enumerate() {
        if harness.stopped {
            break;
        }
        let progress_of_case = measure::Progress {
            events: progress.as_ref().and_then(|p| p.events.clone()),
            case: i + 1,
            cases: plan.cases.len(),
        };
        let run = measure::measure_case(ctx, case, &plan.settings, &mut harness, &progress_of_case);
        if leader {
            let data = case_data(&run);
            if let Err(e) = report::csv::append_raw(
                &args.output,
                &data.key,
                data.samples
                    .iter()
                    .map(|s| (s.name.as_str(), &s.rounds[..], &s.seconds[..])),
            ) {
                report::warning(&format!("cannot append to raw.csv: {e}"));
            }
            measured.push(data);
            meta.wall_s = harness.elapsed();
            meta.outside_s = harness.outside_s;
            if let Some(progress) = progress.as_mut() {
                progress.case_done(i + 1, plan.cases.len(), meta.wall_s);
            }
            let partial = results(meta.clone(), false, &measured, &options);
            if let Err(e) = report::json::write(&args.output, &partial) {
                report::warning(&format!("cannot write results.json: {e}"));
            }
        }
    }
    // The last case's files, too, were written outside its slices.
    harness.rebase();
    meta.wall_s = harness.elapsed();
    meta.outside_s = harness.outside_s;
    if let Some(progress) = progress {
        progress.finish();
    }
    let exit = if leader {
        let mut results = results(meta, !harness.stopped, &measured, &options);
        attach_baseline(&mut results, baseline, &measured, &args.report, &options);
        match finish(&results, &args.report, &args.output) {
            _ if harness.stopped => {
                report::remark(&format!(
                    "pgcheck: interrupted after {} of {} cases; the files hold what was measured\n",
                    measured.len(),
                    plan.cases.len()
                ));
                Exit::Interrupted
            }
            exit => exit,
        }
    } else {
        Exit::Pass
    };
    agree(ctx, exit)
}

/// The analysis options, recorded in the metadata; the noise floor comes
/// from the metadata.
fn analysis_options(meta: &mut meta::Meta, a: &AnalysisArgs) -> Options {
    meta.alpha = a.alpha;
    meta.test = format!("{:?}", a.test).to_lowercase();
    meta.correction = format!("{:?}", a.correction).to_lowercase();
    meta.outliers = format!("{:?}", a.outliers).to_lowercase();
    meta.margin = a.margin;
    Options {
        alpha: a.alpha,
        test: a.test,
        correction: a.correction,
        outliers: a.outliers,
        noise_floor_s: meta.noise_floor_s,
        margin: a.margin,
    }
}

/// Verdicts and universal guidelines of the cases so far.
fn results(meta: meta::Meta, complete: bool, cases: &[CaseData], options: &Options) -> Results {
    Results {
        meta,
        complete,
        checks: analyse::verdicts(cases, options),
        guidelines: analyse::guidelines::check(cases, options),
        baseline: None,
    }
}

/// Prints the report, writes the files, and gates: rank 0's end of a run.
fn finish(results: &Results, args: &ReportArgs, dir: &Path) -> Exit {
    report::show(&report::render(results, &report::View::new(args)));
    for line in report::failures(results) {
        report::error(&line);
    }
    if let Err(e) = report::write_files(dir, results) {
        report::error(&format!("writing {}: {e}", dir.display()));
        return Exit::Internal;
    }
    report::remark(&format!(
        "wall time {:.2} s for a plan of {:.2} s ({:.2} s preparing, verifying and writing files); files in {}\n",
        results.meta.wall_s,
        results.meta.plan_s,
        results.meta.outside_s,
        dir.display()
    ));
    gate(results, args)
}

/// The exit status of a finished analysis: a wrong result first, then a
/// violation or regression the gate fails on, then a case without verdict.
fn gate(results: &Results, args: &ReportArgs) -> Exit {
    let wrong = results
        .checks
        .iter()
        .any(|c| c.candidates.iter().any(|c| c.status == "wrong"));
    let regressions = results
        .baseline
        .as_ref()
        .map_or(0, |b| b.regressions().count());
    let fails = |level: crate::cli::FailOn| {
        results.worst() >= level.severity()
            || (level == crate::cli::FailOn::Inconclusive
                && results
                    .checks
                    .iter()
                    .any(|c| c.conclusion == analyse::Conclusion::Inconclusive))
    };
    let unmeasured = results
        .checks
        .iter()
        .any(|c| c.conclusion == analyse::Conclusion::Unmeasured);
    match args.fail_on {
        _ if wrong => Exit::Verification,
        _ if regressions > 0 => Exit::Violation,
        Some(level) if fails(level) => Exit::Violation,
        _ if unmeasured && results.complete => Exit::Unmeasured,
        _ => Exit::Pass,
    }
}

/// `pgcheck analyze`: the saved observations of a run, analysed again.
pub fn analyze(args: &AnalyzeArgs) -> Exit {
    let a = &args.analysis;
    let (previous, cases) = match load_saved(&args.dir) {
        Ok(saved) => saved,
        Err(e) => return input_error(true, &e),
    };
    let baseline = match load_baseline(&args.report) {
        Ok(b) => b,
        Err(e) => return input_error(true, &e),
    };
    let mut meta = previous
        .as_ref()
        .map(|p| p.meta.clone())
        .unwrap_or_default();
    let options = analysis_options(&mut meta, a);
    let complete = previous.as_ref().is_none_or(|p| p.complete);
    let mut results = results(meta, complete, &cases, &options);
    attach_baseline(&mut results, baseline, &cases, &args.report, &options);
    let dir = args
        .output
        .clone()
        .unwrap_or_else(|| args.dir.join("reanalysis"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return input_error(true, &format!("output directory {}: {e}", dir.display()));
    }
    finish(&results, &args.report, &dir)
}

/// A saved run: its `results.json` if there is one, and its cases from `raw.csv`.
pub fn load_saved(dir: &Path) -> Result<(Option<Results>, Vec<CaseData>), String> {
    let saved = dir.join("results.json");
    let previous = if saved.exists() {
        Some(report::json::read(&saved).map_err(|e| format!("{}: {e}", saved.display()))?)
    } else {
        None
    };
    let raw_path = dir.join("raw.csv");
    let rows =
        report::csv::read_raw(&raw_path).map_err(|e| format!("{}: {e}", raw_path.display()))?;
    let cases = saved_cases(&rows, previous.as_ref())
        .map_err(|e| format!("{}: {e}", raw_path.display()))?;
    Ok((previous, cases))
}

/// The baseline run named by `--baseline` (its directory or its results.json).
fn load_baseline(args: &ReportArgs) -> Result<Option<(String, Vec<CaseData>)>, String> {
    let Some(path) = &args.baseline else {
        return Ok(None);
    };
    let dir = if path.is_dir() {
        path.clone()
    } else {
        path.parent().map(Path::to_path_buf).unwrap_or_default()
    };
    let (_, cases) = load_saved(&dir).map_err(|e| format!("--baseline: {e}"))?;
    Ok(Some((path.display().to_string(), cases)))
}

/// Compares with the baseline, if there is one.
fn attach_baseline(
    results: &mut Results,
    baseline: Option<(String, Vec<CaseData>)>,
    cases: &[CaseData],
    args: &ReportArgs,
    options: &Options,
) {
    if let Some((name, old)) = baseline {
        results.baseline = Some(analyse::baseline::compare_runs(
            &name,
            &old,
            cases,
            args.tolerance,
            options,
        ));
    }
}

/// Cases from `raw.csv` rows, in the order they were measured, with the
/// candidates that `results.json` says were wrong or skipped.
fn saved_cases(
    rows: &[report::csv::RawRow],
    previous: Option<&Results>,
) -> Result<Vec<CaseData>, String> {
    let mut cases: Vec<CaseData> = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let line = i + 2;
        let collective = Collective::from_name(&row.collective)
            .ok_or_else(|| format!("line {line}: unknown collective `{}`", row.collective))?;
        let datatype = crate::element::Datatype::from_name(&row.datatype)
            .ok_or_else(|| format!("line {line}: unknown datatype `{}`", row.datatype))?;
        let op = crate::element::Op::from_name(&row.op)
            .ok_or_else(|| format!("line {line}: unknown op `{}`", row.op))?;
        if !(row.seconds.is_finite() && row.seconds >= 0.0) {
            return Err(format!(
                "line {line}: seconds `{}` is not a duration",
                row.seconds
            ));
        }
        let key = CaseKey {
            collective,
            size_bytes: row.size_bytes,
            count: row.count,
            datatype,
            op,
            root: row.root,
        };
        let case = match cases.iter().position(|c| c.key == key) {
            Some(c) => &mut cases[c],
            None => {
                cases.push(CaseData {
                    key,
                    samples: Vec::new(),
                });
                cases.last_mut().expect("just pushed")
            }
        };
        let sample = match case.samples.iter().position(|s| s.name == row.candidate) {
            Some(s) => &mut case.samples[s],
            None => {
                case.samples.push(Sample {
                    name: row.candidate.clone(),
                    excluded: None,
                    seconds: Vec::new(),
                    rounds: Vec::new(),
                    invalid: 0,
                });
                case.samples.last_mut().expect("just pushed")
            }
        };
        sample.seconds.push(row.seconds);
        sample.rounds.push(row.round);
    }
    for case in &mut cases {
        // `default` first, as measured runs have it.
        case.samples
            .sort_by_key(|s| s.name != candidates::native::DEFAULT);
        let verdict = previous.and_then(|p| p.checks.iter().find(|v| v.key == case.key));
        for c in verdict.map(|v| &v.candidates[..]).unwrap_or_default() {
            let excluded = match c.status.as_str() {
                "wrong" => Exclusion::Wrong(c.reason.clone().unwrap_or_default()),
                "skipped" => Exclusion::Skipped(c.reason.clone().unwrap_or_default()),
                _ => continue,
            };
            case.samples.push(Sample {
                name: c.name.clone(),
                excluded: Some(excluded),
                seconds: Vec::new(),
                rounds: Vec::new(),
                invalid: 0,
            });
        }
    }
    Ok(cases)
}

/// A measured case as the analysis reads it.
pub fn case_data(run: &CaseRun) -> CaseData {
    let c = &run.case;
    CaseData {
        key: CaseKey {
            collective: c.collective,
            size_bytes: c.size_bytes,
            count: c.count,
            datatype: c.datatype,
            op: c.op,
            root: c.root,
        },
        samples: run
            .candidates
            .iter()
            .map(|r| Sample {
                name: r.name.clone(),
                excluded: match &r.status {
                    Status::Measured => None,
                    Status::Wrong(why) => Some(Exclusion::Wrong(why.clone())),
                    Status::Skipped(why) => Some(Exclusion::Skipped(why.clone())),
                },
                seconds: r.observations.clone(),
                rounds: r.rounds.clone(),
                invalid: r.invalid,
            })
            .collect(),
    }
}

/// The cases `pgcheck verify` runs.
fn verify_plan(ctx: &Context, config: Option<&Config>, args: &VerifyArgs) -> Result<Plan, String> {
    let settings = Settings {
        budget: Duration::ZERO,
        rounds: 1,
        seed: 0,
        warmup: 0,
        sync: crate::settings::SyncMode::Barrier,
        cache: crate::settings::CacheState::Warm,
        resync_s: 0.0,
        drift_s: 0.0,
    };
    let world = world(ctx, &args.setup);
    let mut plan = match config {
        Some(config) => {
            let config = override_elements(config, &args.setup).map_err(|e| e.0)?;
            plan::from_config(&config, settings, &world).map_err(|e| e.0)?
        }
        None => {
            let datatype = args
                .setup
                .datatype
                .map_or(crate::element::Datatype::Byte, Into::into);
            let op = args.setup.op.map_or(crate::element::Op::Bor, Into::into);
            if !op.applies_to(datatype) {
                return Err(format!(
                    "op `{}` is not defined for datatype `{}`",
                    op.name(),
                    datatype.name()
                ));
            }
            let p = ctx.size();
            let roots: Vec<String> = if args.roots.is_empty() {
                ["first", "middle", "last"].map(String::from).to_vec()
            } else {
                args.roots.clone()
            };
            let mut roots: Vec<usize> = roots
                .iter()
                .map(|r| plan::parse_root(r, p))
                .collect::<Result<_, _>>()?;
            roots.sort_unstable();
            roots.dedup();
            let counts: Vec<usize> = if args.sizes.is_empty() {
                plan::verify_counts(p, datatype)
            } else {
                args.sizes
                    .iter()
                    .map(|&s| crate::config::count_of(Collective::Alltoall, s, datatype))
                    .collect::<Result<_, _>>()?
            };
            let mut cases = Vec::new();
            for collective in Collective::ALL {
                if !args.collective.is_empty()
                    && !args.collective.iter().any(|c| c == collective.name())
                {
                    continue;
                }
                let names: Vec<&str> = candidates::competitors_of(collective)
                    .map(|c| c.name)
                    .collect();
                let roots = if collective.is_rooted() {
                    roots.clone()
                } else {
                    vec![0]
                };
                for &root in &roots {
                    for &count in &counts {
                        cases.push(plan::case(
                            collective,
                            (count * datatype.size()) as u64,
                            datatype,
                            op,
                            root,
                            &names,
                            None,
                            &world,
                        ));
                    }
                }
            }
            Plan { settings, cases }
        }
    };
    for name in &args.collective {
        if Collective::from_name(name).is_none() {
            return Err(crate::config::unknown(
                "collective",
                name,
                Collective::ALL.iter().map(|c| c.name()),
            ));
        }
    }
    for name in &args.competitor {
        if candidates::find(name).is_none() {
            return Err(crate::config::unknown(
                "competitor",
                name,
                candidates::competitors().map(|c| c.name),
            ));
        }
    }
    let families: Vec<candidates::Family> = args.family.iter().map(|&f| f.into()).collect();
    let wanted = |name: &str| {
        let competitor = candidates::find(name);
        (args.competitor.is_empty() || args.competitor.iter().any(|c| c == name))
            && (families.is_empty() || competitor.is_some_and(|c| families.contains(&c.family)))
    };
    for case in &mut plan.cases {
        case.candidates
            .retain(|c| c == candidates::native::DEFAULT || wanted(c));
        case.skipped.retain(|(c, _)| wanted(c));
    }
    plan.cases
        .retain(|c| c.candidates.len() + c.skipped.len() > 1);
    Ok(plan)
}

/// `pgcheck verify`.
pub fn verify(ctx: &Context, config: Option<&Config>, args: &VerifyArgs) -> Exit {
    let leader = ctx.rank() == 0;
    let plan = match verify_plan(ctx, config, args) {
        Ok(p) => p,
        Err(e) => return input_error(leader, &e),
    };
    let runs: Vec<CaseRun> = plan
        .cases
        .iter()
        .map(|case| measure::verify_case(ctx, case))
        .collect();
    let exit = if leader {
        let (text, failures) = report::verify::render(&runs);
        report::show(&text);
        if failures > 0 {
            Exit::Verification
        } else {
            Exit::Pass
        }
    } else {
        Exit::Pass
    };
    agree(ctx, exit)
}

/// `pgcheck clocks`: how well `roundtime`'s clock synchronisation works here.
pub fn clocks(comm: &mpi::topology::SimpleCommunicator, args: &crate::cli::ClocksArgs) -> Exit {
    use crate::measure::clock;
    comm.barrier();
    let start = mpi::time();
    let global = clock::synchronise(comm, args.exchanges, args.drift.as_secs_f64());
    let took = mpi::time() - start;
    let now = clock::residual_offsets(comm, &global, args.exchanges);
    let until = mpi::time() + args.wait.as_secs_f64();
    while mpi::time() < until {
        std::thread::sleep(Duration::from_millis(1));
    }
    let later = clock::residual_offsets(comm, &global, args.exchanges);
    if comm.rank() == 0 {
        report::show(&report::clocks::render(
            took,
            args.wait.as_secs_f64(),
            &now,
            &later,
        ));
    }
    Exit::Pass
}
