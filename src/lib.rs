//! pgcheck: checks an MPI library's collectives against the self-consistent
//! performance guidelines. The pipeline is config → plan → measure →
//! analyse → report; each stage takes the previous stage's plain data.

pub mod analyse;
pub mod candidates;
pub mod case;
pub mod cli;
pub mod collective;
pub mod commands;
pub mod config;
pub mod control;
pub mod element;
pub mod exit;
pub mod host;
pub mod measure;
pub mod meta;
pub mod mpit;
pub mod operation;
pub mod plan;
pub mod printable;
pub mod reference;
pub mod report;
pub mod settings;
pub mod stats;
pub mod store;
pub mod tuning;
pub mod units;
pub mod watchdog;
