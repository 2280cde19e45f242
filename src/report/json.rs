//! The results as JSON (`--format json`, and `results.json`).

use crate::analyse::Results;

/// The version of the results' format, described by
/// `docs/results.schema.json`: raised when a field is removed or changes
/// its meaning, kept when fields are added.
pub const SCHEMA_VERSION: u64 = 1;

/// Everything, `schema_version` first, pretty-printed, with a final newline.
pub fn render(results: &Results) -> String {
    let mut text = Vec::new();
    write(&mut text, results).expect("writing to memory");
    String::from_utf8(text).expect("JSON is UTF-8")
}

/// [`render`] written to `out` as it is serialised: straight from the
/// results, not through a `serde_json::Value` (at 1,000 cases that took
/// rank 0 29 MiB more, 78 instead of 48 MiB at its peak), nor through a
/// string of the whole file (12 MB at 1,000 cases).
pub fn write(mut out: impl std::io::Write, results: &Results) -> std::io::Result<()> {
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
    serde_json::to_writer_pretty(&mut out, &document)?;
    out.write_all(b"\n")
}
