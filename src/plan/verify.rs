//! The plan of `pgcheck verify`: every collective and competitor at sizes
//! and roots chosen to break wrong algorithms, or the cases of an input file,
//! narrowed to what the user selected.

use super::{case, parse_root, verify_counts, with_elements, Plan, World};
use crate::candidates::{self, Family};
use crate::collective::Collective;
use crate::config::{self, Config};
use crate::element::{Datatype, Op};
use crate::operation::{Form, Operation};
use crate::settings::{CacheState, Settings, SyncRequest, UniversalMode};
use std::time::Duration;

/// What `verify` runs: only these collectives, competitors and families
/// (empty: all), these sizes and roots instead of the built-in ones.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Selection {
    pub collectives: Vec<String>,
    pub competitors: Vec<String>,
    pub families: Vec<Family>,
    /// Sizes in bytes instead of the built-in set.
    pub sizes: Vec<u64>,
    /// Ranks or `first`, `middle`, `last`.
    pub roots: Vec<String>,
    pub datatype: Option<Datatype>,
    pub op: Option<Op>,
}

/// The cases `pgcheck verify` runs: the input file's, or the built-in set.
pub fn plan(config: Option<&Config>, selection: &Selection, world: &World) -> Result<Plan, String> {
    // Verification runs every candidate once: no budget, no rounds.
    let settings = Settings {
        budget: Duration::ZERO,
        rounds: 1,
        rounds_by_budget: false,
        seed: 0,
        warmup: 0,
        sync: SyncRequest::Barrier,
        cache: CacheState::Warm,
        resync_s: 0.0,
        drift_s: 0.0,
        universal: UniversalMode::Apart,
        check_share: 0.0,
    };
    let mut plan = match config {
        Some(config) => {
            let config =
                with_elements(config, selection.datatype, selection.op).map_err(|e| e.0)?;
            super::from_config(&config, settings, world).map_err(|e| e.0)?
        }
        None => Plan {
            settings,
            cases: built_in(selection, world)?,
            resident_bytes: world.resident_bytes,
            processes: world.processes,
        },
    };
    for name in &selection.collectives {
        config::parse_operation(name)?;
    }
    for name in &selection.competitors {
        if candidates::find(name).is_none() {
            return Err(config::unknown(
                "competitor",
                name,
                candidates::competitors().map(|c| c.name),
            ));
        }
    }
    let wanted = |name: &str| {
        let competitor = candidates::find(name);
        (selection.competitors.is_empty() || selection.competitors.iter().any(|c| c == name))
            && (selection.families.is_empty()
                || competitor.is_some_and(|c| selection.families.contains(&c.family)))
    };
    for case in &mut plan.cases {
        case.candidates
            .retain(|c| candidates::native::is_library_call(c) || wanted(c));
        case.skipped.retain(|(c, _)| wanted(c));
    }
    plan.cases
        .retain(|c| c.candidates.len() + c.skipped.len() > 1);
    Ok(plan)
}

/// Every selected collective with all its competitors, at the sizes of
/// [`verify_counts`] and the selected roots.
fn built_in(selection: &Selection, world: &World) -> Result<Vec<super::Case>, String> {
    let datatype = selection.datatype.unwrap_or(Datatype::Byte);
    let op = selection.op.unwrap_or(Op::Bor);
    if !op.applies_to(datatype) {
        return Err(format!(
            "op `{}` is not defined for datatype `{}`",
            op.name(),
            datatype.name()
        ));
    }
    let p = world.processes;
    let roots: Vec<String> = if selection.roots.is_empty() {
        ["first", "middle", "last"].map(String::from).to_vec()
    } else {
        selection.roots.clone()
    };
    let mut roots: Vec<usize> = roots
        .iter()
        .map(|r| parse_root(r, p))
        .collect::<Result<_, _>>()?;
    roots.sort_unstable();
    roots.dedup();
    let counts: Vec<usize> = if selection.sizes.is_empty() {
        verify_counts(p, datatype)
    } else {
        selection
            .sizes
            .iter()
            .map(|&s| config::count_of(Collective::Alltoall, s, datatype))
            .collect::<Result<_, _>>()?
    };
    let mut cases = Vec::new();
    for operation in Operation::all() {
        let selected = selection.collectives.iter().any(|c| *c == operation.name());
        if !selection.collectives.is_empty() && !selected {
            continue;
        }
        // Every operation by default, but those the library lacks.
        if let (Form::Persistent, Err(why)) = (operation.form, &world.persistent) {
            match selected {
                true => return Err(format!("{operation} cannot be verified: {why}")),
                false => continue,
            }
        }
        // A transfer needs a second process to send to.
        if operation.collective.is_transfer() && p < 2 {
            match selected {
                true => return Err(format!("{operation} needs two processes or more")),
                false => continue,
            }
        }
        let names: Vec<&str> = candidates::competitors_of(operation)
            .map(|c| c.name)
            .collect();
        let roots = if operation.is_rooted() {
            roots.clone()
        } else {
            vec![0]
        };
        for &root in &roots {
            for count in operation.collective.sizes_of(&counts) {
                let size_bytes = (count * datatype.size()) as u64;
                cases.push(case(
                    operation, size_bytes, datatype, op, root, &names, None, world,
                ));
            }
        }
    }
    Ok(cases)
}
