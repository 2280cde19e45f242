//! `pgcheck analyze`: a saved run's observations, decided again without MPI
//! (another test, alpha, correction or baseline).

use super::{baseline_verdicts, compare_with_baseline, finish, input_error, Against, Baseline};
use crate::analyse::Results;
use crate::commands::arguments::Analyze;
use crate::exit::Ending;
use crate::store;

/// Re-analyses the run in `args.dir`; writes the reports to `args.output`.
pub fn analyze(args: &Analyze) -> Ending {
    let saved = match store::load(&args.dir) {
        Ok(saved) => saved,
        Err(e) => return input_error(true, &e),
    };
    let baseline = match Baseline::read(&args.report) {
        Ok(b) => b,
        Err(e) => return input_error(true, &e),
    };
    let previous = saved.results.as_ref();
    let mut meta = previous.map(|p| p.meta.clone()).unwrap_or_default();
    let options = args.analysis.options(&meta);
    options.record(&mut meta);
    let complete = previous.is_none_or(|p| p.complete);
    let mut results = Results::of(meta, complete, &saved.cases, &options);
    let verdicts = match &baseline {
        Some(Baseline::One { saved, .. }) => baseline_verdicts(saved, &options),
        _ => Vec::new(),
    };
    let against = baseline.as_ref().map(|b| match b {
        Baseline::One { name, saved } => Against::One(name, &verdicts, &saved.cases[..]),
        Baseline::Launches(launches) => Against::Launches(launches),
    });
    compare_with_baseline(
        &mut results,
        against,
        &saved.cases[..],
        args.report.tolerance,
        &options,
    );
    let dir = &args.output;
    if let Err(e) = store::create_for_reports(dir) {
        return input_error(true, &format!("output directory {}: {e}", dir.display()));
    }
    finish(&mut results, &args.report, dir)
}
