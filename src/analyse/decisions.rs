//! The accumulator `run` decides a run's cases with, one at a time.

use super::defaults::{Defaults, Spilled};
use super::guidelines::{self, Guidelines};
use super::verdict::decide;
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
    /// its first measured case; None when a case of it was decided since
    /// they were checked. Checked when results are asked for, not after
    /// every case: a series is checked whole (every pair of its sizes),
    /// which took 3 ms a case on average and up to 18 ms at 25 sizes a
    /// series, while the other ranks waited.
    series: Vec<(CaseKey, Option<Guidelines>)>,
}

impl Decisions {
    /// Decides `case` and keeps what later decisions need of it.
    pub fn add(&mut self, case: &CaseData, options: &Options) {
        let (verdict, default_shape, kept) = decide(case, options);
        self.checks.push(verdict);
        self.defaults.push_with_shape(&kept, default_shape);
        let added = self.defaults.cases() - 1;
        if self.defaults.measured(added) {
            match self
                .series
                .iter_mut()
                .find(|(k, _)| k.same_series(&case.key))
            {
                Some((_, of_series)) => *of_series = None,
                None => self.series.push((case.key.clone(), None)),
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

    /// Verdicts, universal guidelines and the noise verdict of the cases so
    /// far; checks the series that changed since last asked.
    pub fn results(&mut self, mut meta: Meta, complete: bool, options: &Options) -> Results {
        meta.noise = noise::assess(&self.checks, options);
        timer::warn(&mut meta, &self.checks);
        for (key, of_series) in &mut self.series {
            if of_series.is_none() {
                *of_series = Some(guidelines::check_series(&self.defaults, key, options));
            }
        }
        let mut guidelines = Guidelines::default();
        for of_series in self.series.iter().flat_map(|(_, g)| g) {
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
