//! The communication patterns of the point-to-point and one-sided
//! guidelines (Träff, Gropp & Thakur 2010, sections 3 and 6): who sends
//! `m` elements to whom, and where they land. Every process sends its
//! whole `send` buffer (`m` elements); each message lands in a slot of
//! `m` elements of the target's `recv`.
//!
//! A pattern is a list of phases, each a list of steps in an order that
//! blocking sends cannot deadlock in (a process that receives first in
//! every pair of neighbours). Two-sided transfers run the steps in order;
//! one-sided ones synchronise between phases: a ping-pong's pong starts
//! when the ping has landed.

use mpi::topology::Communicator;

/// Who exchanges with whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Process `first` sends to `last`, which sends its own data back.
    PingPong { first: usize, last: usize },
    /// Every process sends to both neighbours on a ring: the left one's
    /// data lands in slot 0 of `recv`, the right one's in slot 1.
    Halo,
}

/// One transfer as seen from this process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Send this process's data to `to`, into its slot `slot`.
    Send { to: usize, slot: usize },
    /// Receive `from`'s data into this process's slot `slot`.
    Recv { from: usize, slot: usize },
}

impl Step {
    /// The slot of the message: also its tag, so that the two messages of
    /// a halo between two processes (p = 2) cannot be confused.
    pub fn slot(self) -> usize {
        match self {
            Step::Send { slot, .. } | Step::Recv { slot, .. } => slot,
        }
    }
}

impl Pattern {
    /// The slots of `recv` a process of `rank` gets data in: 1 for the two
    /// processes of a ping-pong (0 elsewhere), 2 for a halo.
    pub fn slots(self, rank: usize) -> usize {
        match self {
            Pattern::PingPong { first, last } => usize::from(rank == first || rank == last),
            Pattern::Halo => 2,
        }
    }

    /// The process whose data lands in `slot` of `rank`'s `recv`.
    pub fn source(self, size: usize, rank: usize, slot: usize) -> usize {
        match self {
            Pattern::PingPong { first, last } => match rank == first {
                true => last,
                false => first,
            },
            Pattern::Halo => match slot {
                0 => (rank + size - 1) % size,
                _ => (rank + 1) % size,
            },
        }
    }

    /// The phases of this process of `comm` ([`Pattern::phases`]).
    pub fn phases_in<C: Communicator>(self, comm: &C) -> Vec<Vec<Step>> {
        self.phases(comm.size() as usize, comm.rank() as usize)
    }

    /// Per phase, this process's sends as `(to, slot)` (`sending`), or its
    /// receives as `(from, slot)`: the puts and the gets of a one-sided
    /// transfer.
    pub fn peers<C: Communicator>(self, comm: &C, sending: bool) -> Vec<Vec<(usize, usize)>> {
        let peer = |step: Step| match step {
            Step::Send { to, slot } if sending => Some((to, slot)),
            Step::Recv { from, slot } if !sending => Some((from, slot)),
            _ => None,
        };
        self.phases_in(comm)
            .into_iter()
            .map(|phase| phase.into_iter().filter_map(peer).collect())
            .collect()
    }

    /// This process's phases, in order (see the module's doc). Needs two
    /// processes or more: a process never sends to itself.
    ///
    /// # Panics
    /// With fewer than two processes, or a ping-pong between one process.
    pub fn phases(self, size: usize, rank: usize) -> Vec<Vec<Step>> {
        assert!(size >= 2, "a pattern needs two processes or more");
        match self {
            Pattern::PingPong { first, last } => {
                assert_ne!(first, last, "a ping-pong needs two processes");
                let ping = |from: usize, to: usize| match rank {
                    r if r == from => vec![Step::Send { to, slot: 0 }],
                    r if r == to => vec![Step::Recv { from, slot: 0 }],
                    _ => Vec::new(),
                };
                vec![ping(first, last), ping(last, first)]
            }
            Pattern::Halo => {
                let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);
                let rightward = [
                    Step::Send { to: right, slot: 0 },
                    Step::Recv {
                        from: left,
                        slot: 0,
                    },
                ];
                let leftward = [
                    Step::Send { to: left, slot: 1 },
                    Step::Recv {
                        from: right,
                        slot: 1,
                    },
                ];
                // Odd processes receive first: every chain of waiting ends
                // at one, whatever the parity of `size` (rank 0 and an even
                // last rank both send first, but rank 1 never does).
                let order = |[send, recv]: [Step; 2]| match rank % 2 {
                    0 => [send, recv],
                    _ => [recv, send],
                };
                vec![order(rightward)
                    .into_iter()
                    .chain(order(leftward))
                    .collect()]
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every send has its receive, with the same slot, in the same phase;
    /// and the data in each slot comes from `source`.
    #[test]
    fn every_send_meets_its_receive() {
        for size in 2..10 {
            for pattern in [
                Pattern::Halo,
                Pattern::PingPong {
                    first: 0,
                    last: size - 1,
                },
            ] {
                let phases: Vec<_> = (0..size).map(|r| pattern.phases(size, r)).collect();
                for (rank, own) in phases.iter().enumerate() {
                    for (phase, steps) in own.iter().enumerate() {
                        for step in steps {
                            match *step {
                                Step::Send { to, slot } => {
                                    assert!(phases[to][phase]
                                        .contains(&Step::Recv { from: rank, slot }))
                                }
                                Step::Recv { from, slot } => {
                                    assert_eq!(pattern.source(size, rank, slot), from);
                                    assert!(phases[from][phase]
                                        .contains(&Step::Send { to: rank, slot }))
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Blocking sends in the steps' order never wait in a circle: run them
    /// with rendezvous semantics (a send completes when its receive is
    /// reached) and every process finishes.
    #[test]
    fn blocking_sends_in_order_never_deadlock() {
        for size in 2..12 {
            let steps: Vec<Vec<Step>> = (0..size)
                .map(|r| Pattern::Halo.phases(size, r).concat())
                .collect();
            let mut next = vec![0; size];
            loop {
                let mut progressed = false;
                for rank in 0..size {
                    let Some(&Step::Send { to, slot }) = steps[rank].get(next[rank]) else {
                        continue;
                    };
                    if steps[to].get(next[to]) == Some(&Step::Recv { from: rank, slot }) {
                        next[rank] += 1;
                        next[to] += 1;
                        progressed = true;
                    }
                }
                if !progressed {
                    break;
                }
            }
            assert!(
                (0..size).all(|r| next[r] == steps[r].len()),
                "p = {size}: stuck at {next:?}"
            );
        }
    }
}
