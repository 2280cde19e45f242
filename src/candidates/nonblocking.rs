//! Competitors of the nonblocking collectives: the blocking call, which
//! `MPI_Ixxx` + `MPI_Wait` should not lose to (the rule Träff, Gropp &
//! Thakur 2007 state for `MPI_Isend` + `MPI_Wait ⪯ MPI_Send`, (3), for
//! collectives: nothing overlaps, so the nonblocking call has nothing to
//! pay for), and mock-ups from other nonblocking collectives.

use super::native;
use mockups::{allgather, allreduce};

competitors! {
    family: Nonblocking,
    form: Nonblocking,
    prepare<T>(name, setup) {
        let comm = &*setup.comm;
        let (m, op) = (setup.shape.count, setup.op);
    }
    "iallgather_as_allgather" for Allgather {
        guideline: "Iallgather + Wait ⪯ Allgather",
        description: "the library's blocking MPI_Allgather",
        call: native::prepare_blocking(setup),
    }
    "iallgather_as_igather_ibcast" for Allgather {
        guideline: "GL11 nonblocking: Iallgather ⪯ Igather + Ibcast",
        description: "MPI_Igather to rank 0, MPI_Wait, then MPI_Ibcast of all blocks, MPI_Wait",
        call: call!(setup.comm, allgather::IgatherIbcast::new(comm, m)),
    }
    "iallreduce_as_allreduce" for Allreduce {
        guideline: "Iallreduce + Wait ⪯ Allreduce",
        description: "the library's blocking MPI_Allreduce",
        call: native::prepare_blocking(setup),
    }
    "iallreduce_as_ireduce_ibcast" for Allreduce {
        guideline: "GL12 nonblocking: Iallreduce ⪯ Ireduce + Ibcast",
        description: "MPI_Ireduce to rank 0, MPI_Wait, then MPI_Ibcast, MPI_Wait",
        call: call!(setup.comm, allreduce::IreduceIbcast::new(comm, m), op),
    }
    "ialltoall_as_alltoall" for Alltoall {
        guideline: "Ialltoall + Wait ⪯ Alltoall",
        description: "the library's blocking MPI_Alltoall",
        call: native::prepare_blocking(setup),
    }
    "ibarrier_as_barrier" for Barrier {
        guideline: "Ibarrier + Wait ⪯ Barrier",
        description: "the library's blocking MPI_Barrier",
        call: native::prepare_blocking(setup),
    }
    "ibcast_as_bcast" for Bcast {
        guideline: "Ibcast + Wait ⪯ Bcast",
        description: "the library's blocking MPI_Bcast",
        call: native::prepare_blocking(setup),
    }
    "igather_as_gather" for Gather {
        guideline: "Igather + Wait ⪯ Gather",
        description: "the library's blocking MPI_Gather",
        call: native::prepare_blocking(setup),
    }
    "ireduce_as_reduce" for Reduce {
        guideline: "Ireduce + Wait ⪯ Reduce",
        description: "the library's blocking MPI_Reduce",
        call: native::prepare_blocking(setup),
    }
    "ireducescatterblock_as_reducescatterblock" for ReduceScatterBlock {
        guideline: "Ireduce_scatter_block + Wait ⪯ Reduce_scatter_block",
        description: "the library's blocking MPI_Reduce_scatter_block",
        call: native::prepare_blocking(setup),
    }
    "ireducescatter_as_reducescatter" for ReduceScatter {
        guideline: "Ireduce_scatter + Wait ⪯ Reduce_scatter",
        description: "the library's blocking MPI_Reduce_scatter",
        call: native::prepare_blocking(setup),
    }
    "iscan_as_scan" for Scan {
        guideline: "Iscan + Wait ⪯ Scan",
        description: "the library's blocking MPI_Scan",
        call: native::prepare_blocking(setup),
    }
    "iexscan_as_exscan" for Exscan {
        guideline: "Iexscan + Wait ⪯ Exscan",
        description: "the library's blocking MPI_Exscan",
        call: native::prepare_blocking(setup),
    }
    "iscatter_as_scatter" for Scatter {
        guideline: "Iscatter + Wait ⪯ Scatter",
        description: "the library's blocking MPI_Scatter",
        call: native::prepare_blocking(setup),
    }
}
