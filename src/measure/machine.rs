//! What the run runs on, found out rather than believed: the library, the
//! hosts and their CPUs, the nodes `MPI_Comm_split_type` reports checked
//! against host names, and the timer's granularity and cost measured from
//! consecutive reads of `MPI_Wtime` (not read from `MPI_Wtick`).
//!
//! Cross-rank exchanges go through [`share`] alone, built on
//! point-to-point messages: pgcheck's bookkeeping never rests on the
//! collectives it checks.

use super::pin::Pinning;
use super::survey::{survey, RankHost};
use super::Context;
use crate::candidates;
use crate::host::cpus::CpuSet;
use crate::meta::{Meta, Placement, SharedCpus};
use crate::printable;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// What this run runs on (library, processes, nodes, hosts, timer, the
/// environment that selects algorithms, where the ranks sit after
/// `pinning`); collective over the context.
pub fn machine(ctx: &Context, pinning: &Pinning) -> Meta {
    let ranks = survey(ctx);
    let timer = coarsest(ctx, probe_timer());
    let mut hosts: Vec<String> = ranks.iter().map(|r| r.host.clone()).collect();
    hosts.sort();
    hosts.dedup();
    let (nodes, ppn, virtual_nodes) = match &ctx.topology {
        Ok(t) => (t.nodes, t.ppn, t.virtual_nodes),
        Err(_) => (hosts.len(), ctx.size() / hosts.len().max(1), false),
    };
    let (major, minor) = mpi::environment::version();
    Meta {
        tool: "pgcheck".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        git_revision: option_env!("PGCHECK_GIT_REVISION").map(String::from),
        mpi_library: library_version(),
        mpi_version: format!("{major}.{minor}"),
        processes: ctx.size(),
        nodes,
        ppn,
        virtual_nodes,
        hosts,
        environment: super::environment::recorded_here(),
        placement: placement(&ranks, pinning),
        slurm: crate::meta::Slurm::from_env(),
        timer: "MPI_Wtime".into(),
        timer_resolution_s: timer.granularity_s,
        timer_read_cost_s: timer.read_cost_s,
        timer_wtick_s: mpi::time_resolution(),
        warnings: cross_check(&ranks).into_iter().collect(),
        ..Meta::default()
    }
}

/// The library's algorithms found, as the run's record keeps them: MPI_T
/// starts when the input first asks for them, so the run records them at
/// its end, whatever asked.
pub fn library_algorithms() -> Vec<crate::meta::LibraryAlgorithm> {
    candidates::library::algorithms()
        .iter()
        .map(candidates::library::Algorithm::record)
        .collect()
}

/// `MPI_Get_library_version`'s text without its NUL (Open MPI counts it
/// into the length) or any other control character.
pub fn library_version() -> String {
    printable::text(&mpi::environment::library_version().unwrap_or_default())
}

/// The coarsest granularity, the largest read cost and the fewest steps
/// over all ranks; collective.
fn coarsest(ctx: &Context, mine: TimerSteps) -> TimerSteps {
    let mut worst = [mine.granularity_s, mine.read_cost_s, -(mine.steps as f64)];
    ctx.control.max(&mut worst);
    TimerSteps {
        granularity_s: worst[0],
        read_cost_s: worst[1],
        steps: (-worst[2]) as usize,
    }
}

/// What consecutive reads of a timer show.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimerSteps {
    /// The smallest positive difference of two consecutive reads: the
    /// finest step the timer shows. Timing noise only lengthens such
    /// differences, so the smallest is robust to it; it is the tick where a
    /// tick outlasts a read, else the cost of the fastest read (no two
    /// reads can be closer).
    pub granularity_s: f64,
    /// The median, over the spans between consecutive changes of the
    /// reading, of the span divided by the reads it took: one read's cost,
    /// on a coarse timer as on a fine one, robust to preemption.
    pub read_cost_s: f64,
    /// How many changes the reads showed; 0 when none, and then the
    /// granularity is only at least the probe's length.
    pub steps: usize,
}

impl TimerSteps {
    /// The steps of consecutive `reads`; None when the reading never
    /// increased.
    pub fn of(reads: &[f64]) -> Option<TimerSteps> {
        let mut granularity = f64::INFINITY;
        let mut costs = Vec::new();
        let mut last_change: Option<(usize, f64)> = None;
        for (i, pair) in reads.windows(2).enumerate() {
            let delta = pair[1] - pair[0];
            if delta <= 0.0 {
                continue;
            }
            granularity = granularity.min(delta);
            if let Some((at, t)) = last_change {
                costs.push((pair[1] - t) / (i + 1 - at) as f64);
            }
            last_change = Some((i + 1, pair[1]));
        }
        if costs.is_empty() && granularity.is_infinite() {
            return None;
        }
        let steps = costs.len() + 1;
        let read_cost_s = match costs.is_empty() {
            true => f64::NAN,
            false => crate::stats::describe::median(&costs),
        };
        Some(TimerSteps {
            granularity_s: granularity,
            read_cost_s,
            steps,
        })
    }
}

/// Reads `MPI_Wtime` back to back, up to this many times…
const PROBE_READS: usize = 1 << 19;
/// …or for this long (enough for 20 steps of a 1 ms clock).
const PROBE_LIMIT: Duration = Duration::from_millis(50);

/// This rank's timer, from consecutive reads of `MPI_Wtime`.
pub fn probe_timer() -> TimerSteps {
    let mut reads = Vec::with_capacity(PROBE_READS);
    let start = Instant::now();
    while reads.len() < PROBE_READS && start.elapsed() < PROBE_LIMIT {
        for _ in 0..1024 {
            reads.push(mpi::time());
        }
    }
    let span = start.elapsed().as_secs_f64();
    match TimerSteps::of(&reads) {
        Some(steps) if steps.read_cost_s.is_finite() => steps,
        // One change: its size, and no span between changes to cost a read.
        Some(steps) => TimerSteps {
            read_cost_s: span / reads.len() as f64,
            ..steps
        },
        // No change: the timer is coarser than the probe is long.
        None => TimerSteps {
            granularity_s: span,
            read_cost_s: span / reads.len() as f64,
            steps: 0,
        },
    }
}

/// The most ranks whose CPUs [`Placement::cpu_of_rank`] lists one by one.
const CPUS_LISTED_UP_TO: usize = 256;

/// Where the ranks run after `pinning`: how many pgcheck bound and how
/// many are not bound to CPUs, each rank's CPU, and the host with the most
/// ranks per online CPU, counted by host name (which the nodes of
/// `MPI_Comm_split_type` may not be).
pub fn placement(ranks: &[RankHost], pinning: &Pinning) -> Placement {
    let mut by_host: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for r in ranks {
        let (count, cpus) = by_host.entry(&r.host).or_default();
        *count += 1;
        *cpus = (*cpus).max(r.online_cpus);
    }
    let crowding = |&(count, cpus): &(usize, usize)| count as f64 / cpus.max(1) as f64;
    let (most, cpus) = by_host
        .values()
        .copied()
        .max_by(|a, b| crowding(a).total_cmp(&crowding(b)))
        .unwrap_or_default();
    let was_unbound = |rank: usize| pinning.unbound_before.get(rank).copied().unwrap_or(false);
    Placement {
        pin: pinning.mode.name().into(),
        unbound_ranks: ranks.iter().filter(|r| r.unbound()).count(),
        pinned_ranks: (ranks.iter().enumerate())
            .filter(|&(rank, r)| was_unbound(rank) && !r.unbound())
            .count(),
        cpu_of_rank: match ranks.len() <= CPUS_LISTED_UP_TO {
            true => ranks.iter().map(|r| r.allowed.only()).collect(),
            false => Vec::new(),
        },
        most_ranks_on_a_node: most,
        cpus_on_that_node: cpus,
        shared_cpus: shared_cpus(ranks),
    }
}

/// The most crowded CPUs of any host (by host name): a host with more
/// ranks than online CPUs, or ranks whose CPU affinities all fall within
/// a set of fewer CPUs than they are (two ranks bound to one CPU, three
/// unbound ranks on two CPUs); None when every rank can have a CPU of its
/// own. Of several, the one with the most ranks per CPU.
pub fn shared_cpus(ranks: &[RankHost]) -> Option<SharedCpus> {
    let mut hosts: BTreeMap<&str, Vec<&RankHost>> = BTreeMap::new();
    for r in ranks {
        hosts.entry(&r.host).or_default().push(r);
    }
    let mut found: Vec<SharedCpus> = Vec::new();
    for (host, on_host) in &hosts {
        let shared = |ranks: usize, cpus: usize| SharedCpus {
            host: host.to_string(),
            ranks,
            cpus,
        };
        let online = on_host.iter().map(|r| r.online_cpus).max().unwrap_or(0);
        if online > 0 && on_host.len() > online {
            found.push(shared(on_host.len(), online));
        }
        // A set of CPUs that some rank may run on, and the ranks confined
        // to it (affinity unknown: left out).
        let mut sets: Vec<&CpuSet> = on_host
            .iter()
            .map(|r| &r.allowed)
            .filter(|a| !a.is_empty())
            .collect();
        sets.sort_by_key(|a| a.words);
        sets.dedup();
        for set in sets {
            let confined = (on_host.iter())
                .filter(|r| !r.allowed.is_empty() && r.allowed.is_subset(set))
                .count();
            if confined > set.len() {
                found.push(shared(confined, set.len()));
            }
        }
    }
    found.into_iter().max_by(|a, b| {
        let crowding = |s: &SharedCpus| s.ranks as f64 / s.cpus.max(1) as f64;
        crowding(a)
            .total_cmp(&crowding(b))
            .then(a.ranks.cmp(&b.ranks))
            .then(b.host.cmp(&a.host))
    })
}

/// A warning naming both views when the nodes of
/// `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)` are not the hosts the host
/// names give; None when they group the ranks alike.
pub fn cross_check(ranks: &[RankHost]) -> Option<String> {
    let hosts_of_node = groups(ranks, |r| r.node.to_string(), |r| r.host.clone());
    let nodes_of_host = groups(ranks, |r| r.host.clone(), |r| r.node.to_string());
    if hosts_of_node.values().all(|h| h.len() == 1) && nodes_of_host.values().all(|n| n.len() == 1)
    {
        return None;
    }
    let sizes = |key: fn(&RankHost) -> String| {
        let mut count: BTreeMap<String, usize> = BTreeMap::new();
        for r in ranks {
            *count.entry(key(r)).or_default() += 1;
        }
        count.into_values().collect::<Vec<usize>>()
    };
    Some(format!(
        "MPI_Comm_split_type says {}; host names say {}: the library's shared-memory nodes are not the hosts, so lane and hierarchical candidates run on nodes that are not the machines, and ranks per CPU are counted by host name",
        describe(&sizes(|r| r.node.to_string()), "node", "nodes"),
        describe(&sizes(|r| r.host.clone()), "host", "hosts"),
    ))
}

/// For each `key`, the distinct `value`s of its ranks.
fn groups(
    ranks: &[RankHost],
    key: impl Fn(&RankHost) -> String,
    value: impl Fn(&RankHost) -> String,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in ranks {
        let values = out.entry(key(r)).or_default();
        let v = value(r);
        if !values.contains(&v) {
            values.push(v);
        }
    }
    out
}

/// Groups of ranks of the given sizes as people read them, largest first:
/// `4 nodes × 1 rank`, `1 host × 3 ranks + 1 host × 1 rank`.
fn describe(sizes: &[usize], one: &str, many: &str) -> String {
    let mut count: BTreeMap<usize, usize> = BTreeMap::new();
    for &s in sizes {
        *count.entry(s).or_default() += 1;
    }
    count
        .iter()
        .rev()
        .map(|(&ranks, &groups)| {
            let noun = if groups == 1 { one } else { many };
            let unit = if ranks == 1 { "rank" } else { "ranks" };
            format!("{groups} {noun} × {ranks} {unit}")
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads of a clock of tick `tick_s` by reads `cost_s` apart, with a
    /// preemption of `pause_s` after every 100 000th read.
    fn reads(n: usize, cost_s: f64, tick_s: f64, pause_s: f64) -> Vec<f64> {
        let mut t = 12.345;
        (0..n)
            .map(|i| {
                t += cost_s + if i % 100_000 == 99_999 { pause_s } else { 0.0 };
                (t / tick_s).floor() * tick_s
            })
            .collect()
    }

    #[test]
    fn a_rounded_clock_shows_its_tick_and_the_cost_of_a_read() {
        // 1 ms ticks, 30 ns reads, 7 ms pauses: the rounding of the fault test.
        let steps = TimerSteps::of(&reads(1 << 20, 30e-9, 1e-3, 7e-3)).unwrap();
        assert!((steps.granularity_s / 1e-3 - 1.0).abs() < 1e-6, "{steps:?}");
        assert!((steps.read_cost_s / 30e-9 - 1.0).abs() < 0.01, "{steps:?}");
        assert!(steps.steps > 30, "{steps:?}");
    }

    #[test]
    fn a_fine_clock_shows_the_fastest_read() {
        // 1 ns ticks, 25 ns reads: no two reads are closer than one read.
        let steps = TimerSteps::of(&reads(100_000, 25e-9, 1e-9, 5e-6)).unwrap();
        assert!(
            (steps.granularity_s / 25e-9 - 1.0).abs() < 0.05,
            "{steps:?}"
        );
        assert!((steps.read_cost_s / 25e-9 - 1.0).abs() < 0.05, "{steps:?}");
    }

    #[test]
    fn a_clock_that_never_moves_has_no_steps() {
        assert_eq!(TimerSteps::of(&[1.0; 100]), None);
        assert_eq!(TimerSteps::of(&[]), None);
        // One step: a granularity, but no span to cost a read by.
        let one = TimerSteps::of(&[1.0, 1.0, 2.0, 2.0]).unwrap();
        assert_eq!(one.granularity_s, 1.0);
        assert!(one.read_cost_s.is_nan());
    }

    fn rank(host: &str, node: usize) -> RankHost {
        RankHost {
            host: host.into(),
            node,
            online_cpus: 2,
            allowed: CpuSet::parse(&(node % 2).to_string()),
        }
    }

    /// What pinning found before acting: no rank unbound.
    fn unpinned(ranks: usize) -> Pinning {
        Pinning {
            mode: crate::settings::PinMode::Auto,
            unbound_before: vec![false; ranks],
        }
    }

    #[test]
    fn nodes_of_their_own_on_one_host_are_named_in_both_views() {
        let lying: Vec<RankHost> = (0..4).map(|r| rank("vm", r)).collect();
        let warning = cross_check(&lying).expect("the views disagree");
        assert!(
            warning.starts_with(
                "MPI_Comm_split_type says 4 nodes × 1 rank; host names say 1 host × 4 ranks"
            ),
            "{warning}"
        );
        // Counted by host name: four ranks on two CPUs.
        let p = placement(&lying, &unpinned(4));
        assert_eq!((p.most_ranks_on_a_node, p.cpus_on_that_node), (4, 2));
        assert!(p.oversubscribed());
    }

    #[test]
    fn a_node_across_hosts_disagrees_and_matching_views_agree() {
        let joined = [rank("a", 0), rank("a", 0), rank("b", 0)];
        let warning = cross_check(&joined).expect("one node, two hosts");
        assert!(
            warning.starts_with(
                "MPI_Comm_split_type says 1 node × 3 ranks; host names say 1 host × 2 ranks + 1 host × 1 rank"
            ),
            "{warning}"
        );
        let agree = [rank("a", 0), rank("a", 0), rank("b", 2), rank("b", 2)];
        assert_eq!(cross_check(&agree), None);
        let p = placement(&agree, &unpinned(4));
        assert_eq!((p.most_ranks_on_a_node, p.cpus_on_that_node), (2, 2));
        assert!(!p.oversubscribed());
    }

    fn bound_to(host: &str, cpus: &str) -> RankHost {
        RankHost {
            host: host.into(),
            node: 0,
            online_cpus: 2,
            allowed: CpuSet::parse(cpus),
        }
    }

    fn shared(host: &str, ranks: usize, cpus: usize) -> Option<SharedCpus> {
        Some(SharedCpus {
            host: host.into(),
            ranks,
            cpus,
        })
    }

    #[test]
    fn ranks_share_cpus_when_they_outnumber_them_or_are_bound_together() {
        // One rank per CPU, bound or not.
        assert_eq!(
            shared_cpus(&[bound_to("vm", "0"), bound_to("vm", "1")]),
            None
        );
        assert_eq!(
            shared_cpus(&[bound_to("vm", "0-1"), bound_to("vm", "0-1")]),
            None
        );
        // Three unbound ranks on two CPUs, and the launcher's round robin
        // that puts two of three on CPU 0.
        let unbound = [
            bound_to("vm", "0-1"),
            bound_to("vm", "0-1"),
            bound_to("vm", "0-1"),
        ];
        assert_eq!(shared_cpus(&unbound), shared("vm", 3, 2));
        let overloaded = [
            bound_to("vm", "0"),
            bound_to("vm", "1"),
            bound_to("vm", "0"),
        ];
        assert_eq!(shared_cpus(&overloaded), shared("vm", 2, 1));
        // Two ranks bound to one CPU while a third has a CPU of its own.
        let paired = [
            bound_to("vm", "1"),
            bound_to("vm", "1"),
            bound_to("vm", "0"),
        ];
        assert_eq!(shared_cpus(&paired), shared("vm", 2, 1));
        // Ranks of other hosts do not crowd this one; the most crowded host is named.
        let two_hosts = [
            bound_to("a", "0"),
            bound_to("b", "0"),
            bound_to("b", "0-1"),
            bound_to("b", "0-1"),
        ];
        assert_eq!(shared_cpus(&two_hosts), shared("b", 3, 2));
        // Affinity unknown: counted against the online CPUs alone.
        let unknown = [bound_to("vm", ""), bound_to("vm", "")];
        assert_eq!(shared_cpus(&unknown), None);
        let more = [bound_to("vm", ""), bound_to("vm", ""), bound_to("vm", "")];
        assert_eq!(shared_cpus(&more), shared("vm", 3, 2));
    }

    #[test]
    fn the_placement_counts_the_ranks_pgcheck_bound_and_those_still_unbound() {
        // Ranks 0 and 1 were unbound; 0 is now on CPU 1, 1 could not be
        // bound; rank 2 came bound to CPU 0.
        let ranks = [
            RankHost {
                allowed: CpuSet::parse("1"),
                ..rank("a", 0)
            },
            RankHost {
                allowed: CpuSet::parse("0-1"),
                ..rank("a", 0)
            },
            RankHost {
                allowed: CpuSet::parse("0"),
                ..rank("a", 0)
            },
        ];
        let pinning = Pinning {
            mode: crate::settings::PinMode::Auto,
            unbound_before: vec![true, true, false],
        };
        let p = placement(&ranks, &pinning);
        assert_eq!((p.pinned_ranks, p.unbound_ranks), (1, 1));
        assert_eq!(p.cpu_of_rank, [Some(1), None, Some(0)]);
        assert_eq!(p.pin, "auto");
        assert_eq!(
            p.summary(3).unwrap(),
            "--pin auto: 1 bound by pgcheck, 1 bound by the launcher, 1 unbound, CPU of each rank: 1 - 0"
        );
    }
}
