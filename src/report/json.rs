//! The results as JSON (`--format json`, and `results.json`).

use crate::analyse::Results;

/// Everything, pretty-printed, with a final newline.
pub fn render(results: &Results) -> String {
    serde_json::to_string_pretty(results).expect("results serialise") + "\n"
}
