//! `pgcheck tune`: a run's results → the decisions (`tuning`) → the
//! library's tuning file, and what it changed and why.

use super::input_error;
use crate::commands::arguments::Tune;
use crate::exit::Ending;
use crate::report;
use crate::store;
use crate::tuning::{self, intel, mpich, open_mpi, presets};

/// Writes the tuning file of the run (or Intel MPI's launches) in
/// `args.runs` to `args.output`.
pub fn tune(args: &Tune) -> Ending {
    let launches = match store::load_runs(&args.runs) {
        Ok(launches) => launches,
        Err(e) => return input_error(true, &e),
    };
    let per_launch = launches.len() > 1
        || launches
            .iter()
            .any(|(_, r)| presets::is_intel_mpi(&r.meta.mpi_library));
    let decided = match per_launch {
        true => presets::decide(&launches),
        false => tuning::decide(&launches[0].1),
    };
    let tuning = match decided {
        Ok(t) => t,
        Err(e) if per_launch => return input_error(true, &e),
        Err(e) => return input_error(true, &format!("{}: {e}", launches[0].0)),
    };
    let results = &launches[0].1;
    // The file's own path as the library will read it, whatever the cwd.
    let file = std::path::absolute(&args.output).unwrap_or_else(|_| args.output.clone());
    let (text, how) = match tuning.library.as_str() {
        "open_mpi" => (
            open_mpi::rules(&tuning),
            open_mpi::mca_variables(&file.display().to_string()),
        ),
        "intel_mpi" => (intel::settings(&tuning), intel::how(&tuning)),
        _ => {
            let selection = mpich_selection(&tuning, &results.meta.mpi_library);
            let written = mpich_file(&tuning, &file, selection);
            if let Some(warning) = &written.warning {
                report::warning(warning);
            }
            (written.text, written.how)
        }
    };
    if let Err(e) = store::write_path_atomically(&args.output, text.as_bytes()) {
        // As `run`, `compare` and `history` do with a file they cannot write.
        report::error(&format!("cannot write {e}"));
        return Ending::CannotWrite;
    }
    report::show(&report::text::tune::render(&tuning, &file, &how));
    Ending::Done
}

/// What `tune` writes for MPICH and how it is loaded.
#[derive(Clone, Debug, PartialEq)]
struct MpichFile {
    text: String,
    /// The lines after "load it with:".
    how: Vec<String>,
    /// Why the fallback was written, when it was.
    warning: Option<String>,
}

/// The collective-selection JSON when the library's tree could be
/// completed (`selection`), loaded by [`mpich::VARIABLE`] and the
/// variables it could not hold; else the fallback: the algorithm variables
/// as an environment file ([`mpich::environment`]), with a warning that
/// says why.
fn mpich_file(
    tuning: &tuning::Tuning,
    file: &std::path::Path,
    selection: Result<mpich::Selection, String>,
) -> MpichFile {
    match selection {
        Ok(selection) => {
            let mut how = vec![format!("{}={}", mpich::VARIABLE, file.display())];
            how.extend(selection.variables.iter().cloned());
            how.extend(
                selection
                    .notes
                    .iter()
                    .map(|n| format!("(not in the file: {n})")),
            );
            MpichFile {
                text: mpich::json(&selection),
                how,
                warning: None,
            }
        }
        Err(e) => MpichFile {
            text: mpich::environment(tuning),
            how: vec![format!(
                "the variables of {} in each rank's environment",
                file.display()
            )],
            warning: Some(format!(
                "no collective-selection JSON ({e}); writing the algorithm variables instead"
            )),
        },
    }
}

/// MPICH's selection file from the built-in tree of the library this
/// pgcheck is linked with, which must be the run's.
fn mpich_selection(tuning: &tuning::Tuning, run_library: &str) -> Result<mpich::Selection, String> {
    let linked = crate::measure::machine::library_version();
    same_library(&linked, run_library)?;
    // pgcheck is linked with the library it tunes.
    let (path, bytes) = crate::host::loaded_mpi_library()?;
    let builtin = mpich::builtin(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    mpich::selection(tuning, &builtin)
}

/// Whether the library this pgcheck is linked with is the run's: the first
/// lines of their MPI_Get_library_version strings agree. The built-in tree
/// is read from the linked one.
fn same_library(linked: &str, run_library: &str) -> Result<(), String> {
    let first = |s: &str| s.lines().next().unwrap_or("").trim().to_string();
    if first(linked) != first(run_library) {
        return Err(format!(
            "the run used {}, this pgcheck is linked with {}: tune with the pgcheck built for the run's library (PGCHECK_MPI)",
            first(run_library),
            first(linked)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::CaseKey;
    use crate::collective::Collective;
    use crate::element::{Datatype, Op};
    use crate::meta::LibraryAlgorithm;
    use crate::tuning::{Change, Decision, Tuning};
    use std::path::Path;

    fn decision(collective: Collective, size: u64, item: Option<&str>) -> Decision {
        let name = collective.name();
        Decision {
            key: CaseKey {
                operation: collective.into(),
                size_bytes: size,
                count: size as usize,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            change: item.map(|item| Change {
                algorithm: LibraryAlgorithm {
                    name: format!("{name}_as_library_{item}"),
                    library: "mpich".into(),
                    collective: name.into(),
                    variable: format!("MPIR_CVAR_{}_INTRA_ALGORITHM", name.to_uppercase()),
                    value: 3,
                    item: item.into(),
                },
                slowdown: 2.0,
                p_value: 1e-4,
                sensitivity: None,
            }),
            why: String::new(),
        }
    }

    fn tuning() -> Tuning {
        Tuning {
            library: "mpich".into(),
            processes: 2,
            decisions: vec![
                decision(Collective::Allreduce, 8, Some("recursive_doubling")),
                decision(Collective::Allreduce, 1024, Some("recursive_doubling")),
                decision(Collective::Gather, 8, None),
            ],
        }
    }

    /// A library's bytes with a built-in tree for allreduce that knows
    /// `containers`.
    fn library(containers: &[&str]) -> Vec<u8> {
        let tree = r#"{"collective=allreduce":{"comm_type=intra":{"algorithm=MPIR_Allreduce_intra_ring":{}}}}"#;
        let mut bytes = b"\x7fELF\0".to_vec();
        for s in std::iter::once(tree.to_string())
            .chain(containers.iter().map(|c| format!("algorithm={c}")))
        {
            bytes.extend(s.as_bytes());
            bytes.push(0);
        }
        bytes
    }

    #[test]
    fn without_the_library_s_tree_tune_writes_the_algorithm_variables() {
        let t = tuning();
        let file = Path::new("/runs/tuned.env");
        let written = mpich_file(&t, file, Err("no tree".into()));
        assert_eq!(
            written.text,
            "# MPICH algorithm variables written by pgcheck tune\n\
             MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling\n"
        );
        assert_eq!(
            written.how,
            ["the variables of /runs/tuned.env in each rank's environment"]
        );
        assert_eq!(
            written.warning.as_deref(),
            Some("no collective-selection JSON (no tree); writing the algorithm variables instead")
        );
    }

    #[test]
    fn a_chosen_algorithm_the_library_s_tree_lacks_falls_back_to_the_variables() {
        let t = tuning();
        let builtin = mpich::builtin(&library(&["MPIR_Allreduce_intra_ring"])).unwrap();
        let written = mpich_file(&t, Path::new("f"), mpich::selection(&t, &builtin));
        assert_eq!(written.text, mpich::environment(&t));
        let warning = written.warning.expect("a warning");
        assert!(
            warning.contains("no selection container MPIR_Allreduce_intra_recursive_doubling"),
            "{warning}"
        );
    }

    #[test]
    fn with_the_library_s_tree_tune_writes_the_selection_file() {
        let mut t = tuning();
        // Without a size condition in MPICH's tree: gather, one algorithm
        // at every size, is a variable; scatter, not, cannot be written.
        t.decisions[2] = decision(Collective::Gather, 8, Some("linear"));
        t.decisions.extend([
            decision(Collective::Gather, 64, Some("linear")),
            decision(Collective::Scatter, 8, Some("binomial")),
            decision(Collective::Scatter, 64, None),
        ]);
        let builtin = mpich::builtin(&library(&[
            "MPIR_Allreduce_intra_ring",
            "MPIR_Allreduce_intra_recursive_doubling",
        ]))
        .unwrap();
        let selection = mpich::selection(&t, &builtin).unwrap();
        let written = mpich_file(&t, Path::new("/runs/sel.json"), Ok(selection.clone()));
        assert_eq!(written.warning, None);
        assert_eq!(written.text, mpich::json(&selection));
        let tree: serde_json::Value = serde_json::from_str(&written.text).unwrap();
        assert_eq!(
            tree["collective=allreduce"]["comm_type=intra"]["comm_size<=2"]["avg_msg_size=any"],
            serde_json::json!({"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}})
        );
        assert_eq!(
            written.how,
            [
                "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=/runs/sel.json",
                "MPIR_CVAR_GATHER_INTRA_ALGORITHM=linear",
                "(not in the file: MPI_Scatter: the choice depends on the size, and MPICH's selection has no size condition for it: not written)"
            ]
        );
    }

    #[test]
    fn the_tree_is_read_only_from_the_run_s_library() {
        let mpich = "MPICH Version:\t4.0\nMPICH Release date:\tFri Jan 21 10:42:29 CST 2022\n";
        let open_mpi = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022";
        assert_eq!(same_library(mpich, mpich), Ok(()));
        // Only the first line counts (the rest names the build).
        assert_eq!(
            same_library(mpich, "MPICH Version:\t4.0\nMPICH Device:\tch4:ucx\n"),
            Ok(())
        );
        let e = same_library(open_mpi, mpich).unwrap_err();
        assert_eq!(
            e,
            "the run used MPICH Version:\t4.0, this pgcheck is linked with Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022: tune with the pgcheck built for the run's library (PGCHECK_MPI)"
        );
        assert!(same_library(mpich, "MPICH Version:\t5.0.2").is_err());
    }
}
