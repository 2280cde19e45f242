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

use crate::split::displacements;
use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into_with_tags;
use mpi::topology::Communicator;
use mpi::traits::*;
use mpi::Tag;
use schedule::{Step, Transfer};
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
        Ring::of(comm.size() as usize, comm.rank() as usize)
    }

    /// The place of `rank` among `size` processes.
    fn of(size: usize, rank: usize) -> Ring {
        Ring {
            size,
            rank,
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

/// Copies `src` rotated left by `shift` elements into `dst`.
fn rotate_into<T: Copy>(src: &[T], shift: usize, dst: &mut [T]) {
    let (head, tail) = src.split_at(shift);
    dst[..tail.len()].copy_from_slice(tail);
    dst[tail.len()..].copy_from_slice(head);
}

/// A vector of one block per process (`counts`) laid out rotated: block `i`
/// of the layout is block `first + i` (mod p) of the vector.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Layout {
    /// Where block `first` starts in the vector.
    start: usize,
    /// [`rotated_offsets`]: `offsets[i]..offsets[i + 1]` is block `i`.
    offsets: Vec<usize>,
}

impl Layout {
    fn new(counts: &[usize], first: usize) -> Layout {
        Layout {
            start: displacements(counts)[first],
            offsets: rotated_offsets(counts, first),
        }
    }

    /// The elements of the layout's blocks `blocks`.
    fn elements(&self, blocks: Range<usize>) -> Range<usize> {
        self.offsets[blocks.start]..self.offsets[blocks.end]
    }

    /// Copies `vector` into `work` laid out.
    fn lay_out<T: Copy>(&self, vector: &[T], work: &mut [T]) {
        rotate_into(vector, self.start, work);
    }

    /// Puts a laid-out `work` back in vector order.
    fn restore<T>(&self, work: &mut [T]) {
        work.rotate_right(self.start);
    }
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

/// The circulant reduce-scatter of a vector laid out rotated to this
/// process (its own block first), with room for what it receives.
struct ReduceScatterRotated<T> {
    layout: Layout,
    /// The largest part received.
    incoming: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ReduceScatterRotated<T> {
    /// The vector in blocks of `counts`, block `first` this process's.
    fn new(ring: &Ring, counts: &[usize], first: usize) -> ReduceScatterRotated<T> {
        let layout = Layout::new(counts, first);
        let incoming = schedule::reduce_scatter_rounds(&ring.skips)
            .map(|round| layout.elements(round.recv).len())
            .max()
            .unwrap_or(0);
        ReduceScatterRotated {
            layout,
            incoming: vec![T::default(); incoming],
        }
    }

    /// Lays `send` out in `work` and reduce-scatters it: afterwards
    /// `work[..offsets[1]]` is this process's block reduced over all
    /// processes.
    fn run<C, O>(&mut self, comm: &C, ring: &Ring, send: &[T], work: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        self.layout.lay_out(send, work);
        for round in schedule::reduce_scatter_rounds(&ring.skips) {
            let send = self.layout.elements(round.send);
            let recv = self.layout.elements(round.recv);
            let incoming = &mut self.incoming[..recv.len()];
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
}

/// The circulant allgather on `work`, laid out rotated to this process,
/// starting from its own block `work[..offsets[1]]`: afterwards all blocks
/// are in place.
fn allgather_rotated<C, T>(comm: &C, ring: &Ring, layout: &Layout, work: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    for round in schedule::allgather_rounds(&ring.skips) {
        let send = layout.elements(round.send);
        let recv = layout.elements(round.recv);
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

/// A process's place in a rooted circulant collective: the root, its rank
/// relative to it, and its scatter or gather steps.
#[derive(Clone, Debug)]
struct Rooted {
    root: usize,
    relative: usize,
    steps: Vec<Step>,
}

impl Rooted {
    /// The place of `ring`'s process for `root`, with the steps `steps`
    /// ([`schedule::scatter_steps`] or [`schedule::gather_steps`]).
    fn new(ring: &Ring, root: usize, steps: fn(&[usize], usize) -> Vec<Step>) -> Rooted {
        assert!(root < ring.size, "root out of range");
        let relative = ring.relative(root);
        Rooted {
            root,
            relative,
            steps: steps(&ring.skips, relative),
        }
    }

    /// Runs the steps on a vector of one block per process in `work`, laid
    /// out rotated to this process: the blocks of relative ranks from this
    /// one's on are the layout's from 0 on.
    fn run_on<C, T>(&self, comm: &C, ring: &Ring, layout: &Layout, work: &mut [T], tag: Tag)
    where
        C: Communicator,
        T: Equivalence,
    {
        let v = self.relative;
        for step in &self.steps {
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let part = layout.elements(blocks.start - v..blocks.end - v);
                    let source = ring.absolute(*from, self.root);
                    recv_part(comm, &mut work[part], source, tag);
                }
                Transfer::Send { to, blocks } => {
                    let part = layout.elements(blocks.start - v..blocks.end - v);
                    send_part(comm, &work[part], ring.absolute(*to, self.root), tag);
                }
            }
        }
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
    use crate::split::block_counts;

    #[test]
    fn rotated_layout() {
        let counts = [3, 0, 2, 1];
        assert_eq!(rotated_offsets(&counts, 0), vec![0, 3, 3, 5, 6]);
        assert_eq!(rotated_offsets(&counts, 2), vec![0, 2, 3, 6, 6]);
        let mut rotated = [0; 6];
        rotate_into(&[0, 1, 2, 3, 4, 5], 3, &mut rotated);
        assert_eq!(rotated, [3, 4, 5, 0, 1, 2]);
        assert_eq!(Layout::new(&counts, 2).elements(1..3), 2..6);
    }

    /// For many p and counts (fewer elements than processes, divisible and
    /// not), every `first`: block i of the layout is block `first + i` of the
    /// vector, element for element, and laying out then restoring is the
    /// identity.
    #[test]
    fn layouts_rotate_whole_blocks() {
        for p in 1..=13usize {
            for count in [0, 1, p - 1, p, 2 * p + 1, 5 * p + 3] {
                for counts in [block_counts(count, p), vec![count; p]] {
                    let total: usize = counts.iter().sum();
                    let vector: Vec<usize> = (0..total).collect();
                    let starts: Vec<usize> = (0..p).map(|b| counts[..b].iter().sum()).collect();
                    for first in 0..p {
                        let layout = Layout::new(&counts, first);
                        assert_eq!(layout.offsets.len(), p + 1);
                        assert_eq!(layout.offsets[p], total);
                        assert_eq!(layout.start, starts[first]);
                        let mut work = vec![usize::MAX; total];
                        layout.lay_out(&vector, &mut work);
                        for i in 0..p {
                            let b = (first + i) % p;
                            let expected = starts[b]..starts[b] + counts[b];
                            assert_eq!(&work[layout.elements(i..i + 1)], &vector[expected]);
                        }
                        layout.restore(&mut work);
                        assert_eq!(work, vector, "p {p}, counts {counts:?}, first {first}");
                    }
                }
            }
        }
    }

    #[test]
    fn ring_arithmetic_is_modular_and_inverse() {
        for size in 1..=12usize {
            for rank in 0..size {
                let ring = Ring::of(size, rank);
                assert_eq!(ring.skips, schedule::skips(size));
                for distance in 0..3 * size {
                    let ahead = ring.ahead(distance) as usize;
                    let behind = ring.behind(distance) as usize;
                    assert_eq!(ahead, (rank + distance) % size);
                    assert_eq!((behind + distance) % size, rank, "{rank} of {size}");
                    assert!(ahead < size && behind < size);
                    // My partner behind has me ahead at the same distance.
                    assert_eq!(Ring::of(size, behind).ahead(distance) as usize, rank);
                }
                for root in 0..size {
                    let v = ring.relative(root);
                    assert!(v < size);
                    assert_eq!(v == 0, rank == root);
                    assert_eq!(ring.absolute(v, root) as usize, rank);
                }
            }
        }
    }
}
