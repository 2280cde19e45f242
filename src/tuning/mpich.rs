//! MPICH: the collective-selection JSON (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`,
//! MPICH 4.0 and 5.0). The file replaces the library's whole built-in MPIR
//! selection tree, and a collective or a branch it leaves out makes MPICH
//! find no algorithm (4.0 asserts), so pgcheck writes the library's own
//! built-in tree — read from the library itself, byte for byte what MPICH
//! uses without the file — with one change per tuned collective: on a
//! communicator of the run's size, a branch per size range, each the chosen
//! algorithm or the library's own subtree where pgcheck changes nothing.
//!
//! The tree (MPICH's `csel.c`): each object's keys are conditions tried in
//! order, the first that holds is descended into, `…=any` always holds;
//! `comm_size<=N`, `avg_msg_size<=N` (allreduce, bcast, reduce, alltoall:
//! bytes of the vector or of one block) and `total_msg_size<=N` (allgather,
//! reduce-scatter: bytes of all blocks) select; a leaf is
//! `"algorithm=MPIR_<Coll>_intra_<item>": {}`. Collectives without a size
//! condition there (gather, scatter, scan, exscan) fall back to their
//! algorithm variable when every size chose the same algorithm ([`environment`]).
//!
//! MPICH (4.0 and 5.0) has a shared-memory layer above that tree (ch4's POSIX
//! `release_gather`, its own tree in the library): on a node it takes
//! bcast, reduce and allreduce once a communicator has made
//! `MPIR_CVAR_POSIX_NUM_COLLS_THRESHOLD` such calls, and never asks the MPIR
//! tree. A tuned collective that layer selects also gets its
//! `MPIR_CVAR_<COLL>_POSIX_INTRA_ALGORITHM=mpir` (MPICH's documented
//! fallback to the MPIR collectives), or the file would change nothing after
//! the first few calls (MPICH 5.0.2 did so here).

use super::{ranges, Tuning};
use crate::collective::Collective;
use crate::meta::LibraryAlgorithm;
use serde_json::{Map, Value};

/// The variable that loads the file.
pub const VARIABLE: &str = "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE";

/// The library's built-in selection trees and algorithm names, as read from
/// its shared object.
#[derive(Clone, Debug)]
pub struct Builtin {
    /// The MPIR tree (`{"collective=bcast": …}`).
    pub tree: Value,
    /// Every `algorithm=MPIR_…` container the library's parser knows.
    pub containers: Vec<String>,
    /// The shared-memory layer's variables of the collectives its tree
    /// selects (`MPIR_CVAR_REDUCE_POSIX_INTRA_ALGORITHM`).
    pub posix_variables: Vec<String>,
}

/// The built-in MPIR tree and container names in a library's bytes: the
/// NUL-terminated JSON that starts with `{"collective=` and selects
/// `algorithm=MPIR_…` (the CH4 tree selects `composition=`, the POSIX tree
/// `algorithm=MPIDI_POSIX_…`), and the shared-memory layer's variables.
pub fn builtin(library: &[u8]) -> Result<Builtin, String> {
    let strings: Vec<&str> = library
        .split(|b| *b == 0)
        .filter_map(|s| std::str::from_utf8(s).ok())
        .collect();
    let mut tree = None;
    let mut containers = Vec::new();
    for s in &strings {
        if tree.is_none() && s.starts_with("{\"collective=") && s.contains("\"algorithm=MPIR_") {
            tree = Some(
                serde_json::from_str::<Value>(s)
                    .map_err(|e| format!("the built-in selection tree does not parse: {e}"))?,
            );
        } else if let Some(name) = s.strip_prefix("algorithm=MPIR_") {
            containers.push(format!("MPIR_{name}"));
        }
    }
    let tree = tree.ok_or("no built-in MPIR selection tree in the library")?;
    // The collectives the POSIX tree selects, whose variable the library
    // has. The tree is searched in the raw bytes: MPICH 4.0's is not
    // NUL-separated from what precedes it.
    let posix_variables = Collective::ALL
        .iter()
        .map(|c| c.name())
        .filter(|c| {
            let leaf = format!("\"algorithm=MPIDI_POSIX_mpi_{c}_");
            library.windows(leaf.len()).any(|w| w == leaf.as_bytes())
        })
        .map(|c| format!("MPIR_CVAR_{}_POSIX_INTRA_ALGORITHM", c.to_uppercase()))
        .filter(|v| strings.contains(&v.as_str()))
        .collect();
    Ok(Builtin {
        tree,
        containers,
        posix_variables,
    })
}

/// MPICH's container of a library algorithm: `MPIR_Allreduce_intra_ring`,
/// `MPIR_Allreduce_allcomm_nb` for the nonblocking one.
pub fn container(algorithm: &LibraryAlgorithm) -> String {
    let mut coll = algorithm.collective.clone();
    coll[..1].make_ascii_uppercase();
    match algorithm.item.as_str() {
        "nb" => format!("MPIR_{coll}_allcomm_nb"),
        item => format!("MPIR_{coll}_intra_{item}"),
    }
}

/// The size condition MPICH's tree has for a collective, and the bytes it
/// compares for a pgcheck size of `size_bytes` on `processes`.
fn size_condition(
    collective: Collective,
    size_bytes: u64,
    processes: u64,
) -> Option<(&'static str, u64)> {
    match collective {
        Collective::Allreduce | Collective::Bcast | Collective::Reduce | Collective::Alltoall => {
            Some(("avg_msg_size", size_bytes))
        }
        Collective::Allgather | Collective::ReduceScatterBlock => {
            Some(("total_msg_size", size_bytes * processes))
        }
        Collective::ReduceScatter => Some(("total_msg_size", size_bytes)),
        Collective::Gather
        | Collective::Scatter
        | Collective::Scan
        | Collective::Exscan
        | Collective::Barrier => None,
        // No algorithm of the library's is measured for a transfer.
        c if c.is_transfer() => None,
        _ => unreachable!("every collective is named above"),
    }
}

/// The selection file and what it could not express.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// The whole tree, to be written as the file.
    pub tree: Value,
    /// Algorithm variables for collectives without a size condition whose
    /// every size chose the same algorithm (`NAME=item`).
    pub variables: Vec<String>,
    /// Changes that neither could express, and why.
    pub notes: Vec<String>,
}

/// The library's tree with the changes of `tuning`.
pub fn selection(tuning: &Tuning, builtin: &Builtin) -> Result<Selection, String> {
    let mut tree = builtin.tree.clone();
    let mut variables = Vec::new();
    let mut notes = Vec::new();
    let p = tuning.processes as u64;
    for collective in Collective::ALL {
        let decisions: Vec<_> = tuning
            .decisions
            .iter()
            .filter(|d| d.key.operation.collective == collective)
            .collect();
        if decisions.iter().all(|d| d.change.is_none()) {
            continue;
        }
        let Some((metric, _)) = size_condition(collective, 0, p) else {
            let points: Vec<(u64, Option<&LibraryAlgorithm>)> = decisions
                .iter()
                .map(|d| (d.key.size_bytes, d.change.as_ref().map(|c| &c.algorithm)))
                .collect();
            match ranges(&points).as_slice() {
                [(_, Some(a))] => variables.push(format!("{}={}", a.variable, a.item)),
                _ => notes.push(format!(
                    "{}: the choice depends on the size, and MPICH's selection has no size condition for it: not written",
                    collective.mpi_name()
                )),
            }
            continue;
        };
        let points: Vec<(u64, Option<&LibraryAlgorithm>)> = decisions
            .iter()
            .map(|d| {
                let (_, bytes) = size_condition(collective, d.key.size_bytes, p).unwrap();
                (bytes, d.change.as_ref().map(|c| &c.algorithm))
            })
            .collect();
        let rules = ranges(&points);
        for a in rules.iter().filter_map(|(_, a)| a.as_ref()) {
            if !builtin.containers.contains(&container(a)) {
                return Err(format!(
                    "{}: the library has no selection container {} for {}",
                    collective.mpi_name(),
                    container(a),
                    a.item
                ));
            }
        }
        let key = format!("collective={}", collective.name());
        let Some(Value::Object(of_collective)) = tree.get_mut(&key) else {
            return Err(format!("the library's tree has no {key}"));
        };
        let Some(intra) = of_collective.get("comm_type=intra").cloned() else {
            return Err(format!("the library's {key} has no comm_type=intra branch"));
        };
        let by_comm = intra_branch(&rules, metric, p, intra);
        of_collective.insert("comm_type=intra".into(), by_comm);
        let posix = format!(
            "MPIR_CVAR_{}_POSIX_INTRA_ALGORITHM",
            collective.name().to_uppercase()
        );
        if builtin.posix_variables.contains(&posix) {
            variables.push(format!("{posix}=mpir"));
        }
    }
    Ok(Selection {
        tree,
        variables,
        notes,
    })
}

/// A collective's new `comm_type=intra` branch: on a communicator of the
/// run's size `p`, each size range's choice (`metric` the size condition's
/// name); the library's own branch (`intra`) elsewhere and where a range
/// keeps the library's choice.
fn intra_branch(
    rules: &[(u64, Option<LibraryAlgorithm>)],
    metric: &str,
    p: u64,
    intra: Value,
) -> Value {
    // Sizes between two measured ones take the smaller's choice, sizes
    // below the smallest its choice too.
    let mut by_size = Map::new();
    for (i, (_, choice)) in rules.iter().enumerate() {
        let condition = match rules.get(i + 1) {
            Some((next, _)) => format!("{metric}<={}", next - 1),
            None => format!("{metric}=any"),
        };
        let branch = match choice {
            Some(a) => Value::Object(Map::from_iter([(
                format!("algorithm={}", container(a)),
                Value::Object(Map::new()),
            )])),
            None => intra.clone(),
        };
        by_size.insert(condition, branch);
    }
    // Only on a communicator of the run's size; others keep the library's.
    let mut by_comm = Map::new();
    if p > 1 {
        by_comm.insert(format!("comm_size<={}", p - 1), intra.clone());
    }
    by_comm.insert(format!("comm_size<={p}"), Value::Object(by_size));
    by_comm.insert("comm_size=any".into(), intra);
    Value::Object(by_comm)
}

/// The file's text: the tree, one key per line at the top.
pub fn json(selection: &Selection) -> String {
    let mut out = serde_json::to_string_pretty(&selection.tree).expect("a JSON tree");
    out.push('\n');
    out
}

/// Without the library's tree: the algorithm variables
/// (`MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM`) as an environment file, one
/// `NAME=item` line for each collective whose every measured size chose
/// the same algorithm, a comment for the others.
pub fn environment(tuning: &Tuning) -> String {
    let mut out = String::from("# MPICH algorithm variables written by pgcheck tune\n");
    for collective in Collective::ALL {
        let points: Vec<(u64, Option<&LibraryAlgorithm>)> = tuning
            .decisions
            .iter()
            .filter(|d| d.key.operation.collective == collective)
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
    use serde_json::json;

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

    fn tuning(decisions: Vec<Decision>) -> Tuning {
        Tuning {
            library: "mpich".into(),
            processes: 4,
            decisions,
        }
    }

    /// A library's bytes: other strings, the POSIX tree, the MPIR tree and
    /// the container names, NUL-separated as in a shared object.
    fn library() -> Vec<u8> {
        let posix = r#"{"collective=bcast":{"comm_type=intra":{"algorithm=MPIDI_POSIX_mpi_bcast_release_gather":{}}}}"#;
        let mpir = json!({
            "collective=bcast": {
                "comm_type=intra": {"avg_msg_size<=12288": {"algorithm=MPIR_Bcast_intra_binomial": {}},
                                    "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}}},
                "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}
            },
            "collective=allreduce": {
                "comm_type=intra": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
                "comm_type=inter": {"algorithm=MPIR_Allreduce_inter_reduce_exchange_bcast": {}}
            },
            "collective=gather": {"comm_type=intra": {"algorithm=MPIR_Gather_intra_binomial": {}}}
        });
        let mut bytes = b"\x7fELF\0junk\0".to_vec();
        // As in MPICH 4.0, the POSIX tree follows other bytes without a NUL.
        bytes.extend(b"\x01\x02");
        for s in [
            posix.to_string(),
            mpir.to_string(),
            // The shared-memory layer's variables: the POSIX tree selects
            // bcast, not allreduce.
            "MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM".into(),
            "MPIR_CVAR_ALLREDUCE_POSIX_INTRA_ALGORITHM".into(),
            "algorithm=MPIR_Bcast_intra_binomial".into(),
            "algorithm=MPIR_Bcast_intra_scatter_ring_allgather".into(),
            "algorithm=MPIR_Allreduce_intra_recursive_doubling".into(),
            "algorithm=MPIR_Allreduce_allcomm_nb".into(),
        ] {
            bytes.extend(s.as_bytes());
            bytes.push(0);
        }
        bytes
    }

    #[test]
    fn the_builtin_tree_is_the_mpir_one() {
        let b = builtin(&library()).unwrap();
        assert!(b.tree.get("collective=allreduce").is_some());
        assert!(!b.tree.to_string().contains("MPIDI_POSIX"));
        assert!(b
            .containers
            .contains(&"MPIR_Allreduce_allcomm_nb".to_string()));
        assert_eq!(b.posix_variables, ["MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM"]);
        assert!(builtin(b"no tree\0here\0")
            .unwrap_err()
            .contains("no built-in"));
    }

    #[test]
    fn a_choice_per_size_keeps_the_library_s_subtree_elsewhere() {
        let b = builtin(&library()).unwrap();
        let t = tuning(vec![
            decision(Collective::Bcast, 8, Some("scatter_ring_allgather")),
            decision(Collective::Bcast, 1024, Some("scatter_ring_allgather")),
            decision(Collective::Bcast, 65536, None),
            decision(Collective::Bcast, 1 << 20, Some("binomial")),
            // No change: the library's tree as it was.
            decision(Collective::Allreduce, 8, None),
        ]);
        let s = selection(&t, &b).unwrap();
        let original = b.tree["collective=bcast"]["comm_type=intra"].clone();
        let expected = json!({
            "comm_size<=3": original,
            "comm_size<=4": {
                "avg_msg_size<=65535": {"algorithm=MPIR_Bcast_intra_scatter_ring_allgather": {}},
                "avg_msg_size<=1048575": original,
                "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}
            },
            "comm_size=any": original
        });
        assert_eq!(s.tree["collective=bcast"]["comm_type=intra"], expected);
        // The order of the conditions is the order MPICH tries them in.
        let keys: Vec<&String> = s.tree["collective=bcast"]["comm_type=intra"]["comm_size<=4"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(
            keys,
            [
                "avg_msg_size<=65535",
                "avg_msg_size<=1048575",
                "avg_msg_size=any"
            ]
        );
        // What pgcheck does not change stays as the library has it.
        assert_eq!(
            s.tree["collective=bcast"]["comm_type=inter"],
            b.tree["collective=bcast"]["comm_type=inter"]
        );
        assert_eq!(
            s.tree["collective=allreduce"],
            b.tree["collective=allreduce"]
        );
        assert_eq!(s.tree["collective=gather"], b.tree["collective=gather"]);
        // The shared-memory layer would take bcast and never ask the tree.
        assert_eq!(s.variables, ["MPIR_CVAR_BCAST_POSIX_INTRA_ALGORITHM=mpir"]);
        assert!(s.notes.is_empty());
        assert!(json(&s).ends_with("}\n"));
    }

    #[test]
    fn total_sizes_nonblocking_containers_and_what_cannot_be_written() {
        let mut b = builtin(&library()).unwrap();
        b.tree["collective=allgather"] =
            json!({"comm_type=intra": {"algorithm=MPIR_Allgather_intra_ring": {}}});
        b.containers.push("MPIR_Allgather_intra_ring".into());
        let t = tuning(vec![
            decision(Collective::Allreduce, 8, Some("nb")),
            decision(Collective::Allreduce, 64, None),
            // Per-process blocks: 4 processes × 64 B in all.
            decision(Collective::Allgather, 8, None),
            decision(Collective::Allgather, 64, Some("ring")),
            // No size condition: one algorithm everywhere is its variable.
            decision(Collective::Gather, 8, Some("binomial")),
            decision(Collective::Gather, 64, Some("binomial")),
        ]);
        let s = selection(&t, &b).unwrap();
        let allreduce = &s.tree["collective=allreduce"]["comm_type=intra"]["comm_size<=4"];
        assert_eq!(
            allreduce["avg_msg_size<=63"],
            json!({"algorithm=MPIR_Allreduce_allcomm_nb": {}})
        );
        let allgather = &s.tree["collective=allgather"]["comm_type=intra"]["comm_size<=4"];
        assert_eq!(
            allgather["total_msg_size=any"],
            json!({"algorithm=MPIR_Allgather_intra_ring": {}})
        );
        assert!(
            allgather.get("total_msg_size<=255").is_some(),
            "{allgather}"
        );
        assert_eq!(s.variables, ["MPIR_CVAR_GATHER_INTRA_ALGORITHM=binomial"]);
        // A gather whose choice depends on the size cannot be written.
        let t = tuning(vec![
            decision(Collective::Gather, 8, Some("binomial")),
            decision(Collective::Gather, 64, None),
        ]);
        let s = selection(&t, &b).unwrap();
        assert!(s.notes[0].contains("MPI_Gather"), "{:?}", s.notes);
        // An algorithm the library's parser does not know is refused.
        let t = tuning(vec![decision(Collective::Allreduce, 8, Some("ring"))]);
        assert!(selection(&t, &b)
            .unwrap_err()
            .contains("MPIR_Allreduce_intra_ring"));
    }

    #[test]
    fn one_algorithm_everywhere_is_a_variable_else_a_comment() {
        let tuning = tuning(vec![
            decision(Collective::Allreduce, 8, Some("recursive_doubling")),
            decision(Collective::Allreduce, 8192, Some("recursive_doubling")),
            decision(Collective::Bcast, 8, Some("binomial")),
            decision(Collective::Bcast, 8192, None),
            decision(Collective::Gather, 8, None),
        ]);
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
