//! MPICH: the algorithm variables (`MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM`)
//! as an environment file, one `NAME=item` line for each collective whose
//! every measured size chose the same algorithm. A choice that depends on
//! the size needs MPICH's collective-selection JSON
//! (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`), which replaces the whole
//! built-in selection tree; pgcheck does not write it and says so in a
//! comment with the choices per size.

use super::{ranges, Tuning};
use crate::collective::Collective;

/// The environment file.
pub fn environment(tuning: &Tuning) -> String {
    let mut out = String::from("# MPICH algorithm variables written by pgcheck tune\n");
    for collective in Collective::ALL {
        let points: Vec<(u64, Option<&crate::meta::LibraryAlgorithm>)> = tuning
            .decisions
            .iter()
            .filter(|d| d.key.collective == collective)
            .map(|d| (d.key.size_bytes, d.change.as_ref().map(|c| &c.algorithm)))
            .collect();
        let rules = ranges(&points);
        match rules.as_slice() {
            [] | [(_, None)] => {}
            [(_, Some(a))] => out += &format!("{}={}\n", a.variable, a.item),
            several => {
                out += &format!(
                    "# {}: the choice depends on the size (needs a collective-selection JSON):\n",
                    collective.mpi_name()
                );
                for (from, choice) in several {
                    let what = choice
                        .as_ref()
                        .map_or("the library's choice", |a| a.item.as_str());
                    out += &format!("#   from {from} B: {what}\n");
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::tests::{algorithm, verdict};
    use crate::tuning::{Change, Decision};

    fn decision(collective: Collective, size: u64, item: Option<&str>) -> Decision {
        Decision {
            key: verdict(collective, size, vec![]).key,
            change: item.map(|item| Change {
                algorithm: crate::meta::LibraryAlgorithm {
                    variable: format!(
                        "MPIR_CVAR_{}_INTRA_ALGORITHM",
                        collective.name().to_uppercase()
                    ),
                    ..algorithm("mpich", collective.name(), item, 3)
                },
                slowdown: 1.5,
                p_value: 1e-3,
                sensitivity: None,
            }),
            why: String::new(),
        }
    }

    #[test]
    fn one_algorithm_everywhere_is_a_variable_else_a_comment() {
        let tuning = Tuning {
            library: "mpich".into(),
            processes: 4,
            decisions: vec![
                decision(Collective::Allreduce, 8, Some("recursive_doubling")),
                decision(Collective::Allreduce, 8192, Some("recursive_doubling")),
                decision(Collective::Bcast, 8, Some("binomial")),
                decision(Collective::Bcast, 8192, None),
                decision(Collective::Gather, 8, None),
            ],
        };
        assert_eq!(
            environment(&tuning),
            "# MPICH algorithm variables written by pgcheck tune\n\
             MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling\n\
             # MPI_Bcast: the choice depends on the size (needs a collective-selection JSON):\n\
             #   from 8 B: binomial\n\
             #   from 8192 B: the library's choice\n"
        );
    }
}
