//! Competitors of the mock-up family: each collective re-expressed with
//! other MPI collectives (the `mockups` crate). Guidelines are named by
//! PGMPI's GL numbers (Hunold et al. 2016) where one exists, else by the
//! numbered rule of Träff, Gropp & Thakur (2007) or MPINPC's guideline
//! (Hunold 2023); docs/REFERENCES.md has the papers. Every mock-up keeps the rank
//! order of its reductions, so none needs a commutative operator; the
//! `_user_op` ones hand the library a commutative user-defined operator
//! (rule (17)), which the library may apply in any order, as it may the
//! built-in one.

use super::{NotApplicable, Setup};
use crate::element::Element;
use mockups::user_op::{Builtin, UserOp};
use mockups::{
    allgather, allreduce, alltoall, barrier, bcast, exscan, gather, reduce, reduce_scatter,
    reduce_scatter_block, scan, scatter,
};

/// The user-defined operator computing the case's built-in one on `T`,
/// made now (`MPI_Op_create`, outside the timed calls).
fn user_op<T: Element>(setup: &Setup) -> Result<UserOp<T>, NotApplicable> {
    let builtin = Builtin::of(&setup.op)
        .ok_or_else(|| NotApplicable("the operator is not an MPI built-in".to_string()))?;
    UserOp::new(builtin).ok_or_else(|| {
        NotApplicable(format!(
            "MPI defines no {builtin:?} on this datatype to compute with a user operator"
        ))
    })
}

competitors! {
    family: Mockup,
    prepare<T>(name, setup) {
        let comm = &*setup.comm;
        let (m, root, op) = (setup.shape.count, setup.shape.root, setup.op);
    }
    "allgather_as_allgatherv" for Allgather {
        guideline: "Träff et al. 2007 (18): Allgather ⪯ Allgatherv",
        description: "MPI_Allgatherv with equal blocks",
        call: call!(setup.comm, allgather::AsAllgatherv::new(comm, m)),
    }
    "allgather_as_allreduce" for Allgather {
        guideline: "GL6: Allgather ⪯ Allreduce",
        description: "MPI_Allreduce (BOR on bytes) of a zeroed p-block buffer holding the own block",
        call: call!(setup.comm, allgather::AsAllreduce::new(comm, m)),
    }
    "allgather_as_alltoall" for Allgather {
        guideline: "GL5: Allgather ⪯ Alltoall",
        description: "MPI_Alltoall of p copies of the own block",
        call: call!(setup.comm, allgather::AsAlltoall::new(comm, m)),
    }
    "allgather_as_gather_bcast" for Allgather {
        guideline: "GL11: Allgather ⪯ Gather + Bcast",
        description: "MPI_Gather to rank 0, then MPI_Bcast of all blocks",
        call: call!(setup.comm, allgather::GatherBcast::new(comm, m)),
    }
    "barrier_as_allreduce" for Barrier {
        guideline: "Barrier ⪯ Allreduce of one integer",
        description: "MPI_Allreduce of one int (MPI_SUM): none has the sum before all entered",
        call: { let (comm, mut barrier) = (setup.comm.clone(), barrier::Allreduce); Box::new(move |_, _| barrier.run(&*comm)) },
    }
    "allreduce_as_reduce_bcast" for Allreduce {
        guideline: "GL12: Allreduce ⪯ Reduce + Bcast",
        description: "MPI_Reduce to rank 0, then MPI_Bcast",
        call: call!(setup.comm, allreduce::ReduceBcast::new(comm, m), op),
    }
    "allreduce_as_reducescatterblock_allgather" for Allreduce {
        guideline: "GL13: Allreduce ⪯ Reduce_scatter_block + Allgather",
        description: "MPI_Reduce_scatter_block (vector padded to p blocks), then MPI_Allgather",
        call: call!(setup.comm, allreduce::ReduceScatterBlockAllgather::new(comm, m), op),
    }
    "allreduce_as_allreduce_user_op" for Allreduce {
        guideline: "Träff et al. 2007 (17): Allreduce(built-in op) ⪯ Allreduce(user-defined op)",
        description: "MPI_Allreduce with a commutative MPI_Op_create operator computing the built-in one",
        call: call!(setup.comm, allreduce::WithUserOp::new(comm, m, user_op::<T>(setup)?)),
    }
    "allreduce_as_reducescatter_allgatherv" for Allreduce {
        guideline: "Träff et al. 2007 (16): Allreduce ⪯ Reduce_scatter + Allgatherv",
        description: "MPI_Reduce_scatter in near-equal blocks, then MPI_Allgatherv",
        call: call!(setup.comm, allreduce::ReduceScatterAllgatherv::new(comm, m), op),
    }
    "alltoall_as_alltoallv" for Alltoall {
        guideline: "Träff et al. 2007 (18): Alltoall ⪯ Alltoallv",
        description: "MPI_Alltoallv with equal blocks",
        call: call!(setup.comm, alltoall::AsAlltoallv::new(comm, m)),
    }
    "bcast_as_allgatherv" for Bcast {
        guideline: "MPINPC GL1: Bcast ⪯ Allgatherv",
        description: "MPI_Allgatherv to which only the root contributes",
        call: call!(setup.comm, bcast::AsAllgatherv::new(comm, m, root), recv_only),
    }
    "bcast_as_scatter_allgather" for Bcast {
        guideline: "GL10: Bcast ⪯ Scatter + Allgather",
        description: "MPI_Scatter then MPI_Allgather (Scatterv + Allgatherv when p does not divide the size)",
        call: call!(setup.comm, bcast::ScatterAllgather::new(comm, m, root), recv_only),
    }
    "gather_as_allgather" for Gather {
        guideline: "GL3: Gather ⪯ Allgather",
        description: "MPI_Allgather",
        call: call!(setup.comm, gather::AsAllgather::new(comm, m, root)),
    }
    "gather_as_gatherv" for Gather {
        guideline: "Träff et al. 2007 (18): Gather ⪯ Gatherv",
        description: "MPI_Gatherv with equal blocks",
        call: call!(setup.comm, gather::AsGatherv::new(comm, m, root)),
    }
    "gather_as_reduce" for Gather {
        guideline: "GL4: Gather ⪯ Reduce",
        description: "MPI_Reduce (BOR on bytes) of a zeroed p-block buffer holding the own block",
        call: call!(setup.comm, gather::AsReduce::new(comm, m, root)),
    }
    "reduce_as_allreduce" for Reduce {
        guideline: "GL8: Reduce ⪯ Allreduce",
        description: "MPI_Allreduce",
        call: call!(setup.comm, reduce::AsAllreduce::new(comm, m, root), op),
    }
    "reduce_as_reduce_user_op" for Reduce {
        guideline: "Träff et al. 2007 (17): Reduce(built-in op) ⪯ Reduce(user-defined op)",
        description: "MPI_Reduce with a commutative MPI_Op_create operator computing the built-in one",
        call: call!(setup.comm, reduce::WithUserOp::new(comm, m, root, user_op::<T>(setup)?)),
    }
    "reduce_as_reducescatterblock_gather" for Reduce {
        guideline: "GL14: Reduce ⪯ Reduce_scatter_block + Gather",
        description: "MPI_Reduce_scatter_block (vector padded to p blocks), then MPI_Gather",
        call: call!(setup.comm, reduce::ReduceScatterBlockGather::new(comm, m, root), op),
    }
    "reduce_as_reducescatter_gatherv" for Reduce {
        guideline: "Träff et al. 2007 (15): Reduce ⪯ Reduce_scatter + Gatherv",
        description: "MPI_Reduce_scatter in near-equal blocks, then MPI_Gatherv",
        call: call!(setup.comm, reduce::ReduceScatterGatherv::new(comm, m, root), op),
    }
    "reduce_as_reducescatter" for Reduce {
        guideline: "Träff et al. 2007 (14): Reduce ⪯ Reduce_scatter",
        description: "MPI_Reduce_scatter with the whole vector to the root",
        call: call!(setup.comm, reduce::AsReduceScatter::new(comm, m, root), op),
    }
    "reducescatterblock_as_reduce_scatter" for ReduceScatterBlock {
        guideline: "GL15: Reduce_scatter_block ⪯ Reduce + Scatter",
        description: "MPI_Reduce to rank 0, then MPI_Scatter",
        call: call!(setup.comm, reduce_scatter_block::ReduceScatter::new(comm, m), op),
    }
    "reducescatterblock_as_reducescatter" for ReduceScatterBlock {
        guideline: "Träff et al. 2007 (18): Reduce_scatter_block ⪯ Reduce_scatter",
        description: "MPI_Reduce_scatter with equal counts",
        call: call!(setup.comm, reduce_scatter_block::AsReduceScatter::new(comm, m), op),
    }
    "reducescatterblock_as_allreduce" for ReduceScatterBlock {
        guideline: "GL9: Reduce_scatter_block ⪯ Allreduce",
        description: "MPI_Allreduce of all blocks, then a copy of the own block",
        call: call!(setup.comm, reduce_scatter_block::AsAllreduce::new(comm, m), op),
    }
    "reducescatterblock_as_reducescatterblock_user_op" for ReduceScatterBlock {
        guideline: "Träff et al. 2007 (17): Reduce_scatter_block(built-in op) ⪯ Reduce_scatter_block(user-defined op)",
        description: "MPI_Reduce_scatter_block with a commutative MPI_Op_create operator computing the built-in one",
        call: call!(setup.comm, reduce_scatter_block::WithUserOp::new(comm, m, user_op::<T>(setup)?)),
    }
    "reducescatter_as_allreduce" for ReduceScatter {
        guideline: "GL9: Reduce_scatter ⪯ Allreduce",
        description: "MPI_Allreduce, then a copy of the own block",
        call: call!(setup.comm, reduce_scatter::AsAllreduce::new(comm, m), op),
    }
    "reducescatter_as_reduce_scatterv" for ReduceScatter {
        guideline: "GL17: Reduce_scatter ⪯ Reduce + Scatterv",
        description: "MPI_Reduce to rank 0, then MPI_Scatterv",
        call: call!(setup.comm, reduce_scatter::ReduceScatterv::new(comm, m), op),
    }
    "scan_as_exscan_reducelocal" for Scan {
        guideline: "GL16: Scan ⪯ Exscan + Reduce_local",
        description: "MPI_Exscan, then MPI_Reduce_local of the prefix with the own vector",
        call: call!(setup.comm, scan::ExscanReduceLocal::new(comm, m), op),
    }
    "scan_as_scan_user_op" for Scan {
        guideline: "Träff et al. 2007 (17): Scan(built-in op) ⪯ Scan(user-defined op)",
        description: "MPI_Scan with a commutative MPI_Op_create operator computing the built-in one",
        call: call!(setup.comm, scan::WithUserOp::new(comm, m, user_op::<T>(setup)?)),
    }
    "exscan_as_scan" for Exscan {
        guideline: "Träff et al. 2007 §4 metarule: Exscan ⪯ Scan + Sendrecv",
        description: "MPI_Scan, then a shift of the inclusive prefixes one rank up",
        call: call!(setup.comm, exscan::ScanShift::new(comm, m), op),
    }
    "exscan_as_allgather_reducelocal" for Exscan {
        guideline: "Träff et al. 2007 §4 metarule: Exscan ⪯ Allgather + Reduce_local",
        description: "MPI_Allgather, then a rank-order fold of the lower ranks' vectors",
        call: call!(setup.comm, exscan::AllgatherReduceLocal::new(comm, m), op),
    }
    "scatter_as_bcast" for Scatter {
        guideline: "GL7: Scatter ⪯ Bcast",
        description: "MPI_Bcast of all p blocks, then a copy of the own block",
        call: call!(setup.comm, scatter::AsBcast::new(comm, m, root)),
    }
    "scatter_as_allgather" for Scatter {
        guideline: "Träff et al. 2007 (8): Scatter ⪯ Allgather",
        description: "MPI_Allgather of the root's p blocks (every process contributes p blocks, only the root's are read), then a copy of the own block",
        call: call!(setup.comm, scatter::AsAllgather::new(comm, m, root)),
    }
    "scatter_as_scatterv" for Scatter {
        guideline: "Träff et al. 2007 (18): Scatter ⪯ Scatterv",
        description: "MPI_Scatterv with equal blocks",
        call: call!(setup.comm, scatter::AsScatterv::new(comm, m, root)),
    }
}
