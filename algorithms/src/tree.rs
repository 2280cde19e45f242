//! Collectives built from point-to-point messages on binomial trees (and a
//! ring, for large vectors), for
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

/// Every process's block of `all` on every process, where process r's
/// block is `all[bounds[r]..bounds[r + 1]]` (`bounds`: p + 1 of them, the
/// last `all.len()`) and each holds its own in place beforehand. Blocks may
/// differ in length, and be empty. A ring: in p − 1 steps each process
/// passes on the block it received last, so that each sends (p − 1)/p of
/// the vector, where a gather to one process and a broadcast would have
/// that one send the whole vector ⌈log₂ p⌉ times.
pub fn all_gather_blocks<T: Equivalence>(
    comm: &SimpleCommunicator,
    all: &mut [T],
    bounds: &[usize],
) {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    assert_eq!(bounds.len(), size + 1, "one block per process");
    assert_eq!(bounds[size], all.len(), "the blocks cover the vector");
    let next = comm.process_at_rank(absolute(me + 1, 0, size));
    let previous = comm.process_at_rank(absolute(me + size - 1, 0, size));
    for step in 0..size.saturating_sub(1) {
        let sent = (me + size - step) % size;
        let received = (me + size - step - 1) % size;
        let (send, receive) = disjoint(
            all,
            bounds[sent]..bounds[sent + 1],
            bounds[received]..bounds[received + 1],
        );
        send_receive_into_with_tags(send, &next, TAG, receive, &previous, TAG);
    }
}

/// Every process's blocks to every process (an all-to-all): the block
/// for process r is `outgoing[out_bounds[r]..out_bounds[r + 1]]`, and the
/// block from process q lands in `incoming[in_bounds[q]..in_bounds[q + 1]]`
/// (both p + 1 bounds; a block may be empty, as long as sender and
/// receiver agree on its length). p − 1 pairwise exchanges: in step k a
/// process sends to the one k after it and receives from the one k before.
pub fn all_to_all_blocks<T: Equivalence + Copy>(
    comm: &SimpleCommunicator,
    outgoing: &[T],
    out_bounds: &[usize],
    incoming: &mut [T],
    in_bounds: &[usize],
) {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    assert_eq!(out_bounds.len(), size + 1, "one outgoing block per process");
    assert_eq!(in_bounds.len(), size + 1, "one incoming block per process");
    let block = |bounds: &[usize], r: usize| bounds[r]..bounds[r + 1];
    incoming[block(in_bounds, me)].copy_from_slice(&outgoing[block(out_bounds, me)]);
    for step in 1..size {
        let to = (me + step) % size;
        let from = (me + size - step) % size;
        send_receive_into_with_tags(
            &outgoing[block(out_bounds, to)],
            &comm.process_at_rank(absolute(to, 0, size)),
            TAG,
            &mut incoming[block(in_bounds, from)],
            &comm.process_at_rank(absolute(from, 0, size)),
            TAG,
        );
    }
}

/// Two disjoint parts of `all`: `read` to read and `write` to write.
fn disjoint<T>(
    all: &mut [T],
    read: std::ops::Range<usize>,
    write: std::ops::Range<usize>,
) -> (&[T], &mut [T]) {
    if read.end <= write.start {
        let (low, high) = all.split_at_mut(write.start);
        (&low[read], &mut high[..write.end - write.start])
    } else {
        assert!(write.end <= read.start, "the blocks overlap");
        let (low, high) = all.split_at_mut(read.start);
        (&high[..read.end - read.start], &mut low[write])
    }
}

/// Every process's block on `root`, where process r's block is
/// `all[bounds[r]..bounds[r + 1]]` (`bounds`: p + 1 of them): at the root,
/// `buf` is the whole vector and holds the root's block in place
/// beforehand; elsewhere it is the process's block alone. The root receives
/// the blocks in rank order.
pub fn gather_blocks<T: Equivalence>(
    comm: &SimpleCommunicator,
    root: usize,
    buf: &mut [T],
    bounds: &[usize],
) {
    let size = comm.size() as usize;
    let me = comm.rank() as usize;
    assert_eq!(bounds.len(), size + 1, "one block per process");
    if me != root {
        assert_eq!(
            buf.len(),
            bounds[me + 1] - bounds[me],
            "this process's block"
        );
        comm.process_at_rank(absolute(root, 0, size))
            .send_with_tag(&buf[..], TAG);
        return;
    }
    assert_eq!(bounds[size], buf.len(), "the blocks cover the vector");
    for r in (0..size).filter(|&r| r != root) {
        comm.process_at_rank(absolute(r, 0, size))
            .receive_into_with_tag(&mut buf[bounds[r]..bounds[r + 1]], TAG);
    }
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
    use super::{absolute, disjoint, relative};

    #[test]
    fn disjoint_parts_are_the_asked_ranges_either_way_round() {
        let mut all: Vec<u32> = (0..10).collect();
        let (read, write) = disjoint(&mut all, 2..4, 6..9);
        assert_eq!(read, &[2, 3]);
        write.copy_from_slice(&[0, 0, 0]);
        let (read, write) = disjoint(&mut all, 7..8, 0..3);
        assert_eq!(read, &[0]);
        write[0] = 9;
        let (read, write) = disjoint(&mut all, 5..5, 5..5);
        assert!(read.is_empty() && write.is_empty());
        assert_eq!(all, [9, 1, 2, 3, 4, 5, 0, 0, 0, 9]);
    }

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
