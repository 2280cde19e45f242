//! Node and lane communicators of a communicator, real or virtual.
//!
//! A *node* is a set of processes that share memory (MPI_Comm_split_type
//! SHARED) or, with virtual nodes, `ppn` consecutive ranks. A *lane* is the
//! set of processes with the same node-local rank, one per node. Lane and
//! hierarchical algorithms need a regular topology: every node the same size
//! and the ranks of a node consecutive, so that rank = node * ppn + node_rank.

use mpi::topology::{Color, Communicator, Process, SimpleCommunicator};

/// The node/lane decomposition of a communicator.
pub struct Topology {
    /// A duplicate of the communicator the topology was built from.
    pub comm: SimpleCommunicator,
    /// The processes on this process's node.
    pub node: SimpleCommunicator,
    /// The processes with this process's node rank, one per node.
    pub lane: SimpleCommunicator,
    /// Processes per node.
    pub ppn: usize,
    /// Number of nodes.
    pub nodes: usize,
    /// This process's rank on its node.
    pub node_rank: usize,
    /// This process's node, which is also its rank in `lane`.
    pub node_index: usize,
    /// Whether the nodes are virtual (`ppn` consecutive ranks) or real.
    pub virtual_nodes: bool,
}

impl Topology {
    /// Builds the topology; collective over `comm`. With `ppn`, nodes are
    /// virtual. Returns why lane and hierarchical algorithms cannot run when
    /// the topology is irregular or has a single node; every process returns
    /// the same answer.
    pub fn new(comm: &SimpleCommunicator, ppn: Option<usize>) -> Result<Topology, String> {
        let size = comm.size() as usize;
        let rank = comm.rank() as usize;
        let node = match ppn {
            Some(ppn) => {
                check_virtual_nodes(size, ppn)?;
                let color = Color::with_value(node_of(rank, ppn) as i32);
                comm.split_by_color_with_key(color, rank as i32)
                    .expect("every process has a colour")
            }
            None => comm.split_shared(rank as i32),
        };
        let node_size = node.size() as usize;
        let node_rank = node.rank() as usize;
        // The smallest rank on the node identifies it. Point-to-point
        // trees, not the library's collectives, which may be under test.
        let mut on_node = vec![0i32; node_size];
        crate::tree::all_gather(&node, &[rank as i32], &mut on_node);
        let first = on_node.iter().copied().min().unwrap_or(rank as i32);
        let mine = [node_size as i32, first, node_rank as i32];
        let mut all = vec![0i32; 3 * size];
        crate::tree::all_gather(comm, &mine[..], &mut all[..]);
        if !is_regular(&all, node_size) {
            return Err(format!(
                "irregular nodes ({}); lane and hierarchical algorithms need equal nodes of \
                 consecutive ranks",
                describe_nodes(&all, &host_names(comm))
            ));
        }
        let nodes = size / node_size;
        if nodes < 2 {
            return Err(format!(
                "all {size} processes are on one node; use --ppn to form virtual nodes"
            ));
        }
        let lane = comm
            .split_by_color_with_key(Color::with_value(node_rank as i32), rank as i32)
            .expect("every process has a colour");
        Ok(Topology {
            comm: comm.duplicate(),
            node,
            lane,
            ppn: node_size,
            nodes,
            node_rank,
            node_index: node_of(rank, node_size),
            virtual_nodes: ppn.is_some(),
        })
    }

    /// Where `root` sits, seen from this process.
    pub fn root_place(&self, root: usize) -> RootPlace {
        RootPlace::of(root, self.ppn, self.node_index, self.node_rank)
    }
}

/// Where a rooted collective's root sits, seen from one process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootPlace {
    /// The root's node: the root of a step on a lane.
    pub node: usize,
    /// The root's node rank: the root of a step on a node.
    pub node_rank: usize,
    /// Whether this process is on the root's node.
    pub on_root_node: bool,
    /// Whether this process is on the root's lane (has its node rank).
    pub on_root_lane: bool,
    /// Whether this process is the root.
    pub is_root: bool,
}

impl RootPlace {
    /// The place of `root` for the process at `node_index` and `node_rank`
    /// of a regular topology of `ppn` processes per node.
    pub fn of(root: usize, ppn: usize, node_index: usize, node_rank: usize) -> RootPlace {
        let (node, root_node_rank) = (node_of(root, ppn), node_rank_of(root, ppn));
        let on_root_node = node_index == node;
        let on_root_lane = node_rank == root_node_rank;
        RootPlace {
            node,
            node_rank: root_node_rank,
            on_root_node,
            on_root_lane,
            is_root: on_root_node && on_root_lane,
        }
    }

    /// The root's node rank on this process's node.
    pub fn node_root<'a>(&self, topology: &'a Topology) -> Process<'a> {
        topology.node.process_at_rank(mpi_rank(self.node_rank))
    }

    /// The root's node on this process's lane.
    pub fn lane_root<'a>(&self, topology: &'a Topology) -> Process<'a> {
        topology.lane.process_at_rank(mpi_rank(self.node))
    }
}

/// A rank as MPI's `int`.
fn mpi_rank(rank: usize) -> mpi::Rank {
    mpi::Rank::try_from(rank).expect("rank fits an MPI int")
}

/// The node of `rank` in a regular topology of `ppn` processes per node.
pub fn node_of(rank: usize, ppn: usize) -> usize {
    rank / ppn
}

/// The node-local rank of `rank` in a regular topology.
pub fn node_rank_of(rank: usize, ppn: usize) -> usize {
    rank % ppn
}

/// Why `ppn` cannot form virtual nodes of `size` processes, if it cannot.
fn check_virtual_nodes(size: usize, ppn: usize) -> Result<(), String> {
    if ppn == 0 || !size.is_multiple_of(ppn) {
        return Err(format!(
            "ppn {ppn} does not divide the {size} processes into equal virtual nodes"
        ));
    }
    Ok(())
}

/// Every rank's host name (`MPI_Get_processor_name`), in rank order;
/// collective over `comm` (point-to-point).
pub fn host_names(comm: &SimpleCommunicator) -> Vec<String> {
    // MPI_MAX_PROCESSOR_NAME of Open MPI and MPICH.
    const WIDTH: usize = 256;
    let name = mpi::environment::processor_name().unwrap_or_default();
    let mut mine = [0u8; WIDTH];
    let n = name.len().min(WIDTH);
    mine[..n].copy_from_slice(&name.as_bytes()[..n]);
    let mut all = vec![0u8; WIDTH * comm.size() as usize];
    crate::tree::all_gather(comm, &mine[..], &mut all[..]);
    all.chunks(WIDTH)
        .map(|c| {
            let end = c.iter().position(|&b| b == 0).unwrap_or(WIDTH);
            String::from_utf8_lossy(&c[..end]).into_owned()
        })
        .collect()
}

/// The nodes of the reports (`[node size, first rank of its node, node
/// rank]` per rank) as people read them: `node1: ranks 0, 1, 2; node2: rank 3`.
fn describe_nodes(reports: &[i32], hosts: &[String]) -> String {
    let mut firsts: Vec<usize> = reports.chunks(3).map(|r| r[1] as usize).collect();
    firsts.sort_unstable();
    firsts.dedup();
    firsts
        .iter()
        .map(|&first| {
            let ranks: Vec<String> = reports
                .chunks(3)
                .enumerate()
                .filter(|(_, r)| r[1] as usize == first)
                .map(|(rank, _)| rank.to_string())
                .collect();
            let word = if ranks.len() == 1 { "rank" } else { "ranks" };
            let host = hosts.get(first).map_or("?", String::as_str);
            format!("{host}: {word} {}", ranks.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Whether every rank's report `[node size, first rank of its node, node
/// rank]` (rank r's at `3r`) describes nodes of `node_size` consecutive
/// ranks, rank = node · node_size + node rank.
fn is_regular(reports: &[i32], node_size: usize) -> bool {
    reports.chunks(3).enumerate().all(|(rank, report)| {
        let [size, first, node_rank] = [report[0], report[1], report[2]].map(|x| x as usize);
        size == node_size
            && first == node_of(rank, size) * size
            && node_rank == node_rank_of(rank, size)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn irregular_nodes_are_named_with_their_ranks() {
        // node1 holds ranks 0–2 (node rank 0–2), node2 rank 3.
        let reports = [3, 0, 0, 3, 0, 1, 3, 0, 2, 1, 3, 0];
        let hosts = ["node1", "node1", "node1", "node2"].map(String::from);
        assert_eq!(
            describe_nodes(&reports, &hosts),
            "node1: ranks 0, 1, 2; node2: rank 3"
        );
        assert!(!is_regular(&reports, 3));
    }

    #[test]
    fn ranks_are_node_major() {
        for ppn in 1..=9 {
            for nodes in 1..=7 {
                let mut rank = 0;
                for node in 0..nodes {
                    for node_rank in 0..ppn {
                        assert_eq!(node_of(rank, ppn), node, "rank {rank}, ppn {ppn}");
                        assert_eq!(node_rank_of(rank, ppn), node_rank);
                        rank += 1;
                    }
                }
            }
        }
    }

    #[test]
    fn the_root_s_place_follows_from_ranks() {
        for ppn in 1..=5 {
            for nodes in 1..=5 {
                let p = nodes * ppn;
                for root in 0..p {
                    for rank in 0..p {
                        let place = RootPlace::of(root, ppn, rank / ppn, rank % ppn);
                        // The root's node holds ranks node·ppn..(node+1)·ppn.
                        let node_ranks = place.node * ppn..(place.node + 1) * ppn;
                        assert!(node_ranks.contains(&root));
                        assert_eq!(place.node * ppn + place.node_rank, root);
                        assert_eq!(place.is_root, rank == root);
                        assert_eq!(place.on_root_node, node_ranks.contains(&rank));
                        assert_eq!(place.on_root_lane, (rank % ppn) == (root % ppn));
                    }
                }
            }
        }
    }

    #[test]
    fn virtual_nodes_must_divide_the_processes() {
        for size in 1..=24usize {
            for ppn in 0..=size + 1 {
                let fits = ppn > 0 && (1..=size).any(|nodes| nodes * ppn == size);
                assert_eq!(
                    check_virtual_nodes(size, ppn).is_ok(),
                    fits,
                    "{size}, {ppn}"
                );
            }
        }
        assert!(check_virtual_nodes(6, 4).unwrap_err().contains("ppn 4"));
    }

    /// The reports of the ranks on nodes of the given sizes, in rank
    /// order, as `Topology::new` gathers them.
    fn reports(node_sizes: &[usize]) -> Vec<i32> {
        let mut all = Vec::new();
        let mut first = 0;
        for &size in node_sizes {
            for node_rank in 0..size {
                all.extend([size, first, node_rank].map(|x| x as i32));
            }
            first += size;
        }
        all
    }

    #[test]
    fn equal_nodes_of_consecutive_ranks_are_regular() {
        for ppn in 1..=6 {
            for nodes in 1..=6 {
                assert!(
                    is_regular(&reports(&vec![ppn; nodes]), ppn),
                    "{nodes} × {ppn}"
                );
            }
        }
        // Unequal nodes.
        assert!(!is_regular(&reports(&[2, 3]), 2));
        assert!(!is_regular(&reports(&[3, 2]), 3));
        assert!(!is_regular(&reports(&[4, 4, 2]), 4));
        // Equal nodes whose ranks interleave (round-robin placement).
        let round_robin = [[2, 0, 0], [2, 1, 0], [2, 0, 1], [2, 1, 1]];
        assert!(!is_regular(round_robin.as_flattened(), 2));
        // Node ranks not in rank order.
        let swapped = [[2, 0, 1], [2, 0, 0], [2, 2, 0], [2, 2, 1]];
        assert!(!is_regular(swapped.as_flattened(), 2));
        assert!(is_regular([[2, 0, 0], [2, 0, 1]].as_flattened(), 2));
    }
}
