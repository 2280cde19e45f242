//! `pgcheck verify`: every selected candidate run once and compared with the
//! independent reference; no timing.

use super::{agree, elements, input_error, world};
use crate::case::CaseData;
use crate::cli::VerifyArgs;
use crate::config::Config;
use crate::exit::Exit;
use crate::measure::{self, Context};
use crate::plan::verify::{self, Selection};
use crate::report;

/// Verifies on every rank; rank 0 prints the pass/fail table.
pub fn verify(ctx: &Context, config: Option<&Config>, args: &VerifyArgs) -> Exit {
    let leader = ctx.rank() == 0;
    let (datatype, op) = elements(&args.setup);
    let selection = Selection {
        collectives: args.collective.clone(),
        competitors: args.competitor.clone(),
        families: args.family.iter().map(|&f| f.into()).collect(),
        sizes: args.sizes.clone().map(|s| s.0).unwrap_or_default(),
        roots: args.roots.clone(),
        datatype,
        op,
    };
    let plan = match verify::plan(config, &selection, &world(ctx, &args.setup)) {
        Ok(p) => p,
        Err(e) => return input_error(leader, &e),
    };
    measure::watchdog::start(ctx.rank(), args.setup.timeout.as_secs_f64(), None);
    let cases: Vec<CaseData> = plan
        .cases
        .iter()
        .map(|case| measure::verify_case(ctx, case))
        .collect();
    let exit = if leader {
        let (text, failures) = report::text::verify::render(&cases);
        report::show(&text);
        match failures {
            0 => Exit::Pass,
            _ => Exit::Verification,
        }
    } else {
        Exit::Pass
    };
    agree(ctx, exit)
}
