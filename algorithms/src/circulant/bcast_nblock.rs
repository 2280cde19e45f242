//! Round-optimal circulant `MPI_Bcast` of `n` blocks: `n − 1 + q` rounds.

use super::schedule::{BlockRound, BlockSchedule};
use super::{exchange, recv_part, send_part, tags, Ring};
use crate::split::{block_counts, displacements};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use std::marker::PhantomData;
use std::ops::Range;

/// Round-optimal broadcast (Träff 2023): the vector split into `n` blocks
/// as evenly as possible; in round j every process sends one block `s_k`
/// ahead and receives one from `s_k` behind (`k = j mod q`, shifted), as
/// its precomputed [`BlockSchedule`] says, so that the root sends a new
/// block every round and all are done after `n − 1 + q` rounds.
pub struct BcastNBlock<T> {
    ring: Ring,
    count: usize,
    /// Element range of every block.
    blocks: Vec<Range<usize>>,
    plan: Vec<BlockRound>,
    element: PhantomData<T>,
}

impl<T: Equivalence + Copy> BcastNBlock<T> {
    /// Prepares the broadcast of `count` elements from `root` in `blocks`
    /// blocks (at least 1, at most `count`); not collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize, blocks: usize) -> Self {
        let ring = Ring::new(comm);
        assert!(root < ring.size, "root out of range");
        let n = if count == 0 {
            0
        } else {
            blocks.clamp(1, count)
        };
        let counts = block_counts(count, n);
        let blocks = displacements(&counts)
            .into_iter()
            .zip(&counts)
            .map(|(start, len)| start..start + len)
            .collect();
        let plan = BlockSchedule::new(ring.size, ring.relative(root)).plan(n);
        BcastNBlock {
            ring,
            count,
            blocks,
            plan,
            element: PhantomData,
        }
    }

    /// The number of blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Broadcasts the root's `buf` into every process's `buf`.
    pub fn run<C: Communicator>(&mut self, comm: &C, buf: &mut [T]) {
        assert_eq!(buf.len(), self.count, "buffer length");
        for round in &self.plan {
            let skip = self.ring.skips[round.k];
            let (dest, source) = (self.ring.ahead(skip), self.ring.behind(skip));
            match (round.send, round.recv) {
                (Some(send), Some(recv)) => {
                    // A process never receives a block it sends: it sends
                    // only blocks it holds and receives only ones it lacks.
                    let (send, recv) = (self.blocks[send].clone(), self.blocks[recv].clone());
                    let (send, recv) = if send.start < recv.start {
                        let (low, high) = buf.split_at_mut(recv.start);
                        (&low[send], &mut high[..recv.len()])
                    } else {
                        let (low, high) = buf.split_at_mut(send.start);
                        (&high[..send.len()], &mut low[recv])
                    };
                    exchange(comm, send, dest, recv, source, tags::NBLOCK);
                }
                (Some(send), None) => {
                    send_part(comm, &buf[self.blocks[send].clone()], dest, tags::NBLOCK);
                }
                (None, Some(recv)) => {
                    let part = self.blocks[recv].clone();
                    recv_part(comm, &mut buf[part], source, tags::NBLOCK);
                }
                (None, None) => {}
            }
        }
    }
}
