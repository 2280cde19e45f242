//! `pgcheck history`: runs of the same input over time, without MPI: their
//! results.json → per case, `default`'s launch medians in start order and
//! their change points → the table, Markdown, SVG or JSON, and the files.

use super::input_error;
use crate::analyse::history::History;
use crate::exit::Ending;
use crate::report::{self, history::Format};
use crate::settings::command;
use crate::store;

/// The history of the runs `args.runs` names; no run, or one that cannot
/// be read, is an input error.
pub fn history(args: &command::History) -> Ending {
    let paths = match store::runs(&args.runs) {
        Ok(paths) => paths,
        Err(e) => return input_error(true, &e),
    };
    let mut paths = paths;
    // A run named twice (itself and through its parent) counts once.
    paths.sort();
    paths.dedup();
    let mut runs = Vec::new();
    for path in &paths {
        match store::load_results(path) {
            Ok(results) => runs.push((path.display().to_string(), results)),
            Err(e) => return input_error(true, &e),
        }
    }
    let history = match History::of(runs, &args.change_points) {
        Ok(history) => history,
        Err(e) => return input_error(true, &e),
    };
    for run in history.runs.iter().filter(|r| r.start_time.is_empty()) {
        report::warning(&format!(
            "{}: no start time in its results.json; it goes first",
            run.source
        ));
    }
    report::show(&match args.format {
        Format::Table => report::history::text::render(&history),
        Format::Markdown => report::history::markdown::render(&history),
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
