//! Splitting a vector into blocks as evenly as possible, as the mock-ups
//! do (tested there).

pub use mockups::blocks::{block_counts, displacements};
