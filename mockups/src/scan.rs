//! Mock-ups of `MPI_Scan`: `send` holds the vector of `count` elements;
//! process r receives the reduction of the vectors of processes 0..=r.

use crate::scratch::scratch;
use crate::user_op::{Arithmetic, UserOp};
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::traits::*;

/// `MPI_Exscan` into scratch, then `MPI_Reduce_local` of that prefix with
/// this process's own vector, the prefix as the left operand.
pub struct ExscanReduceLocal<T> {
    prefix: Vec<T>,
}

impl<T: Equivalence + Copy + Default> ExscanReduceLocal<T> {
    pub fn new<C: Communicator>(_comm: &C, count: usize) -> ExscanReduceLocal<T> {
        ExscanReduceLocal {
            prefix: scratch(count),
        }
    }

    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        let count = self.prefix.len();
        let (send, recv) = (&send[..count], &mut recv[..count]);
        comm.exclusive_scan_into(send, &mut self.prefix[..], op);
        recv.copy_from_slice(send);
        // Rank 0 has no prefix: its result is its own vector.
        if comm.rank() > 0 {
            // MPI_Reduce_local computes inoutbuf = inbuf op inoutbuf.
            reduce_local_into(&self.prefix[..], recv, op);
        }
    }
}

/// `MPI_Scan` with a user-defined operator computing the case's built-in
/// one (Träff, Gropp & Thakur's rule (17)).
pub struct WithUserOp<T> {
    count: usize,
    op: UserOp<T>,
}

impl<T: Arithmetic> WithUserOp<T> {
    /// `op` is made once, at preparation, and freed with the mock-up.
    pub fn new<C: Communicator>(_comm: &C, count: usize, op: UserOp<T>) -> WithUserOp<T> {
        WithUserOp { count, op }
    }

    pub fn run<C: Communicator>(&mut self, comm: &C, send: &[T], recv: &mut [T]) {
        let m = self.count;
        comm.scan_into(&send[..m], &mut recv[..m], &self.op);
    }
}
