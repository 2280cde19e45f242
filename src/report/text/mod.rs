//! The terminal report: the verdict tables, the universal guidelines, the
//! baseline comparison, optional details, and the overview grid.

pub mod details;
pub mod grid;
pub mod table;

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
