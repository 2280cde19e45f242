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
        _ => match mpich_selection(&tuning, &results.meta.mpi_library) {
            Ok(selection) => {
                let mut how = vec![format!("{}={}", mpich::VARIABLE, file.display())];
                how.extend(selection.variables.iter().cloned());
                how.extend(
                    selection
                        .notes
                        .iter()
                        .map(|n| format!("(not in the file: {n})")),
                );
                (mpich::json(&selection), how)
            }
            Err(e) => {
                report::warning(&format!(
                    "no collective-selection JSON ({e}); writing the algorithm variables instead"
                ));
                (
                    mpich::environment(&tuning),
                    vec![format!(
                        "the variables of {} in each rank's environment",
                        file.display()
                    )],
                )
            }
        },
    };
    if let Err(e) = std::fs::write(&args.output, text) {
        return input_error(true, &format!("{}: {e}", args.output.display()));
    }
    report::show(&report::text::tune::render(&tuning, &file, &how));
    Exit::Pass
}

/// MPICH's selection file from the built-in tree of the library this
/// pgcheck is linked with, which must be the run's.
fn mpich_selection(tuning: &tuning::Tuning, run_library: &str) -> Result<mpich::Selection, String> {
    let linked = crate::measure::machine::library_version();
    let first = |s: &str| s.lines().next().unwrap_or("").trim().to_string();
    if first(&linked) != first(run_library) {
        return Err(format!(
            "the run used {}, this pgcheck is linked with {}: tune with the pgcheck built for the run's library (PGCHECK_MPI)",
            first(run_library),
            first(&linked)
        ));
    }
    let path = mpich::loaded_library()?;
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let builtin = mpich::builtin(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    mpich::selection(tuning, &builtin)
}
