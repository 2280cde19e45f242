//! Competitors of the point-to-point family: the minimal implementations
//! of `algorithms::p2p` (Träff, Gropp & Thakur 2007, rule (19): a
//! collective is not slower than its obvious implementation from sends and
//! receives). The reduction keeps MPI's rank order, so it applies to every
//! operator.

use algorithms::p2p;

competitors! {
    family: P2p,
    prepare<T>(name, setup) {
        let comm = &*setup.comm;
        let (m, root, op) = (setup.shape.count, setup.shape.root, setup.op);
    }
    "gather_as_linear_p2p" for Gather {
        guideline: "Träff et al. 2007 (19): Gather ⪯ linear gather from point-to-point",
        description: "the root posts p − 1 MPI_Irecv straight into its receive buffer and waits for all; the others MPI_Send",
        call: call!(setup.comm, p2p::Gather::new(comm, m, root)),
    }
    "scatter_as_linear_p2p" for Scatter {
        guideline: "Träff et al. 2007 (19): Scatter ⪯ linear scatter from point-to-point",
        description: "the root posts p − 1 MPI_Isend straight from its send buffer and waits for all; the others MPI_Recv",
        call: call!(setup.comm, p2p::Scatter::new(comm, m, root)),
    }
    "bcast_as_binomial_p2p" for Bcast {
        guideline: "Träff et al. 2007 (19): Bcast ⪯ binomial tree from point-to-point",
        description: "MPI_Recv from the parent, then MPI_Send to each child: ⌈log2 p⌉ rounds, p − 1 messages",
        call: call!(setup.comm, p2p::Bcast::new(comm, m, root), recv_only),
    }
    "reduce_as_binomial_p2p" for Reduce {
        guideline: "Träff et al. 2007 (19): Reduce ⪯ binomial tree from point-to-point",
        description: "MPI_Recv from each child and MPI_Reduce_local in rank order, then MPI_Send to the parent: ⌈log2 p⌉ rounds",
        call: call!(setup.comm, p2p::Reduce::new(comm, m, root), op),
    }
    "barrier_as_dissemination_p2p" for Barrier {
        guideline: "Träff et al. 2007 (19): Barrier ⪯ dissemination barrier from point-to-point",
        description: "⌈log2 p⌉ rounds of MPI_Sendrecv of an empty message to r + 2^k, from r − 2^k",
        call: { let (comm, mut barrier) = (setup.comm.clone(), p2p::Barrier); Box::new(move |_, _| barrier.run(&*comm)) },
    }
}
