//! The rooted collectives as MPI has them: one call on every process, the
//! root's buffer used on the root only. rsmpi splits each into a call for
//! the root and one for the others.

use mpi::collective::Operation;
use mpi::datatype::Equivalence;
use mpi::request::scope;
use mpi::traits::*;

/// `MPI_Reduce` of every process's `send` into `recv` on `root`.
pub fn reduce<C, T, O>(comm: &C, root: usize, send: &[T], recv: &mut [T], op: O)
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    let root_process = comm.process_at_rank(root as i32);
    if comm.rank() as usize == root {
        root_process.reduce_into_root(send, recv, op);
    } else {
        root_process.reduce_into(send, op);
    }
}

/// `MPI_Gather` of every process's `send` into `recv` on `root`.
pub fn gather<C, T>(comm: &C, root: usize, send: &[T], recv: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    let root_process = comm.process_at_rank(root as i32);
    if comm.rank() as usize == root {
        root_process.gather_into_root(send, recv);
    } else {
        root_process.gather_into(send);
    }
}

/// `MPI_Scatter` of `send`, read on `root`, into every process's `recv`.
pub fn scatter<C, T>(comm: &C, root: usize, send: &[T], recv: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    let root_process = comm.process_at_rank(root as i32);
    if comm.rank() as usize == root {
        root_process.scatter_into_root(send, recv);
    } else {
        root_process.scatter_into(recv);
    }
}

/// `MPI_Ireduce` of every process's `send` into `recv` on `root`, waited
/// for at once.
pub fn ireduce_wait<C, T, O>(comm: &C, root: usize, send: &[T], recv: &mut [T], op: O)
where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    ireduce_overlapped(comm, root, send, recv, op, || {})
}

/// [`ireduce_wait`] with `work` between the start and the wait.
pub fn ireduce_overlapped<C, T, O>(
    comm: &C,
    root: usize,
    send: &[T],
    recv: &mut [T],
    op: O,
    work: impl FnOnce(),
) where
    C: Communicator,
    T: Equivalence,
    O: Operation,
{
    let root_process = comm.process_at_rank(root as i32);
    scope(|sc| match comm.rank() as usize == root {
        true => {
            let request = root_process.immediate_reduce_into_root(sc, send, recv, op);
            work();
            request.wait_without_status()
        }
        false => {
            let request = root_process.immediate_reduce_into(sc, send, op);
            work();
            request.wait_without_status()
        }
    })
}

/// `MPI_Igather` of every process's `send` into `recv` on `root`, waited
/// for at once.
pub fn igather_wait<C, T>(comm: &C, root: usize, send: &[T], recv: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    igather_overlapped(comm, root, send, recv, || {})
}

/// [`igather_wait`] with `work` between the start and the wait.
pub fn igather_overlapped<C, T>(
    comm: &C,
    root: usize,
    send: &[T],
    recv: &mut [T],
    work: impl FnOnce(),
) where
    C: Communicator,
    T: Equivalence,
{
    let root_process = comm.process_at_rank(root as i32);
    scope(|sc| match comm.rank() as usize == root {
        true => {
            let request = root_process.immediate_gather_into_root(sc, send, recv);
            work();
            request.wait_without_status()
        }
        false => {
            let request = root_process.immediate_gather_into(sc, send);
            work();
            request.wait_without_status()
        }
    })
}

/// `MPI_Ibcast` of `buffer` from `root`, waited for at once.
pub fn ibcast_wait<C, T>(comm: &C, root: usize, buffer: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    ibcast_overlapped(comm, root, buffer, || {})
}

/// [`ibcast_wait`] with `work` between the start and the wait.
pub fn ibcast_overlapped<C, T>(comm: &C, root: usize, buffer: &mut [T], work: impl FnOnce())
where
    C: Communicator,
    T: Equivalence,
{
    let root_process = comm.process_at_rank(root as i32);
    scope(|sc| {
        let request = root_process.immediate_broadcast_into(sc, buffer);
        work();
        request.wait_without_status()
    })
}

/// `MPI_Iscatter` of `send`, read on `root`, into every process's `recv`,
/// waited for at once.
pub fn iscatter_wait<C, T>(comm: &C, root: usize, send: &[T], recv: &mut [T])
where
    C: Communicator,
    T: Equivalence,
{
    iscatter_overlapped(comm, root, send, recv, || {})
}

/// [`iscatter_wait`] with `work` between the start and the wait.
pub fn iscatter_overlapped<C, T>(
    comm: &C,
    root: usize,
    send: &[T],
    recv: &mut [T],
    work: impl FnOnce(),
) where
    C: Communicator,
    T: Equivalence,
{
    let root_process = comm.process_at_rank(root as i32);
    scope(|sc| match comm.rank() as usize == root {
        true => {
            let request = root_process.immediate_scatter_into_root(sc, send, recv);
            work();
            request.wait_without_status()
        }
        false => {
            let request = root_process.immediate_scatter_into(sc, recv);
            work();
            request.wait_without_status()
        }
    })
}
