//! The results as JSON (`--format json`, and `results.json`).

use crate::analyse::Results;

/// The version of the results' format, described by
/// `docs/results.schema.json`: raised when a field is removed or changes
/// its meaning, kept when fields are added.
pub const SCHEMA_VERSION: u64 = 1;

/// Everything, `schema_version` first, pretty-printed, with a final newline.
pub fn render(results: &Results) -> String {
    let serde_json::Value::Object(fields) =
        serde_json::to_value(results).expect("results serialise")
    else {
        unreachable!("results serialise to an object")
    };
    let mut document = serde_json::Map::new();
    document.insert("schema_version".into(), SCHEMA_VERSION.into());
    document.extend(fields);
    serde_json::to_string_pretty(&document).expect("results serialise") + "\n"
}
