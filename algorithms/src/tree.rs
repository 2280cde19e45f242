//! Collectives built from point-to-point messages on binomial trees, for
//! code that must not rest on the library's own collectives: a checker's
//! bookkeeping (clocks, decisions, agreement, topology) while those
//! collectives are under test.
//!
//! Every function is collective over `comm`: every process calls it in the
//! same order with buffers of the same length. Messages carry the tag
//! [`TAG`]; run them on a communicator of their own (a duplicate) where
//! other point-to-point traffic could carry the same tag.

use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into_with_tags;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

/// The tag of every message of this module.
pub const TAG: mpi::Tag = 0x7472;

/// `rank` relative to `root`: the root is 0.
fn relative(rank: usize, root: usize, size: usize) -> usize {
    (rank + size - root) % size
}

/// The rank `relative` to `root` stands for.
fn absolute(relative: usize, root: usize, size: usize) -> mpi::Rank {
    mpi::Rank::try_from((relative + root) % size).expect("rank fits an MPI int")
}

/// `root`'s `buf` to every process: each receives from its parent, then
/// sends to its children, ⌈log₂ p⌉ steps.
pub fn broadcast<T: Equivalence>(comm: &SimpleCommunicator, root: usize, buf: &mut [T]) {
    let size = comm.size() as usize;
    let me = relative(comm.rank() as usize, root, size);
    let mut mask = 1;
    while mask < size {
        if me & mask != 0 {
            let parent = absolute(me - mask, root, size);
            comm.process_at_rank(parent)
                .receive_into_with_tag(&mut buf[..], TAG);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while mask > 0 {
        if me + mask < size {
            let child = absolute(me + mask, root, size);
            comm.process_at_rank(child).send_with_tag(&buf[..], TAG);
        }
        mask >>= 1;
    }
}

/// Combines every process's `acc` into rank 0's with `combine` (which must
/// be associative and commutative); `scratch` is as long as `acc`. Off rank
/// 0, `acc` holds a partial result afterwards.
pub fn reduce_to_first<T, F>(
    comm: &SimpleCommunicator,
    acc: &mut [T],
    scratch: &mut [T],
    combine: F,
) where
    T: Equivalence,
    F: Fn(&mut [T], &[T]),
{
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    let mut mask = 1;
    while mask < size {
        if me & mask != 0 {
            comm.process_at_rank(absolute(me - mask, 0, size))
                .send_with_tag(&acc[..], TAG);
            return;
        }
        if me + mask < size {
            comm.process_at_rank(absolute(me + mask, 0, size))
                .receive_into_with_tag(&mut scratch[..], TAG);
            combine(acc, scratch);
        }
        mask <<= 1;
    }
}

/// Every process's `acc` combined with `combine` on every process: a
/// reduction to rank 0, then a broadcast.
pub fn all_reduce<T, F>(comm: &SimpleCommunicator, acc: &mut [T], scratch: &mut [T], combine: F)
where
    T: Equivalence,
    F: Fn(&mut [T], &[T]),
{
    reduce_to_first(comm, acc, scratch, combine);
    broadcast(comm, 0, acc);
}

/// Every process's `mine` in rank order in `all` on every process
/// (`all.len()` = p × `mine.len()`): each subtree's blocks travel up a
/// binomial tree to rank 0, which broadcasts them.
pub fn all_gather<T: Equivalence + Copy>(comm: &SimpleCommunicator, mine: &[T], all: &mut [T]) {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    let k = mine.len();
    assert_eq!(all.len(), k * size, "one block per process");
    all[me * k..(me + 1) * k].copy_from_slice(mine);
    let mut mask = 1;
    while mask < size {
        if me & mask != 0 {
            // This process has gathered its subtree, [me, me + mask).
            let end = (me + mask).min(size);
            comm.process_at_rank(absolute(me - mask, 0, size))
                .send_with_tag(&all[me * k..end * k], TAG);
            break;
        }
        let child = me + mask;
        if child < size {
            let end = (child + mask).min(size);
            comm.process_at_rank(absolute(child, 0, size))
                .receive_into_with_tag(&mut all[child * k..end * k], TAG);
        }
        mask <<= 1;
    }
    broadcast(comm, 0, all);
}

/// Returns once every process has called it: a dissemination barrier,
/// ⌈log₂ p⌉ rounds of one empty message sent and one received.
pub fn barrier(comm: &SimpleCommunicator) {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    let (token, mut received) = ([0u8; 0], [0u8; 0]);
    let mut distance = 1;
    while distance < size {
        let to = comm.process_at_rank(absolute(me + distance, 0, size));
        let from = comm.process_at_rank(absolute(me + size - distance, 0, size));
        send_receive_into_with_tags(&token[..], &to, TAG, &mut received[..], &from, TAG);
        distance <<= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::{absolute, relative};

    #[test]
    fn relative_ranks_put_the_root_first_and_wrap() {
        assert_eq!(relative(3, 3, 5), 0);
        assert_eq!(relative(1, 3, 5), 3);
        assert_eq!(absolute(3, 3, 5), 1);
        for root in 0..7 {
            for rank in 0..7 {
                assert_eq!(absolute(relative(rank, root, 7), root, 7), rank as i32);
            }
        }
    }
}
