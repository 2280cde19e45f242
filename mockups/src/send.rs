//! Two-sided transfers of a [`Pattern`]: the library's `MPI_Send` and
//! `MPI_Recv`, and the send replaced as the guidelines compare it (Träff,
//! Gropp & Thakur 2010, (2)–(6)): by `MPI_Isend` + `MPI_Wait`, by
//! `MPI_Ssend`, and by k messages of about m/k elements each.

use crate::pattern::{Pattern, Step};
use mpi::datatype::Equivalence;
use mpi::request::scope;
use mpi::topology::Communicator;
use mpi::traits::*;

/// How a message is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sender {
    /// `MPI_Send`.
    Send,
    /// `MPI_Isend`, then `MPI_Wait` at once.
    IsendWait,
    /// `MPI_Ssend`: completes only when the receive has started.
    Ssend,
    /// `MPI_Send` of k pieces (as many as there are elements, if fewer),
    /// the first `m % k` one element longer; received piece by piece.
    Split(usize),
}

/// A pattern's transfers, prepared for one process.
pub struct TwoSided {
    steps: Vec<Step>,
    /// Elements per message.
    m: usize,
    sender: Sender,
}

impl TwoSided {
    /// # Panics
    /// As [`Pattern::phases`]; or `Sender::Split(0)`.
    pub fn new<C: Communicator>(comm: &C, pattern: Pattern, m: usize, sender: Sender) -> TwoSided {
        assert_ne!(
            sender,
            Sender::Split(0),
            "a message is split into one piece or more"
        );
        TwoSided {
            steps: pattern.phases_in(comm).concat(),
            m,
            sender,
        }
    }

    /// Sends `send` (m elements) and receives into the slots of `recv`.
    pub fn run<C: Communicator, T: Equivalence>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.m;
        for &step in &self.steps {
            let tag = step.slot() as i32;
            match step {
                Step::Send { to, .. } => {
                    let to = comm.process_at_rank(to as i32);
                    for piece in pieces(m, self.sender) {
                        let data = &send[piece];
                        match self.sender {
                            Sender::Send | Sender::Split(_) => to.send_with_tag(data, tag),
                            Sender::Ssend => to.synchronous_send_with_tag(data, tag),
                            Sender::IsendWait => scope(|sc| {
                                to.immediate_send_with_tag(sc, data, tag)
                                    .wait_without_status();
                            }),
                        }
                    }
                }
                Step::Recv { from, slot } => {
                    let from = comm.process_at_rank(from as i32);
                    let into = &mut recv[slot * m..(slot + 1) * m];
                    for piece in pieces(m, self.sender) {
                        from.receive_into_with_tag(&mut into[piece], tag);
                    }
                }
            }
        }
    }
}

/// The element ranges of one message's pieces.
fn pieces(m: usize, sender: Sender) -> impl Iterator<Item = std::ops::Range<usize>> {
    let k = match sender {
        Sender::Split(k) => k.min(m.max(1)),
        _ => 1,
    };
    (0..k).map(move |i| {
        let start = i * (m / k) + i.min(m % k);
        start..start + m / k + usize::from(i < m % k)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pieces_cover_the_message_once() {
        for m in 0..40 {
            for k in 1..12 {
                let ranges: Vec<_> = pieces(m, Sender::Split(k)).collect();
                assert_eq!(ranges.len(), k.min(m.max(1)));
                assert_eq!(ranges.first().unwrap().start, 0);
                assert_eq!(ranges.last().unwrap().end, m);
                assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
                let lengths: Vec<_> = ranges.iter().map(|r| r.len()).collect();
                let (min, max) = (lengths.iter().min().unwrap(), lengths.iter().max().unwrap());
                assert!(max - min <= 1, "{lengths:?}");
            }
        }
    }
}
