//! pgcheck: checks an MPI library's collectives against the self-consistent
//! performance guidelines. The pipeline is config → plan → measure →
//! analyse → report; each stage takes the previous stage's plain data.

pub mod candidates;
pub mod collective;
pub mod element;
pub mod stats;
