//! Intel MPI's selection settings: `I_MPI_ADJUST_<COLLECTIVE>` =
//! `"<preset>[:<conditions>][;<preset>:<conditions>…]"`, read once at
//! `MPI_Init` (developer reference, "I_MPI_ADJUST family"). A condition is
//! a message size `l`, a range `l-m`, either with `@p` or `@p-q` processes;
//! no condition matches everything, the first matching preset wins, and
//! where none matches the library selects by itself.

use super::{ranges, Tuning};
use crate::case::CaseKey;
use crate::collective::Collective;
use crate::operation::Form;

/// The largest message size a condition names: Intel MPI's sizes are C ints.
const LARGEST: u64 = i32::MAX as u64;

/// The variable that selects `key`'s algorithm, for the blocking
/// collectives Intel MPI lets one select.
pub fn variable(key: &CaseKey) -> Option<String> {
    if key.operation.form != Form::Blocking {
        return None;
    }
    match key.operation.collective {
        Collective::Allgather
        | Collective::Allreduce
        | Collective::Alltoall
        | Collective::Barrier
        | Collective::Bcast
        | Collective::Exscan
        | Collective::Gather
        | Collective::Reduce
        | Collective::ReduceScatter
        | Collective::ReduceScatterBlock
        | Collective::Scan
        | Collective::Scatter => Some(format!(
            "I_MPI_ADJUST_{}",
            key.operation.collective.name().to_uppercase()
        )),
        _ => None,
    }
}

/// The message size Intel MPI's conditions compare: count × type size of
/// the call, which is pgcheck's size (per process for allgather, alltoall,
/// gather, scatter and reduce_scatter_block, the whole vector otherwise).
pub fn message_size(key: &CaseKey) -> u64 {
    match key.operation.collective {
        Collective::Barrier => 0,
        _ => key.size_bytes,
    }
}

/// The preset a setting selects for a message of `size` bytes on
/// `processes`: `None` where no condition matches (the library's own
/// choice), an error for a setting that is not Intel MPI's syntax.
pub fn preset_of(setting: &str, size: u64, processes: usize) -> Result<Option<u32>, String> {
    let setting = setting.trim().trim_matches(|c| c == '"' || c == '\'');
    for part in setting.split(';').filter(|p| !p.trim().is_empty()) {
        let (preset, conditions) = match part.split_once(':') {
            Some((preset, conditions)) => (preset, Some(conditions)),
            None => (part, None),
        };
        let preset: i64 = preset
            .trim()
            .parse()
            .map_err(|_| format!("{setting:?}: {preset:?} is no preset number"))?;
        let matches = match conditions {
            None => true,
            Some(list) => list
                .split(',')
                .map(|c| condition_matches(c.trim(), size, processes as u64))
                .collect::<Result<Vec<bool>, String>>()
                .map_err(|e| format!("{setting:?}: {e}"))?
                .into_iter()
                .any(|m| m),
        };
        if matches {
            // A negative preset is the library's own choice (its default, -1).
            return Ok(u32::try_from(preset).ok());
        }
    }
    Ok(None)
}

/// `l`, `l-m`, `l@p`, `l-m@p-q` (and `l@p-q`, `l-m@p`).
fn condition_matches(condition: &str, size: u64, processes: u64) -> Result<bool, String> {
    let range = |text: &str| -> Result<(u64, u64), String> {
        let number = |t: &str| {
            t.trim()
                .parse::<u64>()
                .map_err(|_| format!("{condition:?} is no condition"))
        };
        match text.split_once('-') {
            Some((lo, hi)) => Ok((number(lo)?, number(hi)?)),
            None => number(text).map(|n| (n, n)),
        }
    };
    let (sizes, ranks) = match condition.split_once('@') {
        Some((sizes, ranks)) => (range(sizes)?, Some(range(ranks)?)),
        None => (range(condition)?, None),
    };
    let within = |(lo, hi): (u64, u64), x: u64| lo <= x && x <= hi;
    Ok(within(sizes, size) && ranks.is_none_or(|r| within(r, processes)))
}

/// The settings file: per collective with a change, its variable with a
/// condition per range of sizes on the run's process count. Sizes between
/// two measured ones go to the smaller, as in the other libraries' files.
pub fn settings(tuning: &Tuning) -> String {
    let mut out = String::from(
        "# Intel MPI collective presets written by pgcheck tune: put them in\n\
         # every rank's environment (mpiexec.hydra -genv NAME VALUE, or export)\n",
    );
    for (variable, value) in values(tuning) {
        out += &format!("{variable}=\"{value}\"\n");
    }
    out
}

/// How `settings` is loaded: one `-genv` per variable.
pub fn how(tuning: &Tuning) -> Vec<String> {
    values(tuning)
        .into_iter()
        .map(|(variable, value)| format!("-genv {variable} '{value}'"))
        .collect()
}

/// Each changed collective's variable and value, in the collectives' order.
fn values(tuning: &Tuning) -> Vec<(String, String)> {
    let mut variables: Vec<(Collective, String)> = tuning
        .changes()
        .map(|(_, c)| (c.algorithm.collective.clone(), c.algorithm.variable.clone()))
        .filter_map(|(name, variable)| Some((Collective::from_name(&name)?, variable)))
        .collect();
    variables.sort();
    variables.dedup();
    let p = tuning.processes;
    variables
        .into_iter()
        .filter_map(|(collective, variable)| {
            let points: Vec<(u64, Option<&crate::meta::LibraryAlgorithm>)> = tuning
                .decisions
                .iter()
                .filter(|d| d.key.operation.collective == collective)
                .map(|d| {
                    let change = d.change.as_ref().map(|c| &c.algorithm);
                    (message_size(&d.key), change)
                })
                .collect();
            let merged = ranges(&points);
            let parts: Vec<String> = merged
                .iter()
                .enumerate()
                .filter_map(|(i, (from, choice))| {
                    let to = merged.get(i + 1).map_or(LARGEST, |(next, _)| next - 1);
                    let preset = choice.as_ref()?.value;
                    Some(format!("{preset}:{from}-{to}@{p}-{p}"))
                })
                .collect();
            (!parts.is_empty()).then(|| (variable, parts.join(";")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::element::{Datatype, Op};
    use crate::meta::LibraryAlgorithm;
    use crate::operation::Operation;
    use crate::tuning::{Change, Decision};

    fn key(collective: Collective, size: u64) -> CaseKey {
        CaseKey {
            operation: Operation::blocking(collective),
            size_bytes: size,
            count: size as usize,
            datatype: Datatype::Byte,
            op: Op::Bor,
            root: 0,
        }
    }

    #[test]
    fn a_setting_selects_the_first_preset_whose_condition_matches() {
        let s = "3:0-1024@2-2;8:1025-65536;1";
        assert_eq!(preset_of(s, 8, 2), Ok(Some(3)));
        assert_eq!(preset_of(s, 1024, 2), Ok(Some(3)));
        // On 3 processes the first condition fails.
        assert_eq!(preset_of(s, 8, 3), Ok(Some(1)));
        assert_eq!(preset_of(s, 1025, 3), Ok(Some(8)));
        assert_eq!(preset_of(s, 1 << 20, 2), Ok(Some(1)));
        assert_eq!(preset_of("\"2:8,64\"", 64, 4), Ok(Some(2)));
        assert_eq!(preset_of("2:8,64", 16, 4), Ok(None));
        assert_eq!(preset_of("4:8@2", 8, 2), Ok(Some(4)));
        assert_eq!(preset_of("-1", 8, 2), Ok(None));
        assert_eq!(preset_of("0", 8, 2), Ok(Some(0)));
        assert!(preset_of("ring", 8, 2).is_err());
        assert!(preset_of("3:small", 8, 2).is_err());
    }

    fn decision(collective: Collective, size: u64, preset: Option<i32>) -> Decision {
        let name = collective.name();
        let variable = format!("I_MPI_ADJUST_{}", name.to_uppercase());
        Decision {
            key: key(collective, size),
            change: preset.map(|value| Change {
                algorithm: LibraryAlgorithm {
                    name: format!("{variable}={value}"),
                    library: "intel_mpi".into(),
                    collective: name.into(),
                    variable: variable.clone(),
                    value,
                    item: format!("preset {value}"),
                },
                slowdown: 1.5,
                p_value: 1e-3,
                sensitivity: None,
            }),
            why: String::new(),
        }
    }

    #[test]
    fn the_file_selects_each_change_from_its_size_up_to_the_next_decision() {
        let tuning = Tuning {
            library: "intel_mpi".into(),
            processes: 4,
            decisions: vec![
                decision(Collective::Allreduce, 8, Some(3)),
                decision(Collective::Allreduce, 64, Some(3)),
                decision(Collective::Allreduce, 1024, None),
                decision(Collective::Allreduce, 65536, Some(8)),
                decision(Collective::Bcast, 8, None),
            ],
        };
        let value = "3:8-1023@4-4;8:65536-2147483647@4-4";
        assert_eq!(
            settings(&tuning),
            format!(
                "# Intel MPI collective presets written by pgcheck tune: put them in\n\
                 # every rank's environment (mpiexec.hydra -genv NAME VALUE, or export)\n\
                 I_MPI_ADJUST_ALLREDUCE=\"{value}\"\n"
            )
        );
        assert_eq!(
            how(&tuning),
            [format!("-genv I_MPI_ADJUST_ALLREDUCE '{value}'")]
        );
        // What it writes selects what was decided, and nothing elsewhere.
        for (size, preset) in [(8, Some(3)), (64, Some(3)), (1024, None), (65536, Some(8))] {
            assert_eq!(preset_of(value, size, 4), Ok(preset), "{size}");
        }
        assert_eq!(preset_of(value, 8, 2), Ok(None));
    }

    #[test]
    fn only_blocking_collectives_have_a_variable() {
        assert_eq!(
            variable(&key(Collective::ReduceScatterBlock, 8)).as_deref(),
            Some("I_MPI_ADJUST_REDUCE_SCATTER_BLOCK")
        );
        let mut nonblocking = key(Collective::Allreduce, 8);
        nonblocking.operation.form = Form::Nonblocking;
        assert_eq!(variable(&nonblocking), None);
    }
}
