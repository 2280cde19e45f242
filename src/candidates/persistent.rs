//! Competitors of the persistent collectives (`default`: the library's
//! `MPI_Xxx_init` once, then `MPI_Start` + `MPI_Wait` per call, in
//! [`super::persistent_request`]): the blocking call and the nonblocking
//! one. A persistent collective exists to be at least as fast as both:
//! its set-up is paid once, outside the calls (MPI-4, section 6.13).

use super::native;

competitors! {
    family: Persistent,
    form: Persistent,
    prepare<T>(name, setup) {}
    "allgatherinit_as_allgather" for Allgather {
        guideline: "Allgather_init + Start + Wait ⪯ Allgather",
        description: "the library's blocking MPI_Allgather",
        call: native::prepare_blocking(setup),
    }
    "allgatherinit_as_iallgather" for Allgather {
        guideline: "Allgather_init + Start + Wait ⪯ Iallgather + Wait",
        description: "the library's nonblocking MPI_Iallgather, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "allreduceinit_as_allreduce" for Allreduce {
        guideline: "Allreduce_init + Start + Wait ⪯ Allreduce",
        description: "the library's blocking MPI_Allreduce",
        call: native::prepare_blocking(setup),
    }
    "allreduceinit_as_iallreduce" for Allreduce {
        guideline: "Allreduce_init + Start + Wait ⪯ Iallreduce + Wait",
        description: "the library's nonblocking MPI_Iallreduce, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "alltoallinit_as_alltoall" for Alltoall {
        guideline: "Alltoall_init + Start + Wait ⪯ Alltoall",
        description: "the library's blocking MPI_Alltoall",
        call: native::prepare_blocking(setup),
    }
    "alltoallinit_as_ialltoall" for Alltoall {
        guideline: "Alltoall_init + Start + Wait ⪯ Ialltoall + Wait",
        description: "the library's nonblocking MPI_Ialltoall, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "barrierinit_as_barrier" for Barrier {
        guideline: "Barrier_init + Start + Wait ⪯ Barrier",
        description: "the library's blocking MPI_Barrier",
        call: native::prepare_blocking(setup),
    }
    "barrierinit_as_ibarrier" for Barrier {
        guideline: "Barrier_init + Start + Wait ⪯ Ibarrier + Wait",
        description: "the library's nonblocking MPI_Ibarrier, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "bcastinit_as_bcast" for Bcast {
        guideline: "Bcast_init + Start + Wait ⪯ Bcast",
        description: "the library's blocking MPI_Bcast",
        call: native::prepare_blocking(setup),
    }
    "bcastinit_as_ibcast" for Bcast {
        guideline: "Bcast_init + Start + Wait ⪯ Ibcast + Wait",
        description: "the library's nonblocking MPI_Ibcast, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "exscaninit_as_exscan" for Exscan {
        guideline: "Exscan_init + Start + Wait ⪯ Exscan",
        description: "the library's blocking MPI_Exscan",
        call: native::prepare_blocking(setup),
    }
    "exscaninit_as_iexscan" for Exscan {
        guideline: "Exscan_init + Start + Wait ⪯ Iexscan + Wait",
        description: "the library's nonblocking MPI_Iexscan, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "gatherinit_as_gather" for Gather {
        guideline: "Gather_init + Start + Wait ⪯ Gather",
        description: "the library's blocking MPI_Gather",
        call: native::prepare_blocking(setup),
    }
    "gatherinit_as_igather" for Gather {
        guideline: "Gather_init + Start + Wait ⪯ Igather + Wait",
        description: "the library's nonblocking MPI_Igather, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "reduceinit_as_reduce" for Reduce {
        guideline: "Reduce_init + Start + Wait ⪯ Reduce",
        description: "the library's blocking MPI_Reduce",
        call: native::prepare_blocking(setup),
    }
    "reduceinit_as_ireduce" for Reduce {
        guideline: "Reduce_init + Start + Wait ⪯ Ireduce + Wait",
        description: "the library's nonblocking MPI_Ireduce, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "reducescatterblockinit_as_reducescatterblock" for ReduceScatterBlock {
        guideline: "Reduce_scatter_block_init + Start + Wait ⪯ Reduce_scatter_block",
        description: "the library's blocking MPI_Reduce_scatter_block",
        call: native::prepare_blocking(setup),
    }
    "reducescatterblockinit_as_ireducescatterblock" for ReduceScatterBlock {
        guideline: "Reduce_scatter_block_init + Start + Wait ⪯ Ireduce_scatter_block + Wait",
        description: "the library's nonblocking MPI_Ireduce_scatter_block, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "reducescatterinit_as_reducescatter" for ReduceScatter {
        guideline: "Reduce_scatter_init + Start + Wait ⪯ Reduce_scatter",
        description: "the library's blocking MPI_Reduce_scatter",
        call: native::prepare_blocking(setup),
    }
    "reducescatterinit_as_ireducescatter" for ReduceScatter {
        guideline: "Reduce_scatter_init + Start + Wait ⪯ Ireduce_scatter + Wait",
        description: "the library's nonblocking MPI_Ireduce_scatter, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "scaninit_as_scan" for Scan {
        guideline: "Scan_init + Start + Wait ⪯ Scan",
        description: "the library's blocking MPI_Scan",
        call: native::prepare_blocking(setup),
    }
    "scaninit_as_iscan" for Scan {
        guideline: "Scan_init + Start + Wait ⪯ Iscan + Wait",
        description: "the library's nonblocking MPI_Iscan, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
    "scatterinit_as_scatter" for Scatter {
        guideline: "Scatter_init + Start + Wait ⪯ Scatter",
        description: "the library's blocking MPI_Scatter",
        call: native::prepare_blocking(setup),
    }
    "scatterinit_as_iscatter" for Scatter {
        guideline: "Scatter_init + Start + Wait ⪯ Iscatter + Wait",
        description: "the library's nonblocking MPI_Iscatter, then MPI_Wait",
        call: native::prepare_nonblocking(setup),
    }
}
