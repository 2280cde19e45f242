//! The results as JSON (`--format json`, and `results.json`).

use crate::analyse::Results;

/// The version of the results' format, described by
/// `docs/results.schema.json`: raised when a field is removed or changes
/// its meaning, kept when fields are added.
pub const SCHEMA_VERSION: u64 = 1;

/// Everything, `schema_version` first, pretty-printed, with a final newline.
/// Serialised straight from the results: through a `serde_json::Value`
/// first, a run of 1,000 cases took rank 0 29 MiB more (48 instead of
/// 78 MiB at its peak).
pub fn render(results: &Results) -> String {
    #[derive(serde::Serialize)]
    struct Document<'a> {
        schema_version: u64,
        #[serde(flatten)]
        results: &'a Results,
    }
    let document = Document {
        schema_version: SCHEMA_VERSION,
        results,
    };
    serde_json::to_string_pretty(&document).expect("results serialise") + "\n"
}
