//! `pgcheck compare`: runs of the same input (on other libraries or
//! machines) side by side, without MPI: their results.json → a comparison →
//! the table, Markdown or SVG, and the files.

use super::input_error;
use crate::cli::CompareFormat;
use crate::commands::arguments::Compare;
use crate::exit::Ending;
use crate::report::{self, compare, compare::Comparison};
use crate::store;

/// Compares the runs of `args.runs`; a run that cannot be read, or runs
/// without a case in common, are input errors.
pub fn compare(args: &Compare) -> Ending {
    let mut runs = Vec::new();
    for path in &args.runs {
        match store::load_results(path) {
            Ok(results) => runs.push((path.display().to_string(), results)),
            Err(e) => return input_error(true, &e),
        }
    }
    let comparison = match Comparison::of(&runs) {
        Ok(comparison) => comparison,
        Err(e) => return input_error(true, &e),
    };
    report::show(&match args.format {
        CompareFormat::Table => report::text::write(
            &compare::document::blocks(&comparison),
            &report::text::Look::stdout(args.color),
        ),
        CompareFormat::Markdown => report::markdown::write(&compare::document::blocks(&comparison)),
        CompareFormat::Svg => report::compare::svg::render(&comparison),
    });
    if let Some(dir) = &args.output {
        if let Err(e) = store::write_comparison(dir, &comparison) {
            report::error(&format!("cannot write {e}"));
            return Ending::CannotWrite;
        }
        report::remark(&format!("files in {}\n", dir.display()));
    }
    Ending::Done
}
