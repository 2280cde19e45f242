//! `pgcheck list`: every operation with its competitors.

use super::{bind, unbind, wrap};
use crate::candidates::{self, native::DEFAULT, native::DEFAULT_IN_PLACE};
use crate::operation::{Form, Operation};

/// The list fitted to the report's width ([`super::width`]).
pub fn render() -> String {
    render_at(usize::from(super::width()))
}

/// The least room a description keeps beside the names before it moves
/// under them.
const DESCRIPTION_ROOM: usize = 30;

/// Every operation, then a line per candidate: its name in a column as
/// wide as the longest name, what it is beside it, wrapped at spaces
/// within `width`; under the name where the names leave too little room.
pub fn render_at(width: usize) -> String {
    let mut entries: Vec<(Operation, Vec<(String, String)>)> = Vec::new();
    for operation in Operation::all() {
        let own = match operation.form {
            Form::Blocking => format!("the library's own {}", operation.mpi_name()),
            Form::Nonblocking => format!(
                "the library's own {}, then MPI_Wait at once",
                operation.mpi_name()
            ),
            Form::Persistent => format!(
                "the library's own {} outside the timed calls, then MPI_Start and MPI_Wait",
                operation.mpi_name()
            ),
        };
        let mut lines = vec![(DEFAULT.to_string(), own)];
        if operation.has_in_place() {
            lines.push((
                DEFAULT_IN_PLACE.to_string(),
                format!(
                    "the library's own {} with MPI_IN_PLACE (`in_place: both`)",
                    operation.mpi_name()
                ),
            ));
        }
        for c in candidates::competitors_of(operation) {
            lines.push((
                c.name.to_string(),
                format!("{} — {}", c.guideline, c.description),
            ));
        }
        entries.push((operation, lines));
    }
    let names = entries
        .iter()
        .flat_map(|(_, lines)| lines.iter().map(|(name, _)| name.chars().count()))
        .max()
        .unwrap_or(0);
    let beside = 2 + names + 1 + DESCRIPTION_ROOM <= width;
    let mut out = String::new();
    for (operation, lines) in entries {
        out += &format!("{} ({})\n", operation.name(), operation.mpi_name());
        for (name, about) in lines {
            let about = bind(&about);
            out += &match beside {
                true => wrap(
                    &format!("  {name:<names$} {about}"),
                    width,
                    &" ".repeat(names + 3),
                ),
                false => format!(
                    "  {name}\n{}",
                    wrap(&format!("      {about}"), width, "      ")
                ),
            };
        }
    }
    unbind(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 60, 80 and 100 columns: every line within the width (but a name
    /// longer than it), no word broken.
    #[test]
    fn the_list_fits_the_width_and_breaks_no_word() {
        super::super::assert_no_word_broken(|width| render_at(usize::from(width)));
        for width in [60, 80, 100] {
            for line in render_at(width).lines() {
                assert!(
                    line.chars().count() <= width || !line.trim().contains(' '),
                    "{line:?} at {width}"
                );
            }
        }
    }
}
