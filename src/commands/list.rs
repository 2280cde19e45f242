//! `pgcheck list`: every collective with its competitors and guidelines.

use crate::exit::Ending;
use crate::report;

/// Prints the list (once, when started under a launcher).
pub fn list(leader: bool) -> Ending {
    if leader {
        report::show(&report::text::list::render());
    }
    Ending::Done
}
