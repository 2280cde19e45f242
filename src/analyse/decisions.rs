//! The accumulator `run` decides a run's cases with, one at a time.

use super::defaults::{Defaults, Spilled};
use super::guidelines::{self, Guidelines};
use super::verdict::verdict;
use super::{noise, timer, CaseData, CaseKey, Options, Results, Verdict};
use crate::meta::Meta;

/// A run's verdicts, decided one case at a time: of each case only its
/// verdict stays in memory, and the library's own sample goes to a
/// temporary file (the universal guidelines and a baseline compare those),
/// so that a run holds one case's observations at a time whatever its
/// number of cases.
#[derive(Debug, Default)]
pub struct Decisions {
    checks: Vec<Verdict>,
    /// Every case with `default`'s sample alone.
    defaults: Spilled,
    /// The universal guidelines' findings of each series, in the order of
    /// its first measured case, updated when a case of it is decided.
    series: Vec<(CaseKey, Guidelines)>,
}

impl Decisions {
    /// Decides `case` and keeps what later decisions need of it.
    pub fn add(&mut self, case: &CaseData, options: &Options) {
        self.checks.push(verdict(case, options));
        self.defaults.push(case);
        let added = self.defaults.cases() - 1;
        if self.defaults.measured(added) {
            let findings = guidelines::check_series(&self.defaults, &case.key, options);
            match self
                .series
                .iter_mut()
                .find(|(k, _)| k.same_series(&case.key))
            {
                Some((_, of_series)) => *of_series = findings,
                None => self.series.push((case.key.clone(), findings)),
            }
        }
    }

    /// The cases decided so far, with `default`'s samples only.
    pub fn defaults(&self) -> &Spilled {
        &self.defaults
    }

    /// How many cases were decided.
    pub fn decided(&self) -> usize {
        self.checks.len()
    }

    /// Verdicts, universal guidelines and the noise verdict of the cases so far.
    pub fn results(&self, mut meta: Meta, complete: bool, options: &Options) -> Results {
        meta.noise = noise::assess(&self.checks, options);
        timer::warn(&mut meta, &self.checks);
        let mut guidelines = Guidelines::default();
        for (_, of_series) in &self.series {
            guidelines
                .monotony
                .extend(of_series.monotony.iter().cloned());
            guidelines
                .split_robustness
                .extend(of_series.split_robustness.iter().cloned());
        }
        Results {
            meta,
            complete,
            checks: self.checks.clone(),
            guidelines,
            baseline: None,
            failure: None,
            exit: None,
        }
    }
}
