//! `pgcheck analyze`: a saved run's observations, decided again without MPI
//! (another test, alpha, correction or baseline).

use super::{baseline_verdicts, compare_with_baseline, finish, input_error, options};
use crate::analyse::Results;
use crate::cli::AnalyzeArgs;
use crate::exit::Exit;
use crate::store;

/// Re-analyses the run in `args.dir`; writes the reports to `--output` or
/// `<dir>/reanalysis`.
pub fn analyze(args: &AnalyzeArgs) -> Exit {
    let saved = match store::load(&args.dir) {
        Ok(saved) => saved,
        Err(e) => return input_error(true, &e),
    };
    let baseline = match super::baseline(&args.report) {
        Ok(b) => b,
        Err(e) => return input_error(true, &e),
    };
    let previous = saved.results.as_ref();
    let mut meta = previous.map(|p| p.meta.clone()).unwrap_or_default();
    let options = options(&args.analysis, &args.report, &meta);
    options.record(&mut meta);
    let complete = previous.is_none_or(|p| p.complete);
    let mut results = Results::of(meta, complete, &saved.cases, &options);
    let baseline_verdicts = baseline.as_ref().map(|b| baseline_verdicts(b, &options));
    compare_with_baseline(
        &mut results,
        baseline
            .as_ref()
            .zip(baseline_verdicts.as_deref())
            .map(|(b, v)| (v, &b.cases[..])),
        &saved.cases[..],
        &args.report,
        &options,
    );
    let dir = args
        .output
        .clone()
        .unwrap_or_else(|| args.dir.join("reanalysis"));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return input_error(true, &format!("output directory {}: {e}", dir.display()));
    }
    finish(&results, &args.report, &dir)
}
