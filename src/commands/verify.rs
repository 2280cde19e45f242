//! `pgcheck verify`: every selected candidate run once and compared with the
//! independent reference; no timing.

use super::{agree, input_error, world};
use crate::case::CaseData;
use crate::commands::arguments::Verify;
use crate::config::Config;
use crate::exit::Ending;
use crate::measure::{self, Context};
use crate::plan::verify;
use crate::report;

/// Verifies on every rank; rank 0 prints the pass/fail table.
pub fn verify(ctx: &Context, config: Option<&Config>, args: &Verify) -> Ending {
    let leader = ctx.rank() == 0;
    let plan = match verify::plan(config, &args.selection, &world(ctx, &args.setup)) {
        Ok(p) => p,
        Err(e) => return input_error(leader, &e),
    };
    // Where ranks share CPUs a call takes longer: the default bound grows.
    let shared = measure::machine::shared_cpus(&measure::survey::survey(ctx));
    let timeout = args.setup.timeout(shared.as_ref()).as_secs_f64();
    super::start_watchdog(ctx, timeout, None);
    let cases: Vec<CaseData> = plan
        .cases
        .iter()
        .map(|case| measure::verify_case(ctx, case))
        .collect();
    let ending = if leader {
        let (text, wrong_cases) = report::text::verify::render(&cases);
        report::show(&text);
        Ending::Verified { wrong_cases }
    } else {
        Ending::Done
    };
    agree(ctx, ending)
}
