//! Open MPI's coll_tuned dynamic rules file (read when
//! `coll_tuned_use_dynamic_rules=1` and `coll_tuned_dynamic_rules_filename`
//! name it): per collective, per communicator size, the algorithm from each
//! message size up. Message sizes are what coll_tuned computes for the
//! collective (`coll_tuned_decision_dynamic.c`), algorithm 0 is its own
//! choice.

use super::{ranges, Tuning};
use crate::case::CaseKey;
use crate::collective::Collective;

/// coll_tuned's number of the collective (`COLLTYPE_T` in Open MPI's
/// `coll_base_functions.h`).
pub fn collective_id(collective: Collective) -> u32 {
    match collective {
        Collective::Allgather => 0,
        Collective::Allreduce => 2,
        Collective::Alltoall => 3,
        Collective::Barrier => 6,
        Collective::Bcast => 7,
        Collective::Exscan => 8,
        Collective::Gather => 9,
        Collective::Reduce => 11,
        Collective::ReduceScatter => 12,
        Collective::ReduceScatterBlock => 13,
        Collective::Scan => 14,
        Collective::Scatter => 15,
        c => unreachable!("{c} is no collective of coll_tuned: it has no library algorithm"),
    }
}

/// The message size coll_tuned compares with the file's for this case.
pub fn message_size(key: &CaseKey, processes: usize) -> u64 {
    let p = processes as u64;
    let element = key.datatype.size() as u64;
    match key.operation.collective {
        // The whole vector.
        Collective::Allreduce | Collective::Bcast | Collective::Reduce => key.size_bytes,
        Collective::ReduceScatter => key.size_bytes,
        // Per-process blocks, times the processes.
        Collective::Allgather
        | Collective::Alltoall
        | Collective::Gather
        | Collective::Scatter
        | Collective::ReduceScatterBlock => key.size_bytes * p,
        // coll_tuned uses the element size times the processes: one rule.
        Collective::Scan | Collective::Exscan => element * p,
        // A barrier moves no data.
        Collective::Barrier => 0,
        c => unreachable!("{c} is no collective of coll_tuned: it has no library algorithm"),
    }
}

/// The MCA variables that load `file`.
pub fn mca_variables(file: &str) -> Vec<String> {
    vec![
        "coll_tuned_use_dynamic_rules=1".into(),
        format!("coll_tuned_dynamic_rules_filename={file}"),
    ]
}

/// The rules file: the collectives with a change, on `tuning.processes`.
pub fn rules(tuning: &Tuning) -> String {
    let mut collectives: Vec<Collective> = tuning
        .changes()
        .map(|(d, _)| d.key.operation.collective)
        .collect();
    collectives.sort_by_key(|c| collective_id(*c));
    collectives.dedup();
    let mut out = String::new();
    out += "# Open MPI coll_tuned dynamic rules written by pgcheck tune\n";
    out += &format!("{}  # collectives\n", collectives.len());
    for collective in collectives {
        let points: Vec<(u64, Option<&crate::meta::LibraryAlgorithm>)> = tuning
            .decisions
            .iter()
            .filter(|d| d.key.operation.collective == collective)
            .map(|d| {
                (
                    message_size(&d.key, tuning.processes),
                    d.change.as_ref().map(|c| &c.algorithm),
                )
            })
            .collect();
        let mut rules = ranges(&points);
        // Below the smallest size measured, that size's choice.
        if let Some(first) = rules.first_mut() {
            first.0 = 0;
        }
        out += &format!(
            "{}  # {}\n",
            collective_id(collective),
            collective.mpi_name()
        );
        out += "1  # communicator sizes\n";
        out += &format!("{}  # processes\n", tuning.processes);
        out += &format!("{}  # message sizes\n", rules.len());
        for (size, choice) in rules {
            let (value, what) = match &choice {
                Some(a) => (a.value, a.item.as_str()),
                None => (0, "the library's choice"),
            };
            // message size, algorithm, fan-in/out (0: default), segment size (0: default)
            out += &format!("{size} {value} 0 0  # {what}\n");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tuning::tests::algorithm;
    use crate::tuning::{Change, Decision};

    fn decision(collective: Collective, size: u64, change: Option<(&str, i32)>) -> Decision {
        let key = crate::tuning::tests::verdict(collective, size, vec![]).key;
        Decision {
            key,
            change: change.map(|(item, value)| Change {
                algorithm: algorithm("open_mpi", collective.name(), item, value),
                slowdown: 1.5,
                p_value: 1e-3,
                sensitivity: Some(1.2),
            }),
            why: String::new(),
        }
    }

    #[test]
    fn the_rules_file_has_coll_tuned_layout() {
        let tuning = Tuning {
            library: "open_mpi".into(),
            processes: 4,
            decisions: vec![
                decision(Collective::Allreduce, 8, Some(("recursive_doubling", 3))),
                decision(Collective::Allreduce, 1024, Some(("recursive_doubling", 3))),
                decision(Collective::Allreduce, 65536, None),
                decision(Collective::Alltoall, 64, Some(("pairwise", 2))),
                // No change at all: not in the file.
                decision(Collective::Bcast, 64, None),
            ],
        };
        let expected = "\
# Open MPI coll_tuned dynamic rules written by pgcheck tune
2  # collectives
2  # MPI_Allreduce
1  # communicator sizes
4  # processes
2  # message sizes
0 3 0 0  # recursive_doubling
65536 0 0 0  # the library's choice
3  # MPI_Alltoall
1  # communicator sizes
4  # processes
1  # message sizes
0 2 0 0  # pairwise
";
        assert_eq!(rules(&tuning), expected);
    }

    #[test]
    fn message_sizes_are_coll_tuneds() {
        let key = |collective, size| crate::tuning::tests::verdict(collective, size, vec![]).key;
        assert_eq!(message_size(&key(Collective::Allreduce, 1024), 4), 1024);
        assert_eq!(message_size(&key(Collective::Allgather, 1024), 4), 4096);
        assert_eq!(message_size(&key(Collective::ReduceScatterBlock, 8), 3), 24);
        assert_eq!(message_size(&key(Collective::Scan, 1 << 20), 4), 4);
        assert_eq!(collective_id(Collective::Bcast), 7);
        assert_eq!(
            mca_variables("/x/rules.conf"),
            [
                "coll_tuned_use_dynamic_rules=1",
                "coll_tuned_dynamic_rules_filename=/x/rules.conf"
            ]
        );
    }

    /// Every collective's number in Open MPI's `COLLTYPE_T`
    /// (`ompi/mca/coll/base/coll_base_functions.h`, 4.1 and 5.0: ALLGATHER
    /// = 0, ALLGATHERV, ALLREDUCE, ALLTOALL, ALLTOALLV, ALLTOALLW, BARRIER,
    /// BCAST, EXSCAN, GATHER, GATHERV, REDUCE, REDUCESCATTER,
    /// REDUCESCATTERBLOCK, SCAN, SCATTER, …).
    #[test]
    fn collective_ids_are_open_mpi_s() {
        for (collective, id) in [
            (Collective::Allgather, 0),
            (Collective::Allreduce, 2),
            (Collective::Alltoall, 3),
            (Collective::Bcast, 7),
            (Collective::Exscan, 8),
            (Collective::Gather, 9),
            (Collective::Reduce, 11),
            (Collective::ReduceScatter, 12),
            (Collective::ReduceScatterBlock, 13),
            (Collective::Scan, 14),
            (Collective::Scatter, 15),
        ] {
            assert_eq!(collective_id(collective), id, "{collective:?}");
        }
    }

    /// The message size of every collective as coll_tuned's
    /// `*_intra_dec_dynamic` computes it (`coll_tuned_decision_dynamic.c`):
    /// type size × count for allreduce, bcast and reduce; × the sum of the
    /// receive counts for reduce_scatter; × count × communicator size for
    /// allgather, alltoall, gather, scatter and reduce_scatter_block.
    #[test]
    fn message_sizes_of_every_collective_are_coll_tuned_s() {
        let key = |collective, size, datatype| CaseKey {
            datatype,
            ..crate::tuning::tests::verdict(collective, size, vec![]).key
        };
        use crate::element::Datatype::{Float64, Int32};
        for (collective, expected) in [
            (Collective::Allreduce, 96),
            (Collective::Bcast, 96),
            (Collective::Reduce, 96),
            (Collective::ReduceScatter, 96),
            (Collective::Allgather, 96 * 3),
            (Collective::Alltoall, 96 * 3),
            (Collective::Gather, 96 * 3),
            (Collective::Scatter, 96 * 3),
            (Collective::ReduceScatterBlock, 96 * 3),
            (Collective::Scan, 8 * 3),
            (Collective::Exscan, 8 * 3),
        ] {
            assert_eq!(
                message_size(&key(collective, 96, Float64), 3),
                expected,
                "{collective:?}"
            );
        }
        assert_eq!(message_size(&key(Collective::Scan, 96, Int32), 5), 4 * 5);
    }
}
