//! Competitors of the circulant family: the circulant-graph algorithms of
//! `algorithms::circulant` (Träff, Hunold, Vardas, Funk, CLUSTER 2023, and
//! Träff's round-optimal n-block broadcast).

use algorithms::circulant;

competitors! {
    family: Circulant,
    prepare<T>(name, setup) {
        let shape = &setup.shape;
        if shape.collective.is_reduction() && !setup.commutative {
            return Err(super::NotApplicable(format!(
                "{name}: the circulant algorithms combine blocks in an order that depends on \
                 the rank and need a commutative operator"
            )));
        }
        let comm = &*setup.comm;
        let (count, root, op) = (shape.count, shape.root, setup.op);
    }
    "allgather_as_allgather_circulant" for Allgather {
        guideline: "MPI_Allgather ⪯ circulant allgather (MPINPC)",
        description: "q = ⌈log2 p⌉ rounds over the skips, blocks rotated to the process, then rotated back",
        call: call!(setup.comm, circulant::Allgather::new(comm, count)),
    }
    "allreduce_as_allreduce_circulant" for Allreduce {
        guideline: "MPI_Allreduce ⪯ circulant allreduce (MPINPC)",
        description: "circulant reduce-scatter then circulant allgather of p blocks, 2q rounds",
        call: call!(setup.comm, circulant::Allreduce::new(comm, count), op),
    }
    "reduce_as_reduce_circulant" for Reduce {
        guideline: "MPI_Reduce ⪯ circulant reduce (MPINPC)",
        description: "circulant reduce-scatter then circulant gather of p blocks to the root, 2q rounds",
        call: call!(setup.comm, circulant::Reduce::new(comm, count, root), op),
    }
    "reducescatterblock_as_reducescatterblock_circulant" for ReduceScatterBlock {
        guideline: "MPI_Reduce_scatter_block ⪯ circulant reduce_scatter_block (MPINPC)",
        description: "q rounds over the skips, halving the rotated vector and combining each round",
        call: call!(setup.comm, circulant::ReduceScatterBlock::new(comm, count), op),
    }
    "reducescatter_as_reducescatter_circulant" for ReduceScatter {
        guideline: "MPI_Reduce_scatter ⪯ circulant reduce_scatter (MPINPC)",
        description: "the circulant reduce-scatter on irregular blocks, q rounds",
        call: call!(setup.comm, circulant::ReduceScatter::new(comm, &shape.counts), op),
    }
    "bcast_as_bcast_circulant" for Bcast {
        guideline: "MPI_Bcast ⪯ circulant bcast (MPINPC)",
        description: "circulant scatter of p blocks then circulant allgather, 2q rounds",
        call: call!(setup.comm, circulant::Bcast::new(comm, count, root), recv_only),
    }
    "bcast_as_bcast_circulant_nblock" for Bcast {
        guideline: "MPI_Bcast ⪯ round-optimal circulant n-block bcast (MPINPC)",
        description: "n blocks pipelined on the circulant graph in n − 1 + q rounds; n = √((q−1)·bytes/8 KiB) in [1, 512] unless tuned",
        call: {
            let blocks = setup.tuning.nblock_blocks.unwrap_or_else(|| {
                circulant::schedule::nblock_blocks(count * std::mem::size_of::<T>(), shape.size)
            });
            call!(setup.comm, circulant::BcastNBlock::new(comm, count, root, blocks), recv_only)
        },
    }
    "scatter_as_scatter_circulant" for Scatter {
        guideline: "MPI_Scatter ⪯ circulant scatter (MPINPC)",
        description: "q rounds: every holder hands the upper part of its range s_k ranks ahead",
        call: call!(setup.comm, circulant::Scatter::new(comm, count, root)),
    }
    "gather_as_gather_circulant" for Gather {
        guideline: "MPI_Gather ⪯ circulant gather (MPINPC)",
        description: "the circulant scatter reversed, q rounds",
        call: call!(setup.comm, circulant::Gather::new(comm, count, root)),
    }
}
