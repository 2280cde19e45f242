//! Competitors of the communicator family: the library's own collective on
//! another communicator over the same processes (Träff, Gropp & Thakur
//! 2007, rules (20)/(21), `≈`): its ranks permuted, or a copy.
//!
//! Reading the verdict, which compares `default` with the competitor: the
//! other communicator significantly faster is a violation (the library's
//! call on the original is slow, e.g. its placement is poor for the
//! algorithm); significantly slower is no violation of the collective but
//! shows that its speed depends on the rank order (the report names the
//! competitor and its factor).
//!
//! On the permuted communicator, allgather and alltoall deliver blocks in
//! its rank order (and alltoall sends block b to its rank b). No datatype
//! makes one MPI_Allgather or MPI_Alltoall put block j elsewhere than at j
//! × extent, and copying blocks around the call would time memcpy with it.
//! So the timed call is the library's collective alone, and verification
//! maps its output to the reference ([`output_order`]), outside the timed
//! region.

use crate::collective::{Collective, Shape};
use mockups::communicator::{duplicate, inverse, permutation, permuted};
use mpi::traits::*;

competitors! {
    family: Communicator,
    prepare<T>(name, setup) {
        let comm = &*setup.comm;
        let op = setup.op;
    }
    "allgather_as_permuted_comm" for Allgather {
        guideline: "Träff et al. 2007 (21): Allgather{c} ≈ Allgather{c′}",
        description: "MPI_Allgather on MPI_Comm_split with the ranks randomly permuted (seeded); \
                      faster: the original's rank order is poor; slower: no violation",
        call: { let c = permuted(comm); Box::new(move |s, r| c.all_gather_into(s, r)) },
    }
    "alltoall_as_permuted_comm" for Alltoall {
        guideline: "Träff et al. 2007 (20): Alltoall{c} ≈ Alltoall{c′}",
        description: "MPI_Alltoall on MPI_Comm_split with the ranks randomly permuted (seeded); \
                      faster: the original's rank order is poor; slower: no violation",
        call: { let c = permuted(comm); Box::new(move |s, r| c.all_to_all_into(s, r)) },
    }
    "allreduce_as_permuted_comm" for Allreduce {
        guideline: "Träff et al. 2007 (20): Allreduce{c} ≈ Allreduce{c′}",
        description: "MPI_Allreduce on MPI_Comm_split with the ranks randomly permuted (seeded); \
                      faster: the original's rank order is poor; slower: no violation",
        call: { let c = permuted(comm); Box::new(move |s, r| c.all_reduce_into(s, r, op)) },
    }
    "allgather_as_dup_comm" for Allgather {
        guideline: "Träff et al. 2007 (20): Allgather{c} ≈ Allgather{dup(c)}",
        description: "MPI_Allgather on MPI_Comm_dup of the communicator",
        call: { let c = duplicate(comm); Box::new(move |s, r| c.all_gather_into(s, r)) },
    }
    "alltoall_as_dup_comm" for Alltoall {
        guideline: "Träff et al. 2007 (20): Alltoall{c} ≈ Alltoall{dup(c)}",
        description: "MPI_Alltoall on MPI_Comm_dup of the communicator",
        call: { let c = duplicate(comm); Box::new(move |s, r| c.all_to_all_into(s, r)) },
    }
    "barrier_as_permuted_comm" for Barrier {
        guideline: "Träff et al. 2007 (20): Barrier{c} ≈ Barrier{c′}",
        description: "MPI_Barrier on MPI_Comm_split with the ranks randomly permuted (seeded); \
                      faster: the original's rank order is poor; slower: no violation",
        call: { let c = permuted(comm); Box::new(move |_, _| c.barrier()) },
    }
    "barrier_as_dup_comm" for Barrier {
        guideline: "Träff et al. 2007 (20): Barrier{c} ≈ Barrier{dup(c)}",
        description: "MPI_Barrier on MPI_Comm_dup of the communicator",
        call: { let c = duplicate(comm); Box::new(move |_, _| c.barrier()) },
    }
    "allreduce_as_dup_comm" for Allreduce {
        guideline: "Träff et al. 2007 (20): Allreduce{c} ≈ Allreduce{dup(c)}",
        description: "MPI_Allreduce on MPI_Comm_dup of the communicator",
        call: { let c = duplicate(comm); Box::new(move |s, r| c.all_reduce_into(s, r, op)) },
    }
}

/// Where a competitor's output on this rank is in the reference: its block
/// `a` (of `shape.count` elements) is block `blocks[a]` of the output MPI
/// defines on rank `rank` of the original communicator.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutputOrder {
    pub rank: usize,
    pub blocks: Vec<usize>,
}

/// The order of `name`'s output where it differs from the reference's:
/// the permuted communicator's allgather and alltoall. Process r has rank
/// key[r] there, so block a comes from process key⁻¹(a); alltoall's is
/// the block that process sends to rank key[r] of the original. The
/// permuted allreduce needs none: the built-in operators are commutative,
/// and the verification data make every order of combination exact
/// ([`crate::element`]).
pub fn output_order(name: &str, shape: &Shape) -> Option<OutputOrder> {
    let rank = match (name, shape.collective) {
        ("allgather_as_permuted_comm", Collective::Allgather) => shape.rank,
        ("alltoall_as_permuted_comm", Collective::Alltoall) => permutation(shape.size)[shape.rank],
        _ => return None,
    };
    let blocks = inverse(&permutation(shape.size));
    Some(OutputOrder { rank, blocks })
}
