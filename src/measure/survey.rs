//! What every rank says of its host, gathered on every rank: the host's
//! name, the node `MPI_Comm_split_type` puts it on, its online CPUs and
//! those it may run on. What `machine` cross-checks and `pin` binds by.

use super::Context;
use crate::host::cpus::{self, CpuSet};
use crate::printable;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// How many ranks share this rank's host (by host name); collective.
pub fn ranks_on_this_host(ctx: &Context) -> usize {
    let ranks = survey(ctx);
    let mine = &ranks[ctx.rank()].host;
    ranks.iter().filter(|r| &r.host == mine).count()
}

/// One rank's host as it sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct RankHost {
    /// `gethostname`.
    pub host: String,
    /// The lowest rank of its `MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)`
    /// node: which node the library says it is on.
    pub node: usize,
    /// `/sys/devices/system/cpu/online`; 0 where unknown.
    pub online_cpus: usize,
    /// The CPUs its threads may run on ([`cpus::allowed`]); empty where
    /// unknown.
    pub allowed: CpuSet,
}

impl RankHost {
    /// This process's host (collective over `comm`: it splits it).
    fn local(comm: &SimpleCommunicator) -> RankHost {
        let node = comm.split_shared(comm.rank());
        let first = node.group().translate_rank(0, &comm.group());
        RankHost {
            host: host_name(),
            node: first.map_or(comm.rank() as usize, |r| r as usize),
            online_cpus: cpus::online().len(),
            allowed: cpus::allowed(),
        }
    }

    /// Whether its CPU affinity allows every online CPU: the scheduler
    /// moves it.
    pub fn unbound(&self) -> bool {
        self.online_cpus > 1 && self.allowed.len() >= self.online_cpus
    }

    /// Host name bytes, two numbers, then the allowed CPUs' mask.
    const WIDTH: usize = HOST_WIDTH + 2 * 8 + cpus::WORDS * 8;

    fn encode(&self) -> Vec<u8> {
        let mut bytes = vec![0u8; Self::WIDTH];
        let name = self.host.as_bytes();
        let n = name.len().min(HOST_WIDTH);
        bytes[..n].copy_from_slice(&name[..n]);
        let numbers = [self.node, self.online_cpus].map(|x| x as u64);
        for (i, x) in numbers.into_iter().chain(self.allowed.words).enumerate() {
            bytes[HOST_WIDTH + 8 * i..][..8].copy_from_slice(&x.to_le_bytes());
        }
        bytes
    }

    fn decode(bytes: &[u8]) -> RankHost {
        let name = &bytes[..HOST_WIDTH];
        let end = name.iter().position(|&b| b == 0).unwrap_or(HOST_WIDTH);
        let number = |i: usize| {
            let word: [u8; 8] = bytes[HOST_WIDTH + 8 * i..][..8]
                .try_into()
                .expect("8 bytes");
            u64::from_le_bytes(word)
        };
        RankHost {
            host: String::from_utf8_lossy(&name[..end]).into_owned(),
            node: number(0) as usize,
            online_cpus: number(1) as usize,
            allowed: CpuSet {
                words: std::array::from_fn(|w| number(2 + w)),
            },
        }
    }
}

/// The longest host name kept (POSIX HOST_NAME_MAX is 255).
const HOST_WIDTH: usize = 256;

/// Every rank's host, in rank order, on every rank; collective.
pub fn survey(ctx: &Context) -> Vec<RankHost> {
    ctx.control
        .all_gather(&RankHost::local(&ctx.comm).encode())
        .chunks(RankHost::WIDTH)
        .map(RankHost::decode)
        .collect()
}

/// This process's host name (`gethostname`, independent of MPI).
fn host_name() -> String {
    let mut name = [0u8; HOST_WIDTH];
    // SAFETY: gethostname writes at most `len` bytes into the buffer.
    let ok = unsafe { libc::gethostname(name.as_mut_ptr().cast(), name.len() - 1) } == 0;
    let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
    let name = match ok {
        true => String::from_utf8_lossy(&name[..end]).into_owned(),
        false => mpi::environment::processor_name().unwrap_or_default(),
    };
    printable::line(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_records_survive_their_encoding() {
        let r = RankHost {
            host: "node-17.cluster".into(),
            node: 12,
            online_cpus: 128,
            allowed: CpuSet::parse("127"),
        };
        assert_eq!(RankHost::decode(&r.encode()), r);
        assert!(!r.unbound());
        let all = RankHost {
            allowed: CpuSet::parse("0-127,1000"),
            ..r
        };
        assert_eq!(RankHost::decode(&all.encode()), all);
        assert!(all.unbound());
    }
}
