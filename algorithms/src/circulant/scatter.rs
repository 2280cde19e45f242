//! Circulant `MPI_Scatter`: `q` rounds over the skips.

use super::schedule::{scatter_steps, Step, Transfer};
use super::{recv_part, send_part, tags, Ring, Rooted};
use mockups::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::ops::Range;

/// Circulant scatter: in round k (from q − 1 down) every holder of the
/// blocks of relative ranks `[v, hi)` with `hi − v > s_k` hands `[v + s_k,
/// hi)` to relative rank `v + s_k`. The root sends straight from `send`
/// except a range that wraps past the last rank; other holders keep their
/// range in scratch space, leaves receive straight into `recv`.
pub struct Scatter<T>(Tree<T>);

impl<T: Equivalence + Copy + Default> Scatter<T> {
    /// Prepares the scatter of `count` elements per process from `root`;
    /// not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Scatter<T> {
        Scatter(Tree::new(comm, count, root, scatter_steps))
    }

    /// Scatters the root's `send` (`count` per process, in rank order) into
    /// every process's `recv`.
    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let Tree {
            ring,
            rooted,
            count,
            work,
        } = &mut self.0;
        let (m, v, root) = (*count, rooted.relative, rooted.root);
        assert_eq!(recv.len(), m, "recv length");
        if v == 0 {
            let p = ring.size;
            assert_eq!(send.len(), p * m, "send length");
            recv.copy_from_slice(&send[root * m..(root + 1) * m]);
            for step in &rooted.steps {
                let Transfer::Send { to, blocks } = &step.transfer else {
                    unreachable!("the root only sends");
                };
                let first = (root + blocks.start) % p;
                let part: &[T] = if wraps(ring, root, blocks) {
                    let staged = &mut work[..blocks.len() * m];
                    let (tail, head) = staged.split_at_mut((p - first) * m);
                    tail.copy_from_slice(&send[first * m..]);
                    head.copy_from_slice(&send[..head.len()]);
                    staged
                } else {
                    &send[first * m..(first + blocks.len()) * m]
                };
                send_part(comm, part, ring.absolute(*to, root), tags::SCATTER);
            }
            return;
        }
        let leaf = work.is_empty();
        for step in &rooted.steps {
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let source = ring.absolute(*from, root);
                    let into = if leaf {
                        &mut recv[..]
                    } else {
                        &mut work[..blocks.len() * m]
                    };
                    recv_part(comm, into, source, tags::SCATTER);
                }
                Transfer::Send { to, blocks } => {
                    let part = &work[(blocks.start - v) * m..(blocks.end - v) * m];
                    send_part(comm, part, ring.absolute(*to, root), tags::SCATTER);
                }
            }
        }
        if !leaf {
            recv.copy_from_slice(&work[..m]);
        }
    }
}

/// A process's part in a circulant scatter or gather of `count` elements
/// per process: its place, its steps and its scratch.
pub(super) struct Tree<T> {
    pub(super) ring: Ring,
    pub(super) rooted: Rooted,
    pub(super) count: usize,
    /// A wrapping range on the root, or a holder's range.
    pub(super) work: Vec<T>,
}

impl<T: Copy + Default> Tree<T> {
    /// The part of `comm`'s process for `root` with the `steps`
    /// ([`scatter_steps`] or [`gather_steps`](super::schedule::gather_steps)).
    pub(super) fn new<C: Communicator>(
        comm: &C,
        count: usize,
        root: usize,
        steps: fn(&[usize], usize) -> Vec<Step>,
    ) -> Tree<T> {
        let ring = Ring::new(comm);
        let rooted = Rooted::new(&ring, root, steps);
        Tree {
            work: scratch(work_len(&ring, &rooted, count)),
            ring,
            rooted,
            count,
        }
    }
}

/// The scratch a scatter or gather needs: on the root the largest range it
/// sends or receives that wraps past the last rank (the root only sends in
/// a scatter and only receives in a gather), elsewhere the range it holds.
fn work_len(ring: &Ring, rooted: &Rooted, count: usize) -> usize {
    let Rooted {
        root,
        relative,
        steps,
    } = rooted;
    if *relative != 0 {
        return held_blocks(steps, *relative) * count;
    }
    steps
        .iter()
        .filter_map(|step| match &step.transfer {
            Transfer::Send { blocks, .. } | Transfer::Recv { blocks, .. } => {
                wraps(ring, *root, blocks).then_some(blocks.len() * count)
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
fn held_blocks(steps: &[Step], v: usize) -> usize {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::circulant::schedule::{gather_steps, skips};

    /// The ranges of relative ranks every process receives in the scatter
    /// (the root: all), and those the root hands on, by halving `[0, p)`
    /// over the skips from the largest down, without the step lists.
    fn scatter_ranges(p: usize) -> (Vec<Range<usize>>, Vec<Range<usize>>) {
        let s = skips(p);
        let mut held: Vec<Option<Range<usize>>> = vec![None; p];
        held[0] = Some(0..p);
        let mut received = vec![0..0; p];
        received[0] = 0..p;
        let mut from_root = Vec::new();
        for &skip in s[..s.len() - 1].iter().rev() {
            let holders: Vec<usize> = (0..p).filter(|&u| held[u].is_some()).collect();
            for u in holders {
                let range = held[u].clone().expect("a holder");
                if range.len() > skip {
                    let handed = u + skip..range.end;
                    if u == 0 {
                        from_root.push(handed.clone());
                    }
                    let to = handed.start;
                    held[u] = Some(u..to);
                    held[to] = Some(handed.clone());
                    received[to] = handed;
                }
            }
        }
        (received, from_root)
    }

    #[test]
    fn a_range_wraps_when_it_passes_the_last_rank() {
        for p in 1..=12usize {
            let ring = Ring::of(p, 0);
            for root in 0..p {
                for start in 0..p {
                    for end in start..=p {
                        let ranks: Vec<usize> = (start..end).map(|b| (root + b) % p).collect();
                        let split = ranks.windows(2).any(|w| w[1] < w[0]);
                        assert_eq!(
                            wraps(&ring, root, &(start..end)),
                            split,
                            "{root} {start}..{end}"
                        );
                    }
                }
            }
        }
    }

    /// The blocks a process keeps in scratch with the range it receives:
    /// none for a leaf, which receives into `recv` (scatter) or sends from
    /// `send` (gather).
    fn kept(range: &Range<usize>) -> usize {
        if range.len() > 1 {
            range.len()
        } else {
            0
        }
    }

    #[test]
    fn scratch_holds_the_largest_range_a_process_keeps() {
        for p in 1..=70usize {
            let (received, from_root) = scatter_ranges(p);
            let s = skips(p);
            for (v, range) in received.iter().enumerate().skip(1) {
                let held = kept(range);
                assert_eq!(held_blocks(&scatter_steps(&s, v), v), held, "p {p}, v {v}");
                assert_eq!(held_blocks(&gather_steps(&s, v), v), held, "p {p}, v {v}");
            }
            for root in 0..p {
                let ring = Ring::of(p, root);
                let other = Ring::of(p, (root + 1) % p);
                for count in [0, 1, 3] {
                    let wrapping = from_root
                        .iter()
                        .filter(|r| root + r.start < p && root + r.end > p)
                        .map(|r| r.len() * count)
                        .max()
                        .unwrap_or(0);
                    for steps in [scatter_steps, gather_steps] {
                        let rooted = Rooted::new(&ring, root, steps);
                        assert_eq!(
                            work_len(&ring, &rooted, count),
                            wrapping,
                            "p {p}, root {root}"
                        );
                        if p > 1 {
                            let rooted = Rooted::new(&other, root, steps);
                            let held = kept(&received[rooted.relative]);
                            assert_eq!(work_len(&other, &rooted, count), held * count);
                        }
                    }
                }
            }
        }
    }
}
