//! Competitors of the lane family: lane decompositions (Träff & Hunold,
//! CLUSTER 2020) from `algorithms::lane`, MPINPC's GL2. They keep the rank
//! order of reductions, so they also apply to non-commutative operators.

use super::{Competitor, Family, NotApplicable, Run, Setup};
use crate::collective::Collective;
use crate::element::Element;
use algorithms::lane;

/// A lane competitor of `collective`.
const fn lane(
    name: &'static str,
    collective: Collective,
    guideline: &'static str,
    description: &'static str,
) -> Competitor {
    Competitor::of(Family::Lane, name, collective, guideline, description)
}

pub const COMPETITORS: &[Competitor] = &[
    lane(
        "allgather_as_allgather_lane",
        Collective::Allgather,
        "GL2 (MPINPC): MPI_Allgather ⪯ lane allgather",
        "allgather on every lane, allgather of the lane's blocks on each node, reorder",
    ),
    lane(
        "allreduce_as_allreduce_lane",
        Collective::Allreduce,
        "GL2 (MPINPC): MPI_Allreduce ⪯ lane allreduce",
        "reduce_scatter on each node, allreduce of each block on its lane, allgatherv on each node",
    ),
    lane(
        "alltoall_as_alltoall_lane",
        Collective::Alltoall,
        "GL2 (MPINPC): MPI_Alltoall ⪯ lane alltoall",
        "alltoall of node-bound blocks on every lane, reorder, alltoall on each node, reorder",
    ),
    lane(
        "bcast_as_bcast_lane",
        Collective::Bcast,
        "GL2 (MPINPC): MPI_Bcast ⪯ lane bcast",
        "scatterv on the root's node, bcast of each block on its lane, allgatherv on each node",
    ),
    lane(
        "gather_as_gather_lane",
        Collective::Gather,
        "GL2 (MPINPC): MPI_Gather ⪯ lane gather",
        "gather on every lane to the root's node, gather of the lanes' blocks to the root, reorder",
    ),
    lane(
        "reduce_as_reduce_lane",
        Collective::Reduce,
        "GL2 (MPINPC): MPI_Reduce ⪯ lane reduce",
        "reduce_scatter on each node, reduce of each block on its lane, gatherv to the root",
    ),
    lane(
        "reducescatterblock_as_reducescatterblock_lane",
        Collective::ReduceScatterBlock,
        "GL2 (MPINPC): MPI_Reduce_scatter_block ⪯ lane reduce_scatter_block",
        "reorder, reduce_scatter_block of each lane's blocks on each node, then on every lane",
    ),
    lane(
        "scan_as_scan_lane",
        Collective::Scan,
        "GL2 (MPINPC): MPI_Scan ⪯ lane scan",
        "scan on each node, exscan of the node totals' blocks on the lanes, allgatherv, combine",
    ),
    lane(
        "exscan_as_exscan_lane",
        Collective::Exscan,
        "GL2 (MPINPC): MPI_Exscan ⪯ lane exscan",
        "exscan on each node, exscan of the node totals' blocks on the lanes, allgatherv, combine",
    ),
    lane(
        "scatter_as_scatter_lane",
        Collective::Scatter,
        "GL2 (MPINPC): MPI_Scatter ⪯ lane scatter",
        "reorder on the root, scatter of the lanes' blocks on its node, scatter on every lane",
    ),
];

/// Prepares the lane competitor `name` of `setup.shape.collective`: there is
/// one per collective, so the collective chooses the algorithm.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Run<T>, NotApplicable> {
    let topology = super::topology(setup)?;
    let shape = &setup.shape;
    let (count, root, op) = (shape.count, shape.root, setup.op);
    let t = topology.clone();
    let run: Run<T> = match shape.collective {
        Collective::Allgather => {
            let mut algorithm = lane::Allgather::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Allreduce => {
            let mut algorithm = lane::Allreduce::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Alltoall => {
            let mut algorithm = lane::Alltoall::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Bcast => {
            let mut algorithm = lane::Bcast::new(&topology, count, root);
            Box::new(move |_, r| algorithm.run(&t, r))
        }
        Collective::Gather => {
            let mut algorithm = lane::Gather::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::Reduce => {
            let mut algorithm = lane::Reduce::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::ReduceScatterBlock => {
            let mut algorithm = lane::ReduceScatterBlock::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Scan => {
            let mut algorithm = lane::Scan::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Exscan => {
            let mut algorithm = lane::Exscan::new(&topology, count);
            Box::new(move |s, r| algorithm.run(&t, s, r, op))
        }
        Collective::Scatter => {
            let mut algorithm = lane::Scatter::new(&topology, count, root);
            Box::new(move |s, r| algorithm.run(&t, s, r))
        }
        Collective::ReduceScatter => {
            return Err(NotApplicable(format!(
                "{name}: no lane reduce_scatter here"
            )))
        }
    };
    Ok(run)
}
