//! The history as JSON (`--format json`, and `history.json`).

use crate::analyse::history::History;

/// Everything, pretty-printed, with a final newline.
pub fn render(history: &History) -> String {
    serde_json::to_string_pretty(history).expect("a history serialises") + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::fixture::history;

    #[test]
    fn holds_the_series_and_the_changes() {
        let json: serde_json::Value = serde_json::from_str(&super::render(&history())).unwrap();
        assert_eq!(json["runs"].as_array().unwrap().len(), 12);
        let allreduce = &json["cases"][0];
        assert_eq!(allreduce["collective"], "allreduce");
        assert_eq!(allreduce["changes"][0]["index"], 6);
        assert_eq!(allreduce["changes"][0]["after"], "launch-06");
        assert!(json["cases"][1]["medians_s"][11].is_null());
    }
}
