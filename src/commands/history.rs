//! `pgcheck history`: runs of the same input over time, without MPI: their
//! results.json → per case, `default`'s launch medians in start order and
//! their change points → the table, Markdown, SVG or JSON, and the files.

use super::input_error;
use crate::analyse::history::History;
use crate::commands::arguments as command;
use crate::exit::Ending;
use crate::report;
use crate::report::history::{document::blocks, Format};
use crate::store;

/// The history of the runs `args.runs` names; no run, or one that cannot
/// be read, is an input error.
pub fn history(args: &command::History) -> Ending {
    let runs = match store::load_runs(&args.runs) {
        Ok(runs) => runs,
        Err(e) => return input_error(true, &e),
    };
    let history = match History::of(runs, &args.change_points) {
        Ok(history) => history,
        Err(e) => return input_error(true, &e),
    };
    let history = match &args.under_test {
        None => history,
        Some(path) => match store::runs(std::slice::from_ref(path)) {
            Ok(found) if found.len() == 1 => match store::load_results(&found[0].dir) {
                Ok(results) => history.with_under_test(found[0].name.clone(), &results),
                Err(e) => return input_error(true, &format!("--under-test: {e}")),
            },
            Ok(_) => {
                return input_error(
                    true,
                    &format!(
                        "--under-test {}: one run, not a directory of runs",
                        path.display()
                    ),
                )
            }
            Err(e) => return input_error(true, &format!("--under-test: {e}")),
        },
    };
    for run in history.runs.iter().filter(|r| r.start_time.is_empty()) {
        report::warning(&format!(
            "{}: no start time in its results.json; it goes first",
            run.source
        ));
    }
    report::show(&match args.format {
        Format::Table => report::text::write(&blocks(&history), &report::text::Look::auto()),
        Format::Markdown => report::markdown::write(&blocks(&history)),
        Format::Svg => report::history::svg::render(&history),
        Format::Json => report::history::json::render(&history),
    });
    if let Some(dir) = &args.output {
        if let Err(e) = store::write_history(dir, &history) {
            report::error(&format!("cannot write {e}"));
            return Ending::CannotWrite;
        }
        report::remark(&format!("files in {}\n", dir.display()));
    }
    Ending::Done
}
