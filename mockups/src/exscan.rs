//! Mock-ups of `MPI_Exscan`: `send` holds the vector of `count` elements;
//! process r > 0 receives the reduction of the vectors of processes
//! 0..r. Rank 0's `recv` is left undefined, as MPI leaves it.

use crate::scratch::scratch;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::point_to_point::send_receive_into;
use mpi::traits::*;

/// `MPI_Scan` into scratch, then a shift of the inclusive prefixes one rank
/// up: process r sends its prefix to r + 1 and receives r − 1's, which is
/// its exclusive prefix (one message per process, all at once).
pub struct ScanShift<T> {
    inclusive: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ScanShift<T> {
    pub fn new<C: Communicator>(_comm: &C, count: usize) -> ScanShift<T> {
        ScanShift {
            inclusive: scratch(count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation,
    {
        let count = self.inclusive.len();
        let recv = &mut recv[..count];
        comm.scan_into(&send[..count], &mut self.inclusive[..], op);
        let (rank, size) = (comm.rank(), comm.size());
        let has_lower = rank > 0;
        let has_upper = rank + 1 < size;
        if has_lower && has_upper {
            let upper = comm.process_at_rank(rank + 1);
            let lower = comm.process_at_rank(rank - 1);
            send_receive_into(&self.inclusive[..], &upper, recv, &lower);
        } else if has_upper {
            comm.process_at_rank(rank + 1).send(&self.inclusive[..]);
        } else if has_lower {
            comm.process_at_rank(rank - 1).receive_into(recv);
        }
    }
}

/// `MPI_Allgather` of all vectors into scratch, then a left fold of the
/// vectors of processes 0..r with `MPI_Reduce_local`, in rank order.
///
/// Checks Exscan against the most general regular collective: an exscan
/// that is linear in p is slower than this for small vectors, where the
/// allgather takes about log p rounds and the local work is small.
pub struct AllgatherReduceLocal<T> {
    count: usize,
    gathered: Vec<T>,
}

impl<T: Equivalence + Copy + Default> AllgatherReduceLocal<T> {
    pub fn new<C: Communicator>(comm: &C, count: usize) -> AllgatherReduceLocal<T> {
        AllgatherReduceLocal {
            count,
            gathered: scratch(comm.size() as usize * count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        let count = self.count;
        comm.all_gather_into(&send[..count], &mut self.gathered[..]);
        let rank = comm.rank() as usize;
        if rank == 0 {
            return;
        }
        // Block i becomes the prefix 0..=i: MPI_Reduce_local computes
        // inoutbuf = inbuf op inoutbuf, so the earlier prefix is the left
        // operand.
        for i in 1..rank {
            let (before, rest) = self.gathered.split_at_mut(i * count);
            reduce_local_into(&before[(i - 1) * count..], &mut rest[..count], op);
        }
        recv[..count].copy_from_slice(&self.gathered[(rank - 1) * count..rank * count]);
    }
}
