//! Competitors of the circulant family.

use super::{Competitor, NotApplicable, Run, Setup};
use crate::element::Element;

pub const COMPETITORS: &[Competitor] = &[];

pub fn prepare<T: Element>(name: &str, _setup: &Setup) -> Result<Run<T>, NotApplicable> {
    Err(NotApplicable(format!("{name} is not implemented")))
}
