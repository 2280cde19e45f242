//! Competitors of the lane family: lane decompositions (Träff & Hunold,
//! CLUSTER 2020) from `algorithms::lane`, MPINPC's GL2. They keep the rank
//! order of reductions, so they also apply to non-commutative operators.

use algorithms::lane;

competitors! {
    family: Lane,
    prepare<T>(name, setup) {
        let topology = super::topology(setup)?;
        let (count, root, op) = (setup.shape.count, setup.shape.root, setup.op);
    }
    "allgather_as_allgather_lane" for Allgather {
        guideline: "GL2 (MPINPC): MPI_Allgather ⪯ lane allgather",
        description: "allgather on every lane, allgather of the lane's blocks on each node, reorder",
        call: call!(topology, lane::Allgather::new(&topology, count)),
    }
    "allreduce_as_allreduce_lane" for Allreduce {
        guideline: "GL2 (MPINPC): MPI_Allreduce ⪯ lane allreduce",
        description: "reduce_scatter on each node, allreduce of each block on its lane, allgatherv on each node",
        call: call!(topology, lane::Allreduce::new(&topology, count), op),
    }
    "alltoall_as_alltoall_lane" for Alltoall {
        guideline: "GL2 (MPINPC): MPI_Alltoall ⪯ lane alltoall",
        description: "alltoall of node-bound blocks on every lane, reorder, alltoall on each node, reorder",
        call: call!(topology, lane::Alltoall::new(&topology, count)),
    }
    "bcast_as_bcast_lane" for Bcast {
        guideline: "GL2 (MPINPC): MPI_Bcast ⪯ lane bcast",
        description: "scatterv on the root's node, bcast of each block on its lane, allgatherv on each node",
        call: call!(topology, lane::Bcast::new(&topology, count, root), recv_only),
    }
    "gather_as_gather_lane" for Gather {
        guideline: "GL2 (MPINPC): MPI_Gather ⪯ lane gather",
        description: "gather on every lane to the root's node, gather of the lanes' blocks to the root, reorder",
        call: call!(topology, lane::Gather::new(&topology, count, root)),
    }
    "reduce_as_reduce_lane" for Reduce {
        guideline: "GL2 (MPINPC): MPI_Reduce ⪯ lane reduce",
        description: "reduce_scatter on each node, reduce of each block on its lane, gatherv to the root",
        call: call!(topology, lane::Reduce::new(&topology, count, root), op),
    }
    "reducescatterblock_as_reducescatterblock_lane" for ReduceScatterBlock {
        guideline: "GL2 (MPINPC): MPI_Reduce_scatter_block ⪯ lane reduce_scatter_block",
        description: "reorder, reduce_scatter_block of each lane's blocks on each node, then on every lane",
        call: call!(topology, lane::ReduceScatterBlock::new(&topology, count), op),
    }
    "scan_as_scan_lane" for Scan {
        guideline: "GL2 (MPINPC): MPI_Scan ⪯ lane scan",
        description: "scan on each node, exscan of the node totals' blocks on the lanes, allgatherv, combine",
        call: call!(topology, lane::Scan::new(&topology, count), op),
    }
    "exscan_as_exscan_lane" for Exscan {
        guideline: "GL2 (MPINPC): MPI_Exscan ⪯ lane exscan",
        description: "exscan on each node, exscan of the node totals' blocks on the lanes, allgatherv, combine",
        call: call!(topology, lane::Exscan::new(&topology, count), op),
    }
    "scatter_as_scatter_lane" for Scatter {
        guideline: "GL2 (MPINPC): MPI_Scatter ⪯ lane scatter",
        description: "reorder on the root, scatter of the lanes' blocks on its node, scatter on every lane",
        call: call!(topology, lane::Scatter::new(&topology, count, root)),
    }
}
