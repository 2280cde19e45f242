//! `pgcheck tune`: a run's results → the decisions (`tuning`) → the
//! library's tuning file, and what it changed and why.

use super::input_error;
use crate::cli::TuneArgs;
use crate::exit::Exit;
use crate::report;
use crate::store;
use crate::tuning::{self, mpich, open_mpi};

/// Writes the tuning file of the run in `args.dir` to `args.output`.
pub fn tune(args: &TuneArgs) -> Exit {
    let path = args.dir.join("results.json");
    let results = match store::results::read(&path) {
        Ok(r) => r,
        Err(e) => return input_error(true, &format!("{}: {e}", path.display())),
    };
    let tuning = match tuning::decide(&results) {
        Ok(t) => t,
        Err(e) => return input_error(true, &format!("{}: {e}", path.display())),
    };
    // The file's own path as the library will read it, whatever the cwd.
    let file = std::path::absolute(&args.output).unwrap_or_else(|_| args.output.clone());
    let (text, how) = match tuning.library.as_str() {
        "open_mpi" => (
            open_mpi::rules(&tuning),
            open_mpi::mca_variables(&file.display().to_string()),
        ),
        _ => (
            mpich::environment(&tuning),
            vec![format!(
                "the variables of {} in each rank's environment",
                file.display()
            )],
        ),
    };
    if let Err(e) = std::fs::write(&args.output, text) {
        return input_error(true, &format!("{}: {e}", args.output.display()));
    }
    report::show(&report::text::tune::render(&tuning, &file, &how));
    Exit::Pass
}
