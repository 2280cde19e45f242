//! Circulant `MPI_Gather`: the scatter's `q` rounds reversed.

use super::scatter::{work_len, wraps};
use super::schedule::{gather_steps, Step, Transfer};
use super::{recv_part, send_part, tags, Ring};
use mockups::scratch::scratch;
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant gather: the circulant scatter reversed; in round k (from 0
/// up) relative rank `v + s_k` hands the blocks of `[v + s_k, hi)` to `v`.
/// The root receives straight into `recv` except a range that wraps past
/// the last rank; other collectors gather in scratch space, leaves send
/// straight from `send`.
pub struct Gather<T> {
    ring: Ring,
    root: usize,
    count: usize,
    relative: usize,
    steps: Vec<Step>,
    /// A wrapping range on the root, or a collector's range.
    work: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Gather<T> {
    /// Prepares the gather of `count` elements per process to `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Gather<T> {
        let ring = Ring::new(comm);
        assert!(root < ring.size, "root out of range");
        let relative = ring.relative(root);
        let steps = gather_steps(&ring.skips, relative);
        Gather {
            work: scratch(work_len(&ring, root, relative, &steps, count)),
            ring,
            root,
            count,
            relative,
            steps,
        }
    }

    /// Gathers every process's `send` (`count`) into the root's `recv` in
    /// rank order; `recv` is not touched elsewhere.
    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.count;
        assert_eq!(send.len(), m, "send length");
        let v = self.relative;
        if v == 0 {
            let p = self.ring.size;
            assert_eq!(recv.len(), p * m, "recv length");
            recv[self.root * m..(self.root + 1) * m].copy_from_slice(send);
            for step in &self.steps {
                let Transfer::Recv { from, blocks } = &step.transfer else {
                    unreachable!("the root only receives");
                };
                let source = self.ring.absolute(*from, self.root);
                let first = (self.root + blocks.start) % p;
                if wraps(&self.ring, self.root, blocks) {
                    let staged = &mut self.work[..blocks.len() * m];
                    recv_part(comm, staged, source, tags::GATHER);
                    let (tail, head) = staged.split_at((p - first) * m);
                    recv[first * m..].copy_from_slice(tail);
                    recv[..head.len()].copy_from_slice(head);
                } else {
                    let part = &mut recv[first * m..(first + blocks.len()) * m];
                    recv_part(comm, part, source, tags::GATHER);
                }
            }
            return;
        }
        let leaf = self.work.is_empty();
        if !leaf {
            self.work[..m].copy_from_slice(send);
        }
        for step in &self.steps {
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let part = &mut self.work[(blocks.start - v) * m..(blocks.end - v) * m];
                    let source = self.ring.absolute(*from, self.root);
                    recv_part(comm, part, source, tags::GATHER);
                }
                Transfer::Send { to, blocks } => {
                    let part = if leaf {
                        send
                    } else {
                        &self.work[..blocks.len() * m]
                    };
                    send_part(comm, part, self.ring.absolute(*to, self.root), tags::GATHER);
                }
            }
        }
    }
}
