//! `default`: the library's own collective.

use super::{Call, Setup};
use crate::collective::Collective;
use crate::element::Element;
use mpi::traits::*;

/// The name of the library's own call.
pub const DEFAULT: &str = "default";

/// The library's own collective for `setup.shape`.
pub fn prepare<T: Element>(setup: &Setup) -> Call<T> {
    let comm = setup.comm.clone();
    let op = setup.op;
    let shape = &setup.shape;
    let root = shape.root as i32;
    let is_root = shape.is_root();
    match shape.collective {
        Collective::Allgather => Box::new(move |s, r| comm.all_gather_into(s, r)),
        Collective::Allreduce => Box::new(move |s, r| comm.all_reduce_into(s, r, op)),
        Collective::Alltoall => Box::new(move |s, r| comm.all_to_all_into(s, r)),
        Collective::Bcast => Box::new(move |_, r| comm.process_at_rank(root).broadcast_into(r)),
        Collective::Gather => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.gather_into_root(s, r)
            } else {
                root.gather_into(s)
            }
        }),
        Collective::Reduce => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.reduce_into_root(s, r, op)
            } else {
                root.reduce_into(s, op)
            }
        }),
        Collective::ReduceScatterBlock => {
            Box::new(move |s, r| comm.reduce_scatter_block_into(s, r, op))
        }
        Collective::ReduceScatter => {
            let counts: Vec<i32> = shape.counts.iter().map(|&c| c as i32).collect();
            Box::new(move |s, r| mockups::raw::reduce_scatter(&*comm, s, r, &counts, op))
        }
        Collective::Scan => Box::new(move |s, r| comm.scan_into(s, r, op)),
        Collective::Exscan => Box::new(move |s, r| comm.exclusive_scan_into(s, r, op)),
        Collective::Scatter => Box::new(move |s, r| {
            let root = comm.process_at_rank(root);
            if is_root {
                root.scatter_into_root(s, r)
            } else {
                root.scatter_into(r)
            }
        }),
    }
}
