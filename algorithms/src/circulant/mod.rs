//! Circulant-graph algorithms (Träff, Hunold, Vardas, Funk, "Uniform
//! Algorithms for Reduce-scatter and (most) other Collectives for MPI",
//! CLUSTER 2023; Träff, "Round-optimal n-block broadcast schedules in
//! logarithmic time", 2023).
//!
//! Every algorithm runs in rounds over the skips `s_0 = 1 < … < s_q = p`
//! (`s_k = ⌈s_{k+1}/2⌉`, [`schedule::skips`]): in round `k` a process talks
//! only to the processes `s_k` ahead and behind, so every process count,
//! not only powers of two, takes `q = ⌈log2 p⌉` rounds. The schedules are
//! pure functions in [`schedule`], proven there by simulation.
//!
//! The reductions combine blocks in an order that depends on the rank, so
//! they need a commutative operator.

mod allgather;
mod allreduce;
mod bcast;
mod bcast_nblock;
mod gather;
mod reduce;
mod reduce_scatter;
mod reduce_scatter_block;
mod scatter;
pub mod schedule;

pub use allgather::Allgather;
pub use allreduce::Allreduce;
pub use bcast::Bcast;
pub use bcast_nblock::BcastNBlock;
pub use gather::Gather;
pub use reduce::Reduce;
pub use reduce_scatter::ReduceScatter;
pub use reduce_scatter_block::ReduceScatterBlock;
pub use scatter::Scatter;

use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into_with_tags;
use mpi::topology::Communicator;
use mpi::traits::*;
use mpi::Tag;
use std::ops::Range;

/// Message tags, one per algorithm phase, below the guaranteed `MPI_TAG_UB`
/// of 32767, so that no two phases' messages can match each other.
mod tags {
    use mpi::Tag;
    pub const REDUCE_SCATTER: Tag = 0x7C10;
    pub const ALLGATHER: Tag = 0x7C11;
    pub const SCATTER: Tag = 0x7C12;
    pub const GATHER: Tag = 0x7C13;
    pub const NBLOCK: Tag = 0x7C14;
}

/// A process's place on the circulant graph.
#[derive(Clone, Debug)]
struct Ring {
    size: usize,
    rank: usize,
    skips: Vec<usize>,
}

impl Ring {
    fn new<C: Communicator>(comm: &C) -> Ring {
        let size = comm.size() as usize;
        Ring {
            size,
            rank: comm.rank() as usize,
            skips: schedule::skips(size),
        }
    }

    /// The rank `distance` ahead of this one.
    fn ahead(&self, distance: usize) -> i32 {
        ((self.rank + distance) % self.size) as i32
    }

    /// The rank `distance` behind this one.
    fn behind(&self, distance: usize) -> i32 {
        ((self.rank + self.size - distance % self.size) % self.size) as i32
    }

    /// This process's rank relative to `root`.
    fn relative(&self, root: usize) -> usize {
        (self.rank + self.size - root) % self.size
    }

    /// The rank of relative rank `v` for `root`.
    fn absolute(&self, v: usize, root: usize) -> i32 {
        ((v + root) % self.size) as i32
    }
}

/// Element offsets of blocks laid out rotated: block `i` of the layout is
/// global block `first + i` (mod p). `offsets[i]..offsets[i + 1]` is block
/// `i`; `offsets[p]` is the total.
fn rotated_offsets(counts: &[usize], first: usize) -> Vec<usize> {
    let p = counts.len();
    std::iter::once(0)
        .chain((0..p).scan(0, |sum, i| {
            *sum += counts[(first + i) % p];
            Some(*sum)
        }))
        .collect()
}

/// The elements of blocks `blocks` in a layout with `offsets`.
fn elements(offsets: &[usize], blocks: Range<usize>) -> Range<usize> {
    offsets[blocks.start]..offsets[blocks.end]
}

/// Copies `src` rotated left by `shift` elements into `dst`.
fn rotate_into<T: Copy>(src: &[T], shift: usize, dst: &mut [T]) {
    let (head, tail) = src.split_at(shift);
    dst[..tail.len()].copy_from_slice(tail);
    dst[tail.len()..].copy_from_slice(head);
}

/// One round's messages: `send` to `dest` and `recv` from `source`. An
/// empty side is left out; both ends of a message always know its length,
/// so they agree on that.
fn exchange<C, T>(comm: &C, send: &[T], dest: i32, recv: &mut [T], source: i32, tag: Tag)
where
    C: Communicator,
    T: Equivalence,
{
    match (send.is_empty(), recv.is_empty()) {
        (false, false) => {
            send_receive_into_with_tags(
                send,
                &comm.process_at_rank(dest),
                tag,
                recv,
                &comm.process_at_rank(source),
                tag,
            );
        }
        (false, true) => comm.process_at_rank(dest).send_with_tag(send, tag),
        (true, false) => {
            comm.process_at_rank(source)
                .receive_into_with_tag(recv, tag);
        }
        (true, true) => {}
    }
}

/// The circulant reduce-scatter on `work`, laid out rotated to this
/// process ([`rotated_offsets`] with `first` = the process's own block):
/// afterwards `work[..offsets[1]]` is this process's block reduced over all
/// processes. `incoming` must hold the largest received part.
fn reduce_scatter_rotated<C, T, O>(
    comm: &C,
    ring: &Ring,
    offsets: &[usize],
    work: &mut [T],
    incoming: &mut [T],
    op: O,
) where
    C: Communicator,
    T: Equivalence,
    O: Operation + Copy,
{
    for round in schedule::reduce_scatter_rounds(&ring.skips) {
        let send = elements(offsets, round.send);
        let recv = elements(offsets, round.recv);
        let incoming = &mut incoming[..recv.len()];
        exchange(
            comm,
            &work[send],
            ring.ahead(round.skip),
            incoming,
            ring.behind(round.skip),
            tags::REDUCE_SCATTER,
        );
        if !incoming.is_empty() {
            mpi::collective::reduce_local_into(&*incoming, &mut work[recv], op);
        }
    }
}

/// The largest part [`reduce_scatter_rotated`] receives with `offsets`.
fn reduce_scatter_incoming(ring: &Ring, offsets: &[usize]) -> usize {
    schedule::reduce_scatter_rounds(&ring.skips)
        .map(|round| elements(offsets, round.recv).len())
        .max()
        .unwrap_or(0)
}

/// The circulant allgather on `work`, laid out rotated to this process
/// ([`rotated_offsets`]), starting from its own block `work[..offsets[1]]`:
/// afterwards all blocks are in place.
fn allgather_rotated<C, T>(comm: &C, ring: &Ring, offsets: &[usize], work: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    for round in schedule::allgather_rounds(&ring.skips) {
        let send = elements(offsets, round.send);
        let recv = elements(offsets, round.recv);
        // The received blocks lie above the sent ones.
        let (low, high) = work.split_at_mut(recv.start);
        exchange(
            comm,
            &low[send],
            ring.behind(round.skip),
            &mut high[..recv.end - recv.start],
            ring.ahead(round.skip),
            tags::ALLGATHER,
        );
    }
}

/// Sends `buf` to `dest` unless it is empty (the receiver knows that too).
fn send_part<C: Communicator, T: Equivalence>(comm: &C, buf: &[T], dest: i32, tag: Tag) {
    if !buf.is_empty() {
        comm.process_at_rank(dest).send_with_tag(buf, tag);
    }
}

/// Receives `buf` from `source` unless it is empty.
fn recv_part<C: Communicator, T: Equivalence>(comm: &C, buf: &mut [T], source: i32, tag: Tag) {
    if !buf.is_empty() {
        comm.process_at_rank(source).receive_into_with_tag(buf, tag);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotated_layout() {
        let counts = [3, 0, 2, 1];
        assert_eq!(rotated_offsets(&counts, 0), vec![0, 3, 3, 5, 6]);
        assert_eq!(rotated_offsets(&counts, 2), vec![0, 2, 3, 6, 6]);
        let mut rotated = [0; 6];
        rotate_into(&[0, 1, 2, 3, 4, 5], 3, &mut rotated);
        assert_eq!(rotated, [3, 4, 5, 0, 1, 2]);
        assert_eq!(elements(&rotated_offsets(&counts, 2), 1..3), 2..6);
    }
}
