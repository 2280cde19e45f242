//! pgcheck's own control plane: the collectives of its bookkeeping (start
//! decisions and stop flags, reductions of times and late flags, agreement
//! on verification and exit statuses, clock synchronisation, the shares of
//! verification's reference) over
//! point-to-point trees ([`algorithms::tree`]) on a communicator of its
//! own. The library's collectives are what pgcheck checks; a fault in one
//! that no check names must change no decision and no timing.
//!
//! Every wait here is a wait for the other ranks, which the watchdog
//! bounds ([`crate::watchdog`]).

use crate::watchdog;
use algorithms::tree;
use mpi::datatype::Equivalence;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The processes of a check, as pgcheck's bookkeeping reaches them.
pub struct Control {
    comm: SimpleCommunicator,
}

impl Control {
    /// A control plane over the processes of `comm` (a duplicate, so that
    /// no candidate's message can match one of pgcheck's); collective.
    pub fn new(comm: &SimpleCommunicator) -> Control {
        Control {
            comm: comm.duplicate(),
        }
    }

    /// The communicator of the control plane, for point-to-point exchanges
    /// of its own (clock synchronisation).
    pub fn comm(&self) -> &SimpleCommunicator {
        &self.comm
    }

    pub fn rank(&self) -> usize {
        self.comm.rank() as usize
    }

    pub fn size(&self) -> usize {
        self.comm.size() as usize
    }

    /// Returns once every rank has called it.
    pub fn barrier(&self) {
        let _wait = watchdog::waiting();
        tree::barrier(&self.comm);
    }

    /// Rank 0's `buf` on every rank.
    pub fn broadcast<T: Equivalence>(&self, buf: &mut [T]) {
        self.broadcast_from(0, buf);
    }

    /// `root`'s `buf` on every rank.
    pub fn broadcast_from<T: Equivalence>(&self, root: usize, buf: &mut [T]) {
        let _wait = watchdog::waiting();
        tree::broadcast(&self.comm, root, buf);
    }

    /// The element-wise maximum over ranks of `values`, on every rank.
    pub fn max(&self, values: &mut [f64]) {
        let _wait = watchdog::waiting();
        let mut scratch = vec![0.0; values.len()];
        tree::all_reduce(&self.comm, values, &mut scratch, max_into);
    }

    /// The element-wise maximum over ranks of `values` on rank 0 (a partial
    /// one elsewhere): what only rank 0 needs, without a broadcast back.
    pub fn max_on_first(&self, values: &mut [f64]) {
        let _wait = watchdog::waiting();
        let mut scratch = vec![0.0; values.len()];
        tree::reduce_to_first(&self.comm, values, &mut scratch, max_into);
    }

    /// Every rank's `mine`, in rank order, on every rank.
    pub fn all_gather<T: Equivalence + Copy + Default>(&self, mine: &[T]) -> Vec<T> {
        let _wait = watchdog::waiting();
        let mut all = vec![T::default(); mine.len() * self.size()];
        tree::all_gather(&self.comm, mine, &mut all);
        all
    }

    /// Every rank's block of `all` on every rank, rank r's being
    /// `all[bounds[r]..bounds[r + 1]]`, each rank's in place beforehand
    /// (a ring, [`tree::all_gather_blocks`]): verification's shared
    /// reference.
    pub fn all_gather_blocks<T: Equivalence>(&self, all: &mut [T], bounds: &[usize]) {
        let _wait = watchdog::waiting();
        tree::all_gather_blocks(&self.comm, all, bounds);
    }

    /// Every rank's blocks to every rank ([`tree::all_to_all_blocks`]):
    /// verification's shared scan and exscan references.
    pub fn all_to_all_blocks<T: Equivalence + Copy>(
        &self,
        outgoing: &[T],
        out_bounds: &[usize],
        incoming: &mut [T],
        in_bounds: &[usize],
    ) {
        let _wait = watchdog::waiting();
        tree::all_to_all_blocks(&self.comm, outgoing, out_bounds, incoming, in_bounds);
    }

    /// Every rank's block on `root` ([`tree::gather_blocks`]): there `buf`
    /// is the whole vector with the root's block in place, elsewhere the
    /// rank's block alone.
    pub fn gather_blocks<T: Equivalence>(&self, root: usize, buf: &mut [T], bounds: &[usize]) {
        let _wait = watchdog::waiting();
        tree::gather_blocks(&self.comm, root, buf, bounds);
    }

    /// Rank 0's text on every rank, up to `limit` bytes.
    pub fn broadcast_text(&self, root: usize, text: &str, limit: usize) -> String {
        let mut bytes = vec![0u8; limit];
        if self.rank() == root {
            let n = text.len().min(limit);
            bytes[..n].copy_from_slice(&text.as_bytes()[..n]);
        }
        self.broadcast_from(root, &mut bytes);
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(limit);
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    }
}

fn max_into(acc: &mut [f64], other: &[f64]) {
    acc.iter_mut().zip(other).for_each(|(a, &b)| *a = a.max(b));
}
