//! Hierarchical broadcast: bcast among the processes with the root's node
//! rank from the root's node, then bcast on every node from that process.

use super::{check_len, nothing_to_move};
use crate::topology::{RootPlace, Topology};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// Hierarchical `MPI_Bcast` of `count` elements from `root`.
#[derive(Debug)]
pub struct Bcast {
    count: usize,
    root: RootPlace,
}

impl Bcast {
    pub fn new(topology: &Topology, count: usize, root: usize) -> Bcast {
        Bcast {
            count,
            root: topology.root_place(root),
        }
    }

    /// Broadcasts the root's `buffer` into every process's `buffer`.
    pub fn run<T: Equivalence>(&mut self, topology: &Topology, buffer: &mut [T]) {
        check_len("bcast", buffer.len(), self.count);
        if nothing_to_move(self.count) {
            return;
        }
        if self.root.on_root_lane {
            self.root.lane_root(topology).broadcast_into(buffer);
        }
        self.root.node_root(topology).broadcast_into(buffer);
    }
}
