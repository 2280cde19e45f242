//! Circulant `MPI_Gather`: the scatter's `q` rounds reversed.

use super::scatter::{wraps, Tree};
use super::schedule::{gather_steps, Transfer};
use super::{recv_part, send_part, tags};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;

/// Circulant gather: the circulant scatter reversed; in round k (from 0
/// up) relative rank `v + s_k` hands the blocks of `[v + s_k, hi)` to `v`.
/// The root receives straight into `recv` except a range that wraps past
/// the last rank; other collectors gather in scratch space, leaves send
/// straight from `send`.
pub struct Gather<T>(Tree<T>);

impl<T: Equivalence + Copy + Default> Gather<T> {
    /// Prepares the gather of `count` elements per process to `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Gather<T> {
        Gather(Tree::new(comm, count, root, gather_steps))
    }

    /// Gathers every process's `send` (`count`) into the root's `recv` in
    /// rank order; `recv` is not touched elsewhere.
    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let Tree {
            ring,
            rooted,
            count,
            work,
        } = &mut self.0;
        let (m, v, root) = (*count, rooted.relative, rooted.root);
        assert_eq!(send.len(), m, "send length");
        if v == 0 {
            let p = ring.size;
            assert_eq!(recv.len(), p * m, "recv length");
            recv[root * m..(root + 1) * m].copy_from_slice(send);
            for step in &rooted.steps {
                let Transfer::Recv { from, blocks } = &step.transfer else {
                    unreachable!("the root only receives");
                };
                let source = ring.absolute(*from, root);
                let first = (root + blocks.start) % p;
                if wraps(ring, root, blocks) {
                    let staged = &mut work[..blocks.len() * m];
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
        let leaf = work.is_empty();
        if !leaf {
            work[..m].copy_from_slice(send);
        }
        for step in &rooted.steps {
            match &step.transfer {
                Transfer::Recv { from, blocks } => {
                    let part = &mut work[(blocks.start - v) * m..(blocks.end - v) * m];
                    let source = ring.absolute(*from, root);
                    recv_part(comm, part, source, tags::GATHER);
                }
                Transfer::Send { to, blocks } => {
                    let part = if leaf {
                        send
                    } else {
                        &work[..blocks.len() * m]
                    };
                    send_part(comm, part, ring.absolute(*to, root), tags::GATHER);
                }
            }
        }
    }
}
