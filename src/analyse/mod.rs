//! From observations to verdicts: medians, slowdowns, two-sample tests,
//! severities, PGMPI's universal guidelines, every candidate's usual time
//! (Kluge et al. 2005, [`usual`]) and the run's noise verdict ([`noise`]). Runs on
//! rank 0 and offline.

pub use crate::case::{CaseData, CaseKey, Outcome, Sample};

pub mod baseline;
pub mod decided;
mod decisions;
pub mod defaults;
pub mod disturbed;
pub mod guidelines;
pub mod history;
pub mod launches;
pub mod noise;
mod options;
mod results;
pub mod rounds;
pub mod state;
pub mod timer;
pub mod usual;
mod verdict;

pub use decided::ExitStatus;
pub use decisions::Decisions;
pub use noise::{Noise, NoiseVerdict};
pub use options::*;
pub use results::*;
pub use rounds::RoundMedians;
pub use usual::{UsualTime, DEFAULT_QMAX};
pub use verdict::{compare, compare_rounds, round_medians, verdicts};
