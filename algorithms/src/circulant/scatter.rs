//! Circulant `MPI_Scatter`: `q` rounds over the skips.

use super::schedule::{scatter_steps, Step, Transfer};
use super::{recv_part, send_part, tags, Ring};
use mockups::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::ops::Range;

/// Circulant scatter: in round k (from q − 1 down) every holder of the
/// blocks of relative ranks `[v, hi)` with `hi − v > s_k` hands `[v + s_k,
/// hi)` to relative rank `v + s_k`. The root sends straight from `send`
/// except a range that wraps past the last rank; other holders keep their
/// range in scratch space, leaves receive straight into `recv`.
pub struct Scatter<T> {
    ring: Ring,
    root: usize,
    count: usize,
    relative: usize,
    steps: Vec<Step>,
    /// A wrapping range on the root, or a holder's range.
    work: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Scatter<T> {
    /// Prepares the scatter of `count` elements per process from `root`;
    /// not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Scatter<T> {
        let ring = Ring::new(comm);
        assert!(root < ring.size, "root out of range");
        let relative = ring.relative(root);
        let steps = scatter_steps(&ring.skips, relative);
        Scatter {
            work: scratch(work_len(&ring, root, relative, &steps, count)),
            ring,
            root,
            count,
            relative,
            steps,
        }
    }

    /// Scatters the root's `send` (`count` per process, in rank order) into
    /// every process's `recv`.
    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.count;
        assert_eq!(recv.len(), m, "recv length");
        let v = self.relative;
        if v == 0 {
            let p = self.ring.size;
            assert_eq!(send.len(), p * m, "send length");
            recv.copy_from_slice(&send[self.root * m..(self.root + 1) * m]);
            for step in &self.steps {
                let Transfer::Send { to, blocks } = &step.transfer else {
                    unreachable!("the root only sends");
                };
                let first = (self.root + blocks.start) % p;
                let part: &[T] = if wraps(&self.ring, self.root, blocks) {
                    let staged = &mut self.work[..blocks.len() * m];
                    let (tail, head) = staged.split_at_mut((p - first) * m);
                    tail.copy_from_slice(&send[first * m..]);
                    head.copy_from_slice(&send[..head.len()]);
                    staged
                } else {
                    &send[first * m..(first + blocks.len()) * m]
                };
                send_part(
                    comm,
                    part,
                    self.ring.absolute(*to, self.root),
                    tags::SCATTER,
                );
            }
            return;
        }
        let leaf = self.work.is_empty();
        for step in &self.steps {
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let source = self.ring.absolute(*from, self.root);
                    let into = if leaf {
                        &mut recv[..]
                    } else {
                        &mut self.work[..blocks.len() * m]
                    };
                    recv_part(comm, into, source, tags::SCATTER);
                }
                Transfer::Send { to, blocks } => {
                    let part = &self.work[(blocks.start - v) * m..(blocks.end - v) * m];
                    send_part(
                        comm,
                        part,
                        self.ring.absolute(*to, self.root),
                        tags::SCATTER,
                    );
                }
            }
        }
        if !leaf {
            recv.copy_from_slice(&self.work[..m]);
        }
    }
}

/// The scratch a scatter or gather needs: on the root the largest range it
/// sends or receives that wraps past the last rank (the root only sends in
/// a scatter and only receives in a gather), elsewhere the range it holds.
pub(super) fn work_len(
    ring: &Ring,
    root: usize,
    relative: usize,
    steps: &[Step],
    count: usize,
) -> usize {
    if relative != 0 {
        return held_blocks(steps, relative) * count;
    }
    steps
        .iter()
        .filter_map(|step| match &step.transfer {
            Transfer::Send { blocks, .. } | Transfer::Recv { blocks, .. } => {
                wraps(ring, root, blocks).then_some(blocks.len() * count)
            }
        })
        .max()
        .unwrap_or(0)
}

/// Whether the blocks of relative ranks `blocks` wrap past the last rank.
pub(super) fn wraps(ring: &Ring, root: usize, blocks: &Range<usize>) -> bool {
    root + blocks.start < ring.size && root + blocks.end > ring.size
}

/// How many blocks a non-root holds at once in a scatter or gather (its
/// steps): those of relative ranks `[v, hi)` when it forwards, 0 for a leaf,
/// which has a single step and holds only its own block.
pub(super) fn held_blocks(steps: &[Step], v: usize) -> usize {
    if steps.len() < 2 {
        return 0;
    }
    steps
        .iter()
        .find_map(|step| match &step.transfer {
            Transfer::Recv { blocks, .. } | Transfer::Send { blocks, .. } => {
                (blocks.start == v).then_some(blocks.len())
            }
        })
        .expect("a non-root receives or sends its own range")
}
