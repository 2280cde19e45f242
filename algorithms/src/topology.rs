//! Node and lane communicators of a communicator, real or virtual.
//!
//! A *node* is a set of processes that share memory (MPI_Comm_split_type
//! SHARED) or, with virtual nodes, `ppn` consecutive ranks. A *lane* is the
//! set of processes with the same node-local rank, one per node. Lane and
//! hierarchical algorithms need a regular topology: every node the same size
//! and the ranks of a node consecutive, so that rank = node * ppn + node_rank.

use mpi::topology::{Color, Communicator, SimpleCommunicator};
use mpi::traits::*;

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
                if ppn == 0 || !size.is_multiple_of(ppn) {
                    return Err(format!(
                        "ppn {ppn} does not divide the {size} processes into equal virtual nodes"
                    ));
                }
                comm.split_by_color_with_key(Color::with_value((rank / ppn) as i32), rank as i32)
                    .expect("every process has a colour")
            }
            None => comm.split_shared(rank as i32),
        };
        let node_size = node.size() as usize;
        let node_rank = node.rank() as usize;
        // The smallest rank on the node identifies it.
        let mut first = 0i32;
        node.all_reduce_into(
            &(rank as i32),
            &mut first,
            mpi::collective::SystemOperation::min(),
        );
        let mine = [node_size as i32, first, node_rank as i32];
        let mut all = vec![0i32; 3 * size];
        comm.all_gather_into(&mine[..], &mut all[..]);
        let regular = all.chunks(3).enumerate().all(|(r, v)| {
            let (s, f, nr) = (v[0] as usize, v[1] as usize, v[2] as usize);
            s == node_size && f == (r / s) * s && nr == r % s
        });
        if !regular {
            let sizes: Vec<i32> = all.chunks(3).map(|v| v[0]).collect();
            return Err(format!(
                "irregular node topology (node sizes per rank {sizes:?}); lane and hierarchical \
                 algorithms need equal nodes of consecutive ranks"
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
            node_index: rank / node_size,
            virtual_nodes: ppn.is_some(),
        })
    }

    /// The node that holds `rank`.
    pub fn node_of(&self, rank: usize) -> usize {
        rank / self.ppn
    }

    /// The node-local rank of `rank`.
    pub fn node_rank_of(&self, rank: usize) -> usize {
        rank % self.ppn
    }
}
