//! Competitors of the mock-up family: each collective re-expressed with
//! other MPI collectives (the `mockups` crate). Guidelines are named by
//! PGMPI's GL numbers where one exists, else by the rule of Träff, Gropp
//! and Thakur (TGT) or MPINPC's guideline.

use super::{Competitor, Family, NotApplicable, Run, Setup};
use crate::collective::Collective;
use crate::element::Element;
use mockups::{
    allgather, allreduce, alltoall, bcast, exscan, gather, reduce, reduce_scatter,
    reduce_scatter_block, scan, scatter,
};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;

const fn mockup(
    name: &'static str,
    collective: Collective,
    guideline: &'static str,
    description: &'static str,
) -> Competitor {
    Competitor::of(Family::Mockup, name, collective, guideline, description)
}

pub const COMPETITORS: &[Competitor] = &[
    mockup(
        "allgather_as_allgatherv",
        Collective::Allgather,
        "TGT (18): Allgather ⪯ Allgatherv",
        "MPI_Allgatherv with equal blocks",
    ),
    mockup(
        "allgather_as_allreduce",
        Collective::Allgather,
        "GL6: Allgather ⪯ Allreduce",
        "MPI_Allreduce (BOR on bytes) of a zeroed p-block buffer holding the own block",
    ),
    mockup(
        "allgather_as_alltoall",
        Collective::Allgather,
        "GL5: Allgather ⪯ Alltoall",
        "MPI_Alltoall of p copies of the own block",
    ),
    mockup(
        "allgather_as_gather_bcast",
        Collective::Allgather,
        "GL11: Allgather ⪯ Gather + Bcast",
        "MPI_Gather to rank 0, then MPI_Bcast of all blocks",
    ),
    mockup(
        "allreduce_as_reduce_bcast",
        Collective::Allreduce,
        "GL12: Allreduce ⪯ Reduce + Bcast",
        "MPI_Reduce to rank 0, then MPI_Bcast",
    ),
    mockup(
        "allreduce_as_reducescatterblock_allgather",
        Collective::Allreduce,
        "GL13: Allreduce ⪯ Reduce_scatter_block + Allgather",
        "MPI_Reduce_scatter_block (vector padded to p blocks), then MPI_Allgather",
    ),
    mockup(
        "allreduce_as_reducescatter_allgatherv",
        Collective::Allreduce,
        "TGT (16): Allreduce ⪯ Reduce_scatter + Allgatherv",
        "MPI_Reduce_scatter in near-equal blocks, then MPI_Allgatherv",
    ),
    mockup(
        "alltoall_as_alltoallv",
        Collective::Alltoall,
        "TGT (18): Alltoall ⪯ Alltoallv",
        "MPI_Alltoallv with equal blocks",
    ),
    mockup(
        "bcast_as_allgatherv",
        Collective::Bcast,
        "MPINPC GL1: Bcast ⪯ Allgatherv",
        "MPI_Allgatherv to which only the root contributes",
    ),
    mockup(
        "bcast_as_scatter_allgather",
        Collective::Bcast,
        "GL10: Bcast ⪯ Scatter + Allgather",
        "MPI_Scatter then MPI_Allgather (Scatterv + Allgatherv when p does not divide the size)",
    ),
    mockup(
        "gather_as_allgather",
        Collective::Gather,
        "GL3: Gather ⪯ Allgather",
        "MPI_Allgather",
    ),
    mockup(
        "gather_as_gatherv",
        Collective::Gather,
        "TGT (18): Gather ⪯ Gatherv",
        "MPI_Gatherv with equal blocks",
    ),
    mockup(
        "gather_as_reduce",
        Collective::Gather,
        "GL4: Gather ⪯ Reduce",
        "MPI_Reduce (BOR on bytes) of a zeroed p-block buffer holding the own block",
    ),
    mockup(
        "reduce_as_allreduce",
        Collective::Reduce,
        "GL8: Reduce ⪯ Allreduce",
        "MPI_Allreduce",
    ),
    mockup(
        "reduce_as_reducescatterblock_gather",
        Collective::Reduce,
        "GL14: Reduce ⪯ Reduce_scatter_block + Gather",
        "MPI_Reduce_scatter_block (vector padded to p blocks), then MPI_Gather",
    ),
    mockup(
        "reduce_as_reducescatter_gatherv",
        Collective::Reduce,
        "TGT (15): Reduce ⪯ Reduce_scatter + Gatherv",
        "MPI_Reduce_scatter in near-equal blocks, then MPI_Gatherv",
    ),
    mockup(
        "reduce_as_reducescatter",
        Collective::Reduce,
        "TGT (14): Reduce ⪯ Reduce_scatter",
        "MPI_Reduce_scatter with the whole vector to the root",
    ),
    mockup(
        "reducescatterblock_as_reduce_scatter",
        Collective::ReduceScatterBlock,
        "GL15: Reduce_scatter_block ⪯ Reduce + Scatter",
        "MPI_Reduce to rank 0, then MPI_Scatter",
    ),
    mockup(
        "reducescatterblock_as_reducescatter",
        Collective::ReduceScatterBlock,
        "TGT (18): Reduce_scatter_block ⪯ Reduce_scatter",
        "MPI_Reduce_scatter with equal counts",
    ),
    mockup(
        "reducescatterblock_as_allreduce",
        Collective::ReduceScatterBlock,
        "GL9: Reduce_scatter_block ⪯ Allreduce",
        "MPI_Allreduce of all blocks, then a copy of the own block",
    ),
    mockup(
        "reducescatter_as_allreduce",
        Collective::ReduceScatter,
        "GL9: Reduce_scatter ⪯ Allreduce",
        "MPI_Allreduce, then a copy of the own block",
    ),
    mockup(
        "reducescatter_as_reduce_scatterv",
        Collective::ReduceScatter,
        "GL17: Reduce_scatter ⪯ Reduce + Scatterv",
        "MPI_Reduce to rank 0, then MPI_Scatterv",
    ),
    mockup(
        "scan_as_exscan_reducelocal",
        Collective::Scan,
        "GL16: Scan ⪯ Exscan + Reduce_local",
        "MPI_Exscan, then MPI_Reduce_local of the prefix with the own vector",
    ),
    mockup(
        "exscan_as_scan",
        Collective::Exscan,
        "TGT §4 metarule: Exscan ⪯ Scan + Sendrecv",
        "MPI_Scan, then a shift of the inclusive prefixes one rank up",
    ),
    mockup(
        "exscan_as_allgather_reducelocal",
        Collective::Exscan,
        "TGT §4 metarule: Exscan ⪯ Allgather + Reduce_local",
        "MPI_Allgather, then a rank-order fold of the lower ranks' vectors",
    ),
    mockup(
        "scatter_as_bcast",
        Collective::Scatter,
        "GL7: Scatter ⪯ Bcast",
        "MPI_Bcast of all p blocks, then a copy of the own block",
    ),
    mockup(
        "scatter_as_scatterv",
        Collective::Scatter,
        "TGT (18): Scatter ⪯ Scatterv",
        "MPI_Scatterv with equal blocks",
    ),
];

/// How a prepared mock-up runs: `(mock-up, comm, send, recv, op)`.
type Call<M, T> = fn(&mut M, &SimpleCommunicator, &[T], &mut [T], SystemOperation);

fn boxed<T: Element, M: 'static>(setup: &Setup, mut mockup: M, call: Call<M, T>) -> Run<T> {
    let comm = setup.comm.clone();
    let op = setup.op;
    Box::new(move |send, recv| call(&mut mockup, &comm, send, recv, op))
}

/// A [`Run`] of a mock-up: its `run` takes `(comm, send, recv)`, with `op`
/// also the operator, with `recv_only` just `(comm, recv)` (bcast).
macro_rules! call {
    ($setup:expr, $mockup:expr) => {
        boxed($setup, $mockup, |x, c, s, r, _| x.run(c, s, r))
    };
    ($setup:expr, $mockup:expr, op) => {
        boxed($setup, $mockup, |x, c, s, r, op| x.run(c, s, r, op))
    };
    ($setup:expr, $mockup:expr, recv_only) => {
        boxed($setup, $mockup, |x, c, _, r, _| x.run(c, r))
    };
}

/// Prepares the mock-up `name` for `setup.shape`. Every mock-up keeps the
/// rank order of its reductions, so none needs a commutative operator.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Run<T>, NotApplicable> {
    let comm = &*setup.comm;
    let (m, root) = (setup.shape.count, setup.shape.root);
    let run = match name {
        "allgather_as_allgatherv" => call!(setup, allgather::AsAllgatherv::new(comm, m)),
        "allgather_as_allreduce" => call!(setup, allgather::AsAllreduce::new(comm, m)),
        "allgather_as_alltoall" => call!(setup, allgather::AsAlltoall::new(comm, m)),
        "allgather_as_gather_bcast" => call!(setup, allgather::GatherBcast::new(comm, m)),
        "allreduce_as_reduce_bcast" => call!(setup, allreduce::ReduceBcast::new(comm, m), op),
        "allreduce_as_reducescatterblock_allgather" => {
            call!(
                setup,
                allreduce::ReduceScatterBlockAllgather::new(comm, m),
                op
            )
        }
        "allreduce_as_reducescatter_allgatherv" => {
            call!(setup, allreduce::ReduceScatterAllgatherv::new(comm, m), op)
        }
        "alltoall_as_alltoallv" => call!(setup, alltoall::AsAlltoallv::new(comm, m)),
        "bcast_as_allgatherv" => call!(setup, bcast::AsAllgatherv::new(comm, m, root), recv_only),
        "bcast_as_scatter_allgather" => {
            call!(
                setup,
                bcast::ScatterAllgather::new(comm, m, root),
                recv_only
            )
        }
        "gather_as_allgather" => call!(setup, gather::AsAllgather::new(comm, m, root)),
        "gather_as_gatherv" => call!(setup, gather::AsGatherv::new(comm, m, root)),
        "gather_as_reduce" => call!(setup, gather::AsReduce::new(comm, m, root)),
        "reduce_as_allreduce" => call!(setup, reduce::AsAllreduce::new(comm, m, root), op),
        "reduce_as_reducescatterblock_gather" => {
            call!(
                setup,
                reduce::ReduceScatterBlockGather::new(comm, m, root),
                op
            )
        }
        "reduce_as_reducescatter_gatherv" => {
            call!(setup, reduce::ReduceScatterGatherv::new(comm, m, root), op)
        }
        "reduce_as_reducescatter" => call!(setup, reduce::AsReduceScatter::new(comm, m, root), op),
        "reducescatterblock_as_reduce_scatter" => {
            call!(setup, reduce_scatter_block::ReduceScatter::new(comm, m), op)
        }
        "reducescatterblock_as_reducescatter" => {
            call!(
                setup,
                reduce_scatter_block::AsReduceScatter::new(comm, m),
                op
            )
        }
        "reducescatterblock_as_allreduce" => {
            call!(setup, reduce_scatter_block::AsAllreduce::new(comm, m), op)
        }
        "reducescatter_as_allreduce" => call!(setup, reduce_scatter::AsAllreduce::new(comm, m), op),
        "reducescatter_as_reduce_scatterv" => {
            call!(setup, reduce_scatter::ReduceScatterv::new(comm, m), op)
        }
        "scan_as_exscan_reducelocal" => call!(setup, scan::ExscanReduceLocal::new(comm, m), op),
        "exscan_as_scan" => call!(setup, exscan::ScanShift::new(comm, m), op),
        "exscan_as_allgather_reducelocal" => {
            call!(setup, exscan::AllgatherReduceLocal::new(comm, m), op)
        }
        "scatter_as_bcast" => call!(setup, scatter::AsBcast::new(comm, m, root)),
        "scatter_as_scatterv" => call!(setup, scatter::AsScatterv::new(comm, m, root)),
        _ => return Err(NotApplicable(format!("{name} is not a mock-up"))),
    };
    Ok(run)
}
