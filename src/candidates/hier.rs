//! Competitors of the hier family: hierarchical, leader-based decompositions
//! (node step, leaders' step on a lane, node step) from `algorithms::hier`.

use algorithms::hier;

competitors! {
    family: Hier,
    prepare<T>(name, setup) {
        let topology = super::topology(setup)?;
        let (count, root, op) = (setup.shape.count, setup.shape.root, setup.op);
    }
    "allgather_as_allgather_hier" for Allgather {
        guideline: "GL3 (MPINPC): MPI_Allgather ⪯ hierarchical allgather",
        description: "gather on each node, allgather among node leaders, bcast on each node",
        call: call!(topology, hier::Allgather::new(&topology, count)),
    }
    "allreduce_as_allreduce_hier" for Allreduce {
        guideline: "GL3 (MPINPC): MPI_Allreduce ⪯ hierarchical allreduce",
        description: "reduce on each node, allreduce among node leaders, bcast on each node",
        call: call!(topology, hier::Allreduce::new(&topology, count), op),
    }
    "bcast_as_bcast_hier" for Bcast {
        guideline: "GL3 (MPINPC): MPI_Bcast ⪯ hierarchical bcast",
        description: "bcast among the root's lane of node leaders, then bcast on each node",
        call: call!(topology, hier::Bcast::new(&topology, count, root), recv_only),
    }
    "gather_as_gather_hier" for Gather {
        guideline: "GL3 (MPINPC): MPI_Gather ⪯ hierarchical gather",
        description: "gather on each node to the root's lane, gather of node blocks to the root",
        call: call!(topology, hier::Gather::new(&topology, count, root)),
    }
    "reduce_as_reduce_hier" for Reduce {
        guideline: "GL3 (MPINPC): MPI_Reduce ⪯ hierarchical reduce",
        description: "reduce on each node to the root's lane, reduce of node results to the root",
        call: call!(topology, hier::Reduce::new(&topology, count, root), op),
    }
    "reducescatterblock_as_reducescatterblock_hier" for ReduceScatterBlock {
        guideline: "GL3 (MPINPC): MPI_Reduce_scatter_block ⪯ hierarchical reduce_scatter_block",
        description: "reduce on each node, reduce_scatter_block among node leaders, scatter on each node",
        call: call!(topology, hier::ReduceScatterBlock::new(&topology, count), op),
    }
    "scan_as_scan_hier" for Scan {
        guideline: "GL3 (MPINPC): MPI_Scan ⪯ hierarchical scan",
        description: "scan on each node, exscan of node totals among leaders, bcast and combine on each node",
        call: call!(topology, hier::Scan::new(&topology, count), op),
    }
    "exscan_as_exscan_hier" for Exscan {
        guideline: "GL3 (MPINPC): MPI_Exscan ⪯ hierarchical exscan",
        description: "exscan on each node, exscan of node totals among leaders, bcast and combine on each node",
        call: call!(topology, hier::Exscan::new(&topology, count), op),
    }
    "scatter_as_scatter_hier" for Scatter {
        guideline: "GL3 (MPINPC): MPI_Scatter ⪯ hierarchical scatter",
        description: "scatter of node blocks from the root among the root's lane, scatter on each node",
        call: call!(topology, hier::Scatter::new(&topology, count, root)),
    }
}
