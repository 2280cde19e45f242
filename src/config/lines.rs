//! Where in the YAML text an error belongs, and serde_yaml's messages made
//! to follow `FILE:LINE: `.

use super::suggest;

/// The line and message of a serde_yaml error: its location dropped from the
/// message, the closest field suggested for an unknown one, and a duplicate
/// key moved to where it repeats.
pub(super) fn yaml_error(text: &str, e: &serde_yaml::Error) -> (usize, String) {
    let message = hint_unknown_field(strip_location(&e.to_string()));
    let line = e.location().map_or(1, |l| l.line());
    (
        duplicate_key_line(text, line, &message).unwrap_or(line),
        message,
    )
}

/// Drops every "at line L column C" from serde_yaml's and libyaml's
/// messages: the caller puts the line first.
fn strip_location(message: &str) -> String {
    let mut rest = message;
    let mut plain = String::with_capacity(message.len());
    while let Some(i) = rest.find(" at line ") {
        plain.push_str(&rest[..i]);
        let after = &rest[i + " at line ".len()..];
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let line_end = digits(after);
        match after[line_end..].strip_prefix(" column ") {
            Some(column) if line_end > 0 => rest = &column[digits(column)..],
            _ => {
                plain.push_str(" at line ");
                rest = after;
            }
        }
    }
    plain.push_str(rest);
    plain
}

/// serde reports a duplicate key at the start of its mapping (`from`); the
/// line of the key's second occurrence at the first one's indentation is
/// more useful.
fn duplicate_key_line(text: &str, from: usize, message: &str) -> Option<usize> {
    const DUPLICATE: &str = "duplicate field `";
    let start = message.find(DUPLICATE)? + DUPLICATE.len();
    let key = format!("{}:", &message[start..start + message[start..].find('`')?]);
    let mut first_column = None;
    for (i, line) in text.lines().enumerate().skip(from.saturating_sub(1)) {
        let mut content = line.trim_start();
        while let Some(item) = content.strip_prefix("- ") {
            content = item.trim_start();
        }
        if content.starts_with(&key) {
            let column = line.len() - content.len();
            match first_column {
                None => first_column = Some(column),
                Some(first) if first == column => return Some(i + 1),
                Some(_) => {}
            }
        }
    }
    None
}

/// serde's "unknown field `x`, expected one of `a`, `b`" with the closest
/// field suggested.
fn hint_unknown_field(message: String) -> String {
    const UNKNOWN: &str = "unknown field `";
    let Some(start) = message.find(UNKNOWN) else {
        return message;
    };
    let rest = &message[start + UNKNOWN.len()..];
    let Some(end) = rest.find('`') else {
        return message;
    };
    // The expected names are every other piece between backquotes.
    let expected = rest[end + 1..].split('`').skip(1).step_by(2);
    match suggest(&rest[..end], expected) {
        Some(s) => format!("{message} (did you mean `{s}`?)"),
        None => message,
    }
}

/// The line of the top-level `key:`.
pub(super) fn top_level_line(text: &str, key: &str) -> Option<usize> {
    let key = format!("{key}:");
    text.lines()
        .position(|l| l.starts_with(&key))
        .map(|i| i + 1)
}

/// The line of the top-level `checks:` key and the line of every entry of
/// it, in order: the lines that open a list item at the indentation of the
/// first one after `checks:` (which may be the key's own). A flow list
/// (`checks: [{...}]`) yields no entry lines; its entries get the key's line.
pub(super) fn entry_lines(text: &str) -> (usize, Vec<usize>) {
    let mut checks_line = 1;
    let mut lines = Vec::new();
    let mut in_checks = false;
    let mut indent = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let depth = line.len() - trimmed.len();
        let item = trimmed == "-" || trimmed.starts_with("- ");
        if depth == 0 && !item {
            in_checks = trimmed.starts_with("checks:");
            if in_checks {
                checks_line = i + 1;
            }
            continue;
        }
        if in_checks && item && *indent.get_or_insert(depth) == depth {
            lines.push(i + 1);
        }
    }
    (checks_line, lines)
}
