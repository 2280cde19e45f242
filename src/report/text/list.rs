//! `pgcheck list`: every collective with its competitors.

use crate::candidates::{self, native::DEFAULT, native::DEFAULT_IN_PLACE};
use crate::collective::Collective;

pub fn render() -> String {
    let mut out = String::new();
    for collective in Collective::ALL {
        out += &format!("{} ({})\n", collective.name(), collective.mpi_name());
        out += &format!(
            "  {DEFAULT:<50} the library's own {}\n",
            collective.mpi_name()
        );
        if collective.has_in_place() {
            out += &format!(
                "  {DEFAULT_IN_PLACE:<50} the library's own {} with MPI_IN_PLACE (`in_place: both`)\n",
                collective.mpi_name()
            );
        }
        for c in candidates::competitors_of(collective) {
            out += &format!("  {:<50} {} — {}\n", c.name, c.guideline, c.description);
        }
    }
    out
}
