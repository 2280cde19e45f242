//! Collective algorithms over rsmpi that compete with an MPI library's own:
//! lane and hierarchical decompositions (Träff & Hunold, CLUSTER 2020),
//! circulant-graph algorithms (Träff et al., CLUSTER 2023) and the minimal
//! point-to-point implementations of Träff, Gropp & Thakur's rule (19).
//!
//! Every algorithm is a struct prepared once (`new`, which may allocate
//! scratch space and is collective where it says so) and run many times
//! (`run`, which allocates nothing). No timing, no printing.

pub mod circulant;
pub mod hier;
pub mod lane;
pub mod p2p;
pub mod split;
pub mod topology;
pub mod tree;
