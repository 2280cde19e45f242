//! MPI collectives re-expressed with other MPI collectives: the mock-ups of
//! the self-consistent performance guidelines (Träff, Gropp & Thakur 2007
//! and 2010; PGMPI, Hunold et al. 2016; MPINPC, Hunold 2023). One module
//! per collective.
//!
//! Every mock-up is a struct: `new` prepares scratch space, counts and
//! displacements (it may allocate); `run` performs the collective and
//! allocates nothing. Buffers follow the collective's own layout: `count`
//! is the block per process for allgather, alltoall, gather, scatter and
//! reduce_scatter_block, and the whole vector for the others;
//! reduce_scatter gives process i block i of the vector split by
//! [`block_counts`]; bcast works in `recv` alone. No mock-up works in place;
//! [`in_place`] wraps the library's own in-place forms, which rsmpi lacks.
//! `WithUserOp` (allreduce, reduce, reduce_scatter_block, scan) calls the
//! same collective with a user-defined operator ([`user_op`]) computing
//! the built-in one. [`persistent`] initialises the library's persistent
//! collectives, which rsmpi lacks too.
//!
//! The point-to-point and one-sided guidelines' transfers follow a
//! [`pattern`] (a ping-pong or a halo on a ring): [`send`], [`put`] and
//! [`get`] in the library's way and in the ways they are compared with,
//! over a [`window`] where one-sided.

pub mod blocks;
mod bytes;
pub mod in_place;
mod parts;
pub mod pattern;
pub mod persistent;
pub mod raw;
pub mod rooted;
pub mod scratch;
pub mod user_op;
pub mod window;

pub mod allgather;
pub mod allreduce;
pub mod alltoall;
pub mod barrier;
pub mod bcast;
pub mod communicator;
pub mod exscan;
pub mod gather;
pub mod get;
pub mod put;
pub mod reduce;
pub mod reduce_scatter;
pub mod reduce_scatter_block;
pub mod scan;
pub mod scatter;
pub mod send;

pub use blocks::block_counts;
