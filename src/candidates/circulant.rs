//! Competitors of the circulant family: the circulant-graph algorithms of
//! `algorithms::circulant` (Träff, Hunold, Vardas, Funk, CLUSTER 2023, and
//! Träff's round-optimal n-block broadcast).

use super::{Competitor, Family, NotApplicable, Run, Setup};
use crate::collective::Collective;
use crate::element::Element;
use algorithms::circulant;

/// A circulant competitor of `collective`.
const fn circulant(
    name: &'static str,
    collective: Collective,
    guideline: &'static str,
    description: &'static str,
) -> Competitor {
    Competitor::of(Family::Circulant, name, collective, guideline, description)
}

pub const COMPETITORS: &[Competitor] = &[
    circulant(
        "allgather_as_allgather_circulant",
        Collective::Allgather,
        "MPI_Allgather ⪯ circulant allgather (MPINPC)",
        "q = ⌈log2 p⌉ rounds over the skips, blocks rotated to the process, then rotated back",
    ),
    circulant(
        "allreduce_as_allreduce_circulant",
        Collective::Allreduce,
        "MPI_Allreduce ⪯ circulant allreduce (MPINPC)",
        "circulant reduce-scatter then circulant allgather of p blocks, 2q rounds",
    ),
    circulant(
        "reduce_as_reduce_circulant",
        Collective::Reduce,
        "MPI_Reduce ⪯ circulant reduce (MPINPC)",
        "circulant reduce-scatter then circulant gather of p blocks to the root, 2q rounds",
    ),
    circulant(
        "reducescatterblock_as_reducescatterblock_circulant",
        Collective::ReduceScatterBlock,
        "MPI_Reduce_scatter_block ⪯ circulant reduce_scatter_block (MPINPC)",
        "q rounds over the skips, halving the rotated vector and combining each round",
    ),
    circulant(
        "reducescatter_as_reducescatter_circulant",
        Collective::ReduceScatter,
        "MPI_Reduce_scatter ⪯ circulant reduce_scatter (MPINPC)",
        "the circulant reduce-scatter on irregular blocks, q rounds",
    ),
    circulant(
        "bcast_as_bcast_circulant",
        Collective::Bcast,
        "MPI_Bcast ⪯ circulant bcast (MPINPC)",
        "circulant scatter of p blocks then circulant allgather, 2q rounds",
    ),
    circulant(
        "bcast_as_bcast_circulant_nblock",
        Collective::Bcast,
        "MPI_Bcast ⪯ round-optimal circulant n-block bcast (MPINPC)",
        "n blocks pipelined on the circulant graph in n − 1 + q rounds; n = √((q−1)·bytes/8 KiB) in [1, 512] unless tuned",
    ),
    circulant(
        "scatter_as_scatter_circulant",
        Collective::Scatter,
        "MPI_Scatter ⪯ circulant scatter (MPINPC)",
        "q rounds: every holder hands the upper part of its range s_k ranks ahead",
    ),
    circulant(
        "gather_as_gather_circulant",
        Collective::Gather,
        "MPI_Gather ⪯ circulant gather (MPINPC)",
        "the circulant scatter reversed, q rounds",
    ),
];

/// Prepares the circulant competitor `name` of `setup.shape.collective`.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Run<T>, NotApplicable> {
    let shape = &setup.shape;
    if shape.collective.is_reduction() && !setup.commutative {
        return Err(NotApplicable(format!(
            "{name}: the circulant algorithms combine blocks in an order that depends on \
             the rank and need a commutative operator"
        )));
    }
    let comm = setup.comm.clone();
    let (count, root, op) = (shape.count, shape.root, setup.op);
    let run: Run<T> = match name {
        "allgather_as_allgather_circulant" => {
            let mut algorithm = circulant::Allgather::new(&*comm, count);
            Box::new(move |s, r| algorithm.run(&*comm, s, r))
        }
        "allreduce_as_allreduce_circulant" => {
            let mut algorithm = circulant::Allreduce::new(&*comm, count);
            Box::new(move |s, r| algorithm.run(&*comm, s, r, op))
        }
        "reduce_as_reduce_circulant" => {
            let mut algorithm = circulant::Reduce::new(&*comm, count, root);
            Box::new(move |s, r| algorithm.run(&*comm, s, r, op))
        }
        "reducescatterblock_as_reducescatterblock_circulant" => {
            let mut algorithm = circulant::ReduceScatterBlock::new(&*comm, count);
            Box::new(move |s, r| algorithm.run(&*comm, s, r, op))
        }
        "reducescatter_as_reducescatter_circulant" => {
            let mut algorithm = circulant::ReduceScatter::new(&*comm, &shape.counts);
            Box::new(move |s, r| algorithm.run(&*comm, s, r, op))
        }
        "bcast_as_bcast_circulant" => {
            let mut algorithm = circulant::Bcast::new(&*comm, count, root);
            Box::new(move |_, r| algorithm.run(&*comm, r))
        }
        "bcast_as_bcast_circulant_nblock" => {
            let blocks = setup.tuning.nblock_blocks.unwrap_or_else(|| {
                circulant::schedule::nblock_blocks(count * std::mem::size_of::<T>(), shape.size)
            });
            let mut algorithm = circulant::BcastNBlock::new(&*comm, count, root, blocks);
            Box::new(move |_, r| algorithm.run(&*comm, r))
        }
        "scatter_as_scatter_circulant" => {
            let mut algorithm = circulant::Scatter::new(&*comm, count, root);
            Box::new(move |s, r| algorithm.run(&*comm, s, r))
        }
        "gather_as_gather_circulant" => {
            let mut algorithm = circulant::Gather::new(&*comm, count, root);
            Box::new(move |s, r| algorithm.run(&*comm, s, r))
        }
        _ => {
            return Err(NotApplicable(format!(
                "{name} is not a circulant competitor"
            )))
        }
    };
    Ok(run)
}
