//! `pgcheck list`: every collective with its competitors.

use crate::candidates::{self, native::DEFAULT};
use crate::collective::Collective;

pub fn render() -> String {
    let mut out = String::new();
    for collective in Collective::ALL {
        out += &format!("{} ({})\n", collective.name(), collective.mpi_name());
        out += &format!(
            "  {DEFAULT:<50} the library's own {}\n",
            collective.mpi_name()
        );
        for c in candidates::competitors_of(collective) {
            out += &format!("  {:<50} {} — {}\n", c.name, c.guideline, c.description);
        }
    }
    out
}
