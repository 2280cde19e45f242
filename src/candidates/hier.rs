//! Competitors of the hier family: hierarchical, leader-based decompositions
//! (node step, leaders' step on a lane, node step) from `algorithms::hier`.

use super::{Competitor, Family, NotApplicable, Run, Setup};
use crate::collective::Collective;
use crate::element::Element;
use algorithms::hier;

/// A hier competitor of `collective`.
const fn hier(
    name: &'static str,
    collective: Collective,
    guideline: &'static str,
    description: &'static str,
) -> Competitor {
    Competitor::of(Family::Hier, name, collective, guideline, description)
}

pub const COMPETITORS: &[Competitor] = &[
    hier(
        "allgather_as_allgather_hier",
        Collective::Allgather,
        "GL3 (MPINPC): MPI_Allgather ⪯ hierarchical allgather",
        "gather on each node, allgather among node leaders, bcast on each node",
    ),
    hier(
        "allreduce_as_allreduce_hier",
        Collective::Allreduce,
        "GL3 (MPINPC): MPI_Allreduce ⪯ hierarchical allreduce",
        "reduce on each node, allreduce among node leaders, bcast on each node",
    ),
    hier(
        "bcast_as_bcast_hier",
        Collective::Bcast,
        "GL3 (MPINPC): MPI_Bcast ⪯ hierarchical bcast",
        "bcast among the root's lane of node leaders, then bcast on each node",
    ),
    hier(
        "gather_as_gather_hier",
        Collective::Gather,
        "GL3 (MPINPC): MPI_Gather ⪯ hierarchical gather",
        "gather on each node to the root's lane, gather of node blocks to the root",
    ),
    hier(
        "reduce_as_reduce_hier",
        Collective::Reduce,
        "GL3 (MPINPC): MPI_Reduce ⪯ hierarchical reduce",
        "reduce on each node to the root's lane, reduce of node results to the root",
    ),
    hier(
        "reducescatterblock_as_reducescatterblock_hier",
        Collective::ReduceScatterBlock,
        "GL3 (MPINPC): MPI_Reduce_scatter_block ⪯ hierarchical reduce_scatter_block",
        "reduce on each node, reduce_scatter_block among node leaders, scatter on each node",
    ),
    hier(
        "scan_as_scan_hier",
        Collective::Scan,
        "GL3 (MPINPC): MPI_Scan ⪯ hierarchical scan",
        "scan on each node, exscan of node totals among leaders, bcast and combine on each node",
    ),
    hier(
        "exscan_as_exscan_hier",
        Collective::Exscan,
        "GL3 (MPINPC): MPI_Exscan ⪯ hierarchical exscan",
        "exscan on each node, exscan of node totals among leaders, bcast and combine on each node",
    ),
    hier(
        "scatter_as_scatter_hier",
        Collective::Scatter,
        "GL3 (MPINPC): MPI_Scatter ⪯ hierarchical scatter",
        "scatter of node blocks from the root among the root's lane, scatter on each node",
    ),
];

/// Prepares the hier competitor `name` of `setup.shape.collective`: there is
/// one per collective, so the collective chooses the algorithm.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Run<T>, NotApplicable> {
    let topology = super::topology(setup)?;
    let shape = &setup.shape;
    let (count, root, op) = (shape.count, shape.root, setup.op);
    let t = topology.clone();
    let run: Run<T> = match shape.collective {
        Collective::Allgather => {
            let mut algorithm = hier::Allgather::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Allreduce => {
            let mut algorithm = hier::Allreduce::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Bcast => {
            let mut algorithm = hier::Bcast::new(&topology, count, root);
            Box::new(move |_, r| algorithm.run(&t, r))
        }
        Collective::Gather => {
            let mut algorithm = hier::Gather::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Reduce => {
            let mut algorithm = hier::Reduce::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::ReduceScatterBlock => {
            let mut algorithm = hier::ReduceScatterBlock::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Scan => {
            let mut algorithm = hier::Scan::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Exscan => {
            let mut algorithm = hier::Exscan::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Scatter => {
            let mut algorithm = hier::Scatter::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Alltoall | Collective::ReduceScatter => {
            return Err(NotApplicable(format!(
                "{name}: no hierarchical {} here",
                shape.collective
            )))
        }
    };
    Ok(run)
}
