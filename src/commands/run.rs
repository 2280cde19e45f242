//! `pgcheck run`: measure every candidate of every check, decide, report.

use super::{
    agree, baseline_verdicts, compare_with_baseline, finish, input_error, world, Against, Baseline,
};
use crate::analyse::defaults::Spilled;
use crate::analyse::{Decisions, Options};
use crate::case::CaseData;
use crate::commands::arguments::{Input, Run};
use crate::config::{self, Config};
use crate::exit::Ending;
use crate::measure::{self, Context, Events, Harness};
use crate::meta::{BetweenCases, Meta};
use crate::plan::{self, Plan};
use crate::report::{self, progress::Progress};
use crate::settings::CacheState;
use crate::store;

/// The input of `run`: its file, the check its options give, or the
/// default input.
pub fn input(args: &Run) -> Result<Config, config::InputError> {
    let config = match &args.input {
        Input::File(path) => config::load(path),
        Input::Check(check) => config::from_options(check.clone()),
        Input::Default => config::default_input(),
    }?;
    Ok(match args.in_place {
        Some(forms) => config.with_in_place(forms),
        None => config,
    })
}

/// Runs the check of `config` on every rank; rank 0 reports.
pub fn run(ctx: &Context, config: &Config, args: &Run) -> Ending {
    let leader = ctx.rank() == 0;
    let (plan, powerless, baseline) = match prepare(ctx, config, args) {
        Ok(prepared) => prepared,
        Err(e) => return input_error(leader, &e),
    };
    // Before anything is measured, and before the watchdog's thread starts
    // (the binding covers the threads there are; later ones inherit it).
    let pinning = measure::pin::pin(ctx, args.pin);
    let (plan, mut meta, mut harness) = start_measuring(ctx, args, plan, &pinning, powerless);
    let options = args.analysis.options(&meta);
    options.record(&mut meta);
    // Rank 0 alone keeps the baseline: its verdicts, and its `default`
    // samples out of memory.
    let baseline = baseline.map(|b| match b {
        Baseline::One { name, saved } => {
            let verdicts = baseline_verdicts(&saved, &options);
            Prepared::One(name, verdicts, Spilled::of(&saved.cases))
        }
        Baseline::Launches(launches) => Prepared::Launches(launches),
    });
    let mut decisions = measure_cases(ctx, args, &plan, &mut harness, &mut meta, &options);
    if leader {
        meta.machine_state = measure::calibration::state(&harness.calibrations);
    }
    meta.library_algorithms = measure::machine::library_algorithms();
    meta.largest_peak_rss_bytes = measure::largest_peak_rss_bytes(ctx);
    let ending = if leader {
        let complete = !harness.stopped && !harness.wrong;
        let mut results = decisions.results(meta, complete, &options);
        compare_with_baseline(
            &mut results,
            baseline.as_ref().map(|b| match b {
                Prepared::One(name, verdicts, defaults) => Against::One(name, verdicts, defaults),
                Prepared::Launches(launches) => Against::Launches(launches),
            }),
            decisions.defaults(),
            args.report.tolerance,
            &options,
        );
        let ending = finish(&mut results, &args.report, &args.output);
        if harness.stopped {
            report::remark(&format!(
                "pgcheck: interrupted after {} of {} cases; the files hold what was measured\n",
                decisions.decided(),
                plan.cases.len()
            ));
        }
        ending
    } else {
        Ending::Done
    };
    agree(ctx, ending)
}

/// The plan, why it is powerless where it may be, the baseline (read on
/// every rank, so that all agree on its errors; kept on rank 0), and the
/// output directory created.
fn prepare(
    ctx: &Context,
    config: &Config,
    args: &Run,
) -> Result<(Plan, Option<String>, Option<Baseline>), String> {
    let leader = ctx.rank() == 0;
    let plan = plan_of(ctx, config, args)?;
    let a = &args.analysis.given;
    let test = args.analysis.test_for(plan.settings.rounds);
    let powerless = plan::powerless(&plan, test, a.correction, a.alpha);
    // Allowed, the warning is the answer's, at the end (said once).
    if let (Some(why), false) = (&powerless, args.allow_powerless) {
        return Err(why.clone());
    }
    create_output(ctx, args)?;
    let baseline = Baseline::read(&args.report)?.filter(|_| leader);
    Ok((plan, powerless, baseline))
}

/// Starts the watchdog, finds out what the run runs on, settles the
/// synchronisation, probes one call per case (which corrects the plan) and
/// starts the harness: what the cases are measured with.
fn start_measuring(
    ctx: &Context,
    args: &Run,
    plan: Plan,
    pinning: &measure::pin::Pinning,
    powerless: Option<String>,
) -> (Plan, Meta, Harness) {
    let leader = ctx.rank() == 0;
    // From here on no call of the library and no wait for the others
    // outlives its bound.
    let bound = |shared| {
        args.setup
            .timeout(shared)
            .max(10 * plan.settings.budget)
            .as_secs_f64()
    };
    super::start_watchdog(ctx, bound(None), Some(args.output.clone()));
    let mut meta = measure::machine(ctx, pinning);
    // Where ranks share CPUs a call takes longer: the default bound grows.
    crate::watchdog::widen(bound(meta.placement.shared_cpus.as_ref()));
    meta.warnings.extend(powerless);
    meta.warnings
        .extend(meta.placement.warnings(meta.processes));
    // Every rank gathered the same placement, so every rank chooses alike.
    let sync = (plan.settings.sync).resolve(meta.placement.shared_cpus.as_ref());
    sync.record(&mut meta);
    meta.warnings.extend(sync.warning.clone());
    // How long one call takes tells how long cases whose calls outlast a
    // slice really take.
    let probes = measure::probe_cases(ctx, &plan.cases, plan.slice_s());
    let plan = plan.with_probes(&probes);
    plan.record(&mut meta);
    if leader {
        report::remark(&report::plan_text(&plan, &meta));
    }
    // The warnings are the answer's, at the end of the report (said once).
    let mut harness = Harness::start(ctx, &plan.settings, sync.mode);
    meta.noise_floor_s = measure::barrier_floor(ctx, 100);
    if let Some(fallen_back) = harness.fall_back_if_too_slow(&sync, meta.noise_floor_s) {
        fallen_back.record(&mut meta);
        meta.warnings.extend(fallen_back.warning);
    }
    (plan, meta, harness)
}

/// Measures the cases in turn until the run is stopped or a result is
/// wrong. Rank 0 keeps each case's verdict; its observations go to raw/
/// (or as `--raw` says).
fn measure_cases(
    ctx: &Context,
    args: &Run,
    plan: &Plan,
    harness: &mut Harness,
    meta: &mut Meta,
    options: &Options,
) -> Decisions {
    let leader = ctx.rank() == 0;
    let mut kept = Kept {
        decisions: Decisions::default(),
        between: BetweenCases::default(),
        partial_results: Throttle::new(PARTIAL_RESULTS_SHARE),
        progress: leader.then(|| Progress::start(plan.expected().as_secs_f64())),
    };
    for (i, case) in plan.cases.iter().enumerate() {
        if harness.stopped || harness.wrong {
            break;
        }
        let events = Events {
            sender: kept.progress.as_ref().and_then(|p| p.events.clone()),
            case: i + 1,
            cases: plan.cases.len(),
        };
        let data = measure::measure_case(ctx, case, &plan.settings, harness, &events);
        if i > 0 {
            kept.between.waited(harness.case_wait_s);
        }
        let measured_at = mpi::time();
        if leader {
            kept.keep(
                args,
                (i + 1, plan.cases.len()),
                &data,
                harness,
                meta,
                options,
            );
        }
        kept.between.after_case(mpi::time() - measured_at);
    }
    // The last case's files, too, were written outside its slices.
    harness.rebase();
    record_costs(meta, harness);
    let mut between = kept.between;
    let mut waits = [between.waited_s, between.largest_waited_s];
    ctx.control.max(&mut waits);
    [between.waited_s, between.largest_waited_s] = waits;
    meta.between_cases = between;
    if let Some(progress) = kept.progress {
        progress.finish();
    }
    kept.decisions
}

/// What the cases measured so far left: rank 0's decisions and progress,
/// and every rank's time between cases.
struct Kept {
    decisions: Decisions,
    between: BetweenCases,
    partial_results: Throttle,
    progress: Option<Progress>,
}

impl Kept {
    /// On rank 0: appends the observations of case `at.0` of `at.1` to
    /// raw/, decides it, and now and then rewrites the partial results.
    fn keep(
        &mut self,
        args: &Run,
        at: (usize, usize),
        data: &CaseData,
        harness: &Harness,
        meta: &mut Meta,
        options: &Options,
    ) {
        let (case, cases) = at;
        let between = &mut self.between;
        let started = mpi::time();
        if let Err(e) = store::raw::append(&args.output, args.raw, &meta.run_id, case, data) {
            let name = args.raw.file_name().unwrap_or_default();
            report::warning(&format!("cannot append to {name}: {e}"));
        }
        let appended = mpi::time();
        self.decisions.add(data, options);
        let decided = mpi::time();
        between.raw_s += appended - started;
        between.decide_s += decided - appended;
        record_costs(meta, harness);
        if let Some(progress) = self.progress.as_mut() {
            progress.case_done(case, cases, meta.wall_s);
        }
        // What a killed run leaves: the verdicts of the cases so far, as of
        // a few seconds ago at most (the raw file has every case).
        if self.partial_results.due(mpi::time()) {
            let writing = mpi::time();
            meta.between_cases = between.clone();
            let partial = self.decisions.results(meta.clone(), false, options);
            if let Err(e) = store::results::write_partial(&args.output, &partial) {
                report::warning(&format!("cannot write results.json: {e}"));
            }
            between.results_writes += 1;
            self.partial_results.cost(mpi::time() - writing);
        }
        between.results_s += mpi::time() - decided;
    }
}

/// How rank 0 rewrites the partial `results.json` after a case: at most
/// this share of the time between writes goes to writing it. Rewriting it
/// decides every series' universal guidelines again and renders every
/// verdict so far while the other ranks wait: 3–4 ms at 100 cases of 2
/// candidates, 0.6 s at 1,000 in four series. Written after every case it
/// would cost more than the rest of rank 0's work between cases (2–4 ms a
/// case); at 1 % it was still a quarter of that work. Where cases are long
/// and the file is cheap it is still written after every case, so that a
/// killed run keeps every verdict; otherwise it lags by a second or so at
/// 100 cases, and `analyze` decides what it misses from `raw/`.
const PARTIAL_RESULTS_SHARE: f64 = 0.0025;

/// Whether something done now and then is due: when first asked, then once
/// the time since it was last due is `1 / share` times what it last cost.
struct Throttle {
    share: f64,
    last: Option<f64>,
    cost_s: f64,
}

impl Throttle {
    fn new(share: f64) -> Throttle {
        Throttle {
            share,
            last: None,
            cost_s: 0.0,
        }
    }

    /// Whether it is due at `now` (seconds); if so, it counts as done.
    fn due(&mut self, now: f64) -> bool {
        let wait = self.cost_s / self.share;
        let due = self.last.is_none_or(|last| now - last >= wait);
        if due {
            self.last = Some(now);
        }
        due
    }

    /// What doing it took, this time.
    fn cost(&mut self, seconds: f64) {
        self.cost_s = seconds;
    }
}

/// The baseline as rank 0 keeps it while measuring: one launch's
/// verdicts with its `default` samples out of memory, or several launches'
/// verdicts.
enum Prepared {
    One(String, Vec<crate::analyse::Verdict>, Spilled),
    Launches(Vec<crate::analyse::launches::Launch>),
}

/// What the run has cost so far: wall time, time outside the slices, and
/// of it preparing, verifying and clock synchronisation; time in the
/// slices and in the calls; rank 0's memory.
fn record_costs(meta: &mut Meta, harness: &Harness) {
    meta.wall_s = harness.elapsed();
    meta.outside_s = harness.outside_s;
    meta.prepare_s = harness.prepare_s;
    meta.verify_s = harness.verify_s;
    meta.clock_sync_s = harness.clock_sync_s;
    meta.clock_syncs = harness.clock_syncs;
    meta.measuring_s = harness.measuring_s;
    meta.calling_s = harness.calling_s;
    meta.calls = harness.calls;
    meta.peak_rss_bytes = measure::peak_rss_bytes();
}

/// The plan: the input with the command line's overrides, on this world.
fn plan_of(ctx: &Context, config: &Config, args: &Run) -> Result<Plan, String> {
    let config =
        plan::with_elements(config, args.setup.datatype, args.setup.op).map_err(|e| e.0)?;
    let nodes_apart = matches!(&ctx.topology, Ok(t) if t.nodes > 1 && !t.virtual_nodes);
    let settings = args.measuring(&config, nodes_apart);
    let mut world = world(ctx, &args.setup);
    if args.cache == CacheState::Cold {
        world.resident_bytes += measure::cold_cache_bytes();
    }
    plan::from_config(&config, settings, &world).map_err(|e| e.0)
}

/// Creates the output directory on rank 0 and tells every rank whether it
/// could.
fn create_output(ctx: &Context, args: &Run) -> Result<(), String> {
    let dir = &args.output;
    let mut ok = 1u8;
    let mut message = String::new();
    if ctx.rank() == 0 {
        if let Err(e) = store::create(dir, args.raw) {
            ok = 0;
            message = format!("output directory {}: {e}", dir.display());
        }
    }
    let mut ok = [ok];
    ctx.control.broadcast(&mut ok);
    match ok[0] {
        1 => Ok(()),
        _ => Err(message),
    }
}

#[cfg(test)]
mod tests {
    use super::Throttle;

    #[test]
    fn a_throttle_is_due_first_then_once_its_cost_is_a_small_share() {
        // A write of 10 ms at a 5 % share: due again 0.2 s later.
        let mut cheap = Throttle::new(0.05);
        let mut due = Vec::new();
        for now in [100.0, 100.1, 100.2, 100.3, 100.45] {
            let d = cheap.due(now);
            if d {
                cheap.cost(0.01);
            }
            due.push(d);
        }
        assert_eq!(due, [true, false, true, false, true]);
        // A write of 1 s: 20 s later, however stale the file gets.
        let mut dear = Throttle::new(0.05);
        let due: Vec<bool> = [100.0, 101.0, 105.0, 119.9, 120.0, 130.0]
            .into_iter()
            .map(|now| {
                let d = dear.due(now);
                dear.cost(1.0);
                d
            })
            .collect();
        assert_eq!(due, [true, false, false, false, true, false]);
    }
}
