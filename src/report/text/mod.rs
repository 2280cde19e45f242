//! Plain text for the terminal: `run`'s and `analyze`'s report (the verdict
//! tables, the universal guidelines, the baseline comparison, optional
//! details, the overview grid), the tables of `verify`, `list` and
//! `clocks`, and what `tune` changed.

pub mod clocks;
pub mod details;
pub mod grid;
pub mod list;
pub mod table;
pub mod tune;
pub mod verify;

use crate::analyse::Results;
pub use table::style;

/// The whole terminal report; `color` for the grid's severities.
pub fn render(results: &Results, details: bool, color: bool) -> String {
    let mut text = table::render(results);
    text += &table::render_guidelines(results);
    text += &table::render_baseline(results);
    if details {
        text += &details::render(results);
    }
    text + &grid::render(results, color)
}
