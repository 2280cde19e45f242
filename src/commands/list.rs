//! `pgcheck list`: every collective with its competitors and guidelines.

use crate::exit::Exit;
use crate::report;

/// Prints the list (once, when started under a launcher).
pub fn list(leader: bool) -> Exit {
    if leader {
        report::show(&report::text::list::render());
    }
    Exit::Pass
}
