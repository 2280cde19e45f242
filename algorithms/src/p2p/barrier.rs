//! The dissemination barrier from point-to-point calls (Hensgen, Finkel &
//! Manber 1988): Träff, Gropp & Thakur's rule (19) for `MPI_Barrier`, a
//! barrier is not slower than this obvious one.

use super::tags;
use mpi::point_to_point as p2p;
use mpi::topology::Communicator;

/// Dissemination barrier: in round k = 0, 1, … while 2^k < p, process r
/// sends an empty message to r + 2^k and receives one from r − 2^k (modulo
/// p), `MPI_Sendrecv`. After round k, r has heard, directly or through
/// others, from the 2^(k+1) − 1 processes before it, so after ⌈log₂ p⌉
/// rounds from all: none leaves before all have entered.
pub struct Barrier;

impl Barrier {
    /// Runs the barrier over `comm`; allocates nothing.
    pub fn run<C: Communicator>(&mut self, comm: &C) {
        let (p, r) = (comm.size() as usize, comm.rank() as usize);
        let mut distance = 1;
        while distance < p {
            let to = comm.process_at_rank(((r + distance) % p) as i32);
            let from = comm.process_at_rank(((r + p - distance) % p) as i32);
            let mut nothing: [u8; 0] = [];
            p2p::send_receive_into_with_tags(
                &[0u8; 0][..],
                &to,
                tags::BARRIER,
                &mut nothing[..],
                &from,
                tags::BARRIER,
            );
            distance *= 2;
        }
    }
}
