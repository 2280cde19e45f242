//! Ranks pinned to cores before anything is measured. A rank whose CPU
//! affinity allows every online CPU of its host is placed anew by the
//! scheduler in every launch, and verdicts flipped between identical
//! launches of unbound ranks (issue 25: scatter 8 B from holds to violated
//! medium-high). pgcheck binds such a rank to one CPU of its host; ranks
//! the launcher bound are left as they are.
//!
//! Which CPU: the unbound ranks of a host, numbered in rank order among
//! themselves (host names gathered over the control plane, never a
//! collective of the library), take the CPUs of [`cpus::spread`] in turn,
//! skipping the CPUs that ranks bound by the launcher hold: distinct
//! physical cores first, the sockets taking turns, SMT siblings last.
//! A host with more ranks than CPUs is left to the scheduler: two ranks
//! bound to one CPU wait a whole time slice for each other (allreduce 8 B
//! took 4 ms bound round robin, 13–140 µs unbound, 3 ranks on 2 CPUs).

use super::survey::{survey, RankHost};
use super::Context;
use crate::host::cpus::{self, CpuSet};
use crate::settings::PinMode;

/// What pinning found and did, for the placement record
/// ([`super::machine::placement`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinning {
    pub mode: PinMode,
    /// Per rank, whether it was unbound before pgcheck pinned anything.
    pub unbound_before: Vec<bool>,
}

/// Pins this rank when it is unbound and `mode` is `auto`; collective
/// over the control plane. A rank that cannot be bound stays unbound, and
/// the placement record shows it so.
pub fn pin(ctx: &Context, mode: PinMode) -> Pinning {
    let ranks = survey(ctx);
    let pinning = Pinning {
        mode,
        unbound_before: ranks.iter().map(RankHost::unbound).collect(),
    };
    if mode == PinMode::Auto && ranks[ctx.rank()].unbound() {
        let order = cpus::spread(&cpus::topology());
        if let Some(cpu) = choose(&order, &ranks, ctx.rank()) {
            // Refused (a cpuset that changed, a kernel without affinity):
            // the survey after this shows the rank still unbound, and the
            // report warns of it.
            let _ = cpus::bind_process(cpu);
        }
    }
    pinning
}

/// The CPU of rank `me` (unbound) among `order`, this host's CPUs in the
/// order ranks get them: the unbound ranks of its host (by host name)
/// take them in rank order, leaving out those that ranks bound by the
/// launcher may run on while others remain. None when the host's CPUs are
/// unknown, or fewer than its ranks.
pub fn choose(order: &[usize], ranks: &[RankHost], me: usize) -> Option<usize> {
    let host = &ranks[me].host;
    let on_host = || ranks.iter().filter(|r| &r.host == host);
    let held = on_host()
        .filter(|r| !r.unbound())
        .fold(CpuSet::default(), |all, r| all.union(&r.allowed));
    let allowed = &ranks[me].allowed;
    let usable: Vec<usize> = order
        .iter()
        .copied()
        .filter(|&cpu| allowed.contains(cpu))
        .collect();
    let free: Vec<usize> = usable
        .iter()
        .copied()
        .filter(|&cpu| !held.contains(cpu))
        .collect();
    if on_host().count() > usable.len() {
        return None;
    }
    let cpus = match free.is_empty() {
        true => usable,
        false => free,
    };
    let index = ranks[..me]
        .iter()
        .filter(|r| &r.host == host && r.unbound())
        .count();
    cpus.get(index % cpus.len().max(1)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::cpus::Cpu;

    fn rank(host: &str, allowed: &str) -> RankHost {
        RankHost {
            host: host.into(),
            node: 0,
            online_cpus: 8,
            allowed: CpuSet::parse(allowed),
        }
    }

    /// 2 sockets × 2 cores × 2 threads: CPUs 0,1 and 2,3 are the sockets'
    /// cores, 4–7 their siblings.
    fn host() -> Vec<usize> {
        let cpu = |cpu, package, core| Cpu { cpu, package, core };
        cpus::spread(&[
            cpu(0, 0, 0),
            cpu(1, 0, 1),
            cpu(2, 1, 0),
            cpu(3, 1, 1),
            cpu(4, 0, 0),
            cpu(5, 0, 1),
            cpu(6, 1, 0),
            cpu(7, 1, 1),
        ])
    }

    fn choices(ranks: &[RankHost]) -> Vec<Option<usize>> {
        (0..ranks.len())
            .map(|me| {
                ranks[me]
                    .unbound()
                    .then(|| choose(&host(), ranks, me))
                    .flatten()
            })
            .collect()
    }

    #[test]
    fn unbound_ranks_get_distinct_cores_on_alternating_sockets_then_siblings() {
        let four: Vec<RankHost> = (0..4).map(|_| rank("a", "0-7")).collect();
        assert_eq!(choices(&four), [Some(0), Some(2), Some(1), Some(3)]);
        let eight: Vec<RankHost> = (0..8).map(|_| rank("a", "0-7")).collect();
        let all: Vec<_> = choices(&eight).into_iter().flatten().collect();
        assert_eq!(all, [0, 2, 1, 3, 4, 6, 5, 7]);
    }

    #[test]
    fn more_ranks_than_cpus_are_left_to_the_scheduler() {
        let nine: Vec<RankHost> = (0..9).map(|_| rank("a", "0-7")).collect();
        assert_eq!(choices(&nine), [None; 9]);
        // Eight on another host do not crowd this one.
        let mut two_hosts: Vec<RankHost> = (0..8).map(|_| rank("a", "0-7")).collect();
        two_hosts.push(rank("b", "0-7"));
        assert_eq!(choices(&two_hosts)[8], Some(0));
    }

    #[test]
    fn each_host_numbers_its_own_ranks() {
        let ranks = [
            rank("a", "0-7"),
            rank("b", "0-7"),
            rank("a", "0-7"),
            rank("b", "0-7"),
        ];
        assert_eq!(choices(&ranks), [Some(0), Some(0), Some(2), Some(2)]);
    }

    #[test]
    fn bound_ranks_stay_and_their_cpus_are_left_to_them() {
        // Rank 0 bound by the launcher to CPU 0, rank 2 to socket 1 (2,3,6,7).
        let ranks = [
            rank("a", "0"),
            rank("a", "0-7"),
            rank("a", "2-3,6-7"),
            rank("a", "0-7"),
        ];
        assert_eq!(choices(&ranks), [None, Some(1), None, Some(4)]);
        // Bound ranks holding every CPU: the unbound ones share with them.
        let crowded = [rank("a", "0-3"), rank("a", "4-7"), rank("a", "0-7")];
        assert_eq!(choices(&crowded), [None, None, Some(0)]);
    }
}
