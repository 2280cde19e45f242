//! The YAML input: defaults and a list of checks.
//!
//! ```yaml
//! budget: 1s          # per candidate and size
//! datatype: byte
//! op: bor
//! checks:
//!   - collective: allreduce
//!     sizes: [8, 64, 1024]
//!     competitors: all
//!   - collective: bcast
//!     sizes: [8, 8192]
//!     root: 0
//!     competitors: [bcast_as_scatter_allgather]
//! ```
//!
//! Every name is checked while parsing, so errors carry the line and column.

use crate::candidates;
use crate::cli::parse_duration;
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use serde::{Deserialize, Deserializer};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A parsed input file.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    pub budget: Option<Duration>,
    pub rounds: Option<usize>,
    pub datatype: Datatype,
    pub op: Op,
    pub ppn: Option<usize>,
    pub checks: Vec<Check>,
}

/// One entry of `checks`.
#[derive(Debug, Clone)]
pub struct Check {
    pub collective: Collective,
    pub sizes: Vec<u64>,
    pub root: usize,
    /// `None` means all competitors of the collective.
    pub competitors: Option<Vec<String>>,
    pub datatype: Datatype,
    pub op: Op,
    /// Blocks of the n-block circulant broadcast.
    pub blocks: Option<usize>,
    /// The line of the entry in the file (1-based).
    pub line: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default, deserialize_with = "duration")]
    budget: Option<Duration>,
    #[serde(default, deserialize_with = "positive")]
    rounds: Option<usize>,
    #[serde(default, deserialize_with = "datatype")]
    datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    op: Option<Op>,
    #[serde(default, deserialize_with = "positive")]
    ppn: Option<usize>,
    checks: Vec<RawCheck>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCheck {
    #[serde(deserialize_with = "collective")]
    collective: Collective,
    #[serde(deserialize_with = "sizes")]
    sizes: Vec<u64>,
    #[serde(default)]
    root: Option<usize>,
    #[serde(default)]
    competitors: Option<Competitors>,
    #[serde(default, deserialize_with = "datatype")]
    datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    op: Option<Op>,
    #[serde(default, deserialize_with = "positive")]
    blocks: Option<usize>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Competitors {
    Keyword(String),
    List(Vec<String>),
}

/// The closest of `choices` to `name`, if it is close enough to be a typo.
pub fn suggest<'a>(name: &str, choices: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    choices
        .into_iter()
        .map(|c| (strsim::levenshtein(name, c), c))
        .filter(|&(d, c)| d <= 3.max(c.len() / 4))
        .min()
        .map(|(_, c)| c)
}

/// "unknown X `name` (did you mean `y`?); valid: a, b, c".
pub fn unknown<'a>(what: &str, name: &str, choices: impl IntoIterator<Item = &'a str> + Clone) -> String {
    let hint = suggest(name, choices.clone())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    let valid: Vec<&str> = choices.into_iter().collect();
    format!("unknown {what} `{name}`{hint}; valid: {}", valid.join(", "))
}

fn named<'de, D, T>(
    d: D,
    what: &str,
    parse: fn(&str) -> Option<T>,
    names: &[&'static str],
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let name = String::deserialize(d)?;
    parse(&name).ok_or_else(|| serde::de::Error::custom(unknown(what, &name, names.iter().copied())))
}

fn collective<'de, D: Deserializer<'de>>(d: D) -> Result<Collective, D::Error> {
    let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
    named(d, "collective", Collective::from_name, &names)
}

fn datatype<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Datatype>, D::Error> {
    let names: Vec<&str> = Datatype::ALL.iter().map(|c| c.name()).collect();
    named(d, "datatype", Datatype::from_name, &names).map(Some)
}

fn op<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Op>, D::Error> {
    let names: Vec<&str> = Op::ALL.iter().map(|c| c.name()).collect();
    named(d, "op", Op::from_name, &names).map(Some)
}

fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        Seconds(f64),
        Text(String),
    }
    let text = match Text::deserialize(d)? {
        Text::Seconds(s) => s.to_string(),
        Text::Text(t) => t,
    };
    parse_duration(&text)
        .map(Some)
        .map_err(|e| serde::de::Error::custom(format!("budget: {e}")))
}

fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    let value = i64::deserialize(d)?;
    if value <= 0 {
        return Err(serde::de::Error::custom(format!("{value} must be a positive integer")));
    }
    Ok(Some(value as usize))
}

fn sizes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    let sizes = Vec::<i64>::deserialize(d)?;
    if sizes.is_empty() {
        return Err(serde::de::Error::custom("sizes must list at least one size in bytes"));
    }
    let mut seen = std::collections::BTreeSet::new();
    for &s in &sizes {
        if s <= 0 {
            return Err(serde::de::Error::custom(format!(
                "size {s} must be a positive number of bytes"
            )));
        }
        if !seen.insert(s) {
            return Err(serde::de::Error::custom(format!("size {s} is listed twice")));
        }
    }
    Ok(sizes.into_iter().map(|s| s as u64).collect())
}

/// An input error: the message names the file and, where it applies, the line.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InputError {}

/// Reads and checks an input file.
pub fn load(path: &Path) -> Result<Config, InputError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| InputError(format!("{}: cannot read: {e}", path.display())))?;
    parse(path, &text)
}

/// Parses and checks the text of an input file.
pub fn parse(path: &Path, text: &str) -> Result<Config, InputError> {
    let at = |line: usize, msg: String| InputError(format!("{}:{line}: {msg}", path.display()));
    let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| match e.location() {
        Some(loc) => at(loc.line(), strip_location(&e.to_string())),
        None => InputError(format!("{}: {e}", path.display())),
    })?;
    if raw.checks.is_empty() {
        return Err(InputError(format!("{}: `checks` is empty", path.display())));
    }
    let lines = entry_lines(text);
    let datatype = raw.datatype.unwrap_or(Datatype::Byte);
    let op = raw.op.unwrap_or(Op::Bor);
    let mut checks = Vec::with_capacity(raw.checks.len());
    for (i, c) in raw.checks.into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let entry = format!("checks[{i}] ({})", c.collective);
        let datatype = c.datatype.unwrap_or(datatype);
        let op = c.op.unwrap_or(op);
        if c.collective.is_reduction() && !op.applies_to(datatype) {
            return Err(at(line, format!("{entry}: op `{}` is not defined for datatype `{}` (bitwise ops need an integer type)", op.name(), datatype.name())));
        }
        if let Some(s) = c.sizes.iter().find(|&&s| s % datatype.size() as u64 != 0) {
            return Err(at(line, format!("{entry}: size {s} is not a multiple of the {}-byte datatype `{}`", datatype.size(), datatype.name())));
        }
        if c.root.is_some() && !c.collective.is_rooted() {
            return Err(at(line, format!("{entry}: `root` applies only to bcast, gather, reduce and scatter")));
        }
        let competitors = match c.competitors {
            None => None,
            Some(Competitors::Keyword(k)) if k == "all" => None,
            Some(Competitors::Keyword(k)) => return Err(at(line, format!("{entry}: competitors must be `all` or a list of names, not `{k}`"))),
            Some(Competitors::List(names)) => {
                let valid: Vec<&str> = candidates::competitors_of(c.collective).map(|c| c.name).collect();
                for (j, name) in names.iter().enumerate() {
                    if !valid.contains(&name.as_str()) {
                        let what = format!("competitor of {}", c.collective);
                        return Err(at(line, format!("{entry}: {}", unknown(&what, name, valid.iter().copied()))));
                    }
                    if names[..j].contains(name) {
                        return Err(at(line, format!("{entry}: competitor `{name}` is listed twice")));
                    }
                }
                Some(names)
            }
        };
        checks.push(Check {
            collective: c.collective,
            sizes: c.sizes,
            root: c.root.unwrap_or(0),
            competitors,
            datatype,
            op,
            blocks: c.blocks,
            line,
        });
    }
    for (i, a) in checks.iter().enumerate() {
        if let Some(b) = checks[..i].iter().find(|b| b.collective == a.collective && b.root == a.root && b.datatype == a.datatype && b.op == a.op && b.sizes.iter().any(|s| a.sizes.contains(s))) {
            return Err(at(a.line, format!("duplicate check: {} with the same sizes, root, datatype and op is already at line {}", a.collective, b.line)));
        }
    }
    Ok(Config {
        path: path.to_path_buf(),
        budget: raw.budget,
        rounds: raw.rounds,
        datatype,
        op,
        ppn: raw.ppn,
        checks,
    })
}

/// serde_yaml appends "at line L column C"; the caller puts the line first.
fn strip_location(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message.to_string(),
    }
}

/// The line of every entry of `checks`, in order: the lines that open a
/// list item at the indentation of the first one after `checks:`.
fn entry_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut in_checks = false;
    let mut indent = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let depth = line.len() - trimmed.len();
        if depth == 0 {
            in_checks = trimmed.starts_with("checks:");
            continue;
        }
        if in_checks && trimmed.starts_with('-') && *indent.get_or_insert(depth) == depth {
            lines.push(i + 1);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Config, InputError> {
        parse(Path::new("test.yaml"), text)
    }

    #[test]
    fn parses_defaults_and_checks() {
        let config = parse_str(
            "budget: 250ms\ndatatype: int32\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [8, 64]\n  - collective: bcast\n    sizes: [4]\n    root: 2\n",
        )
        .unwrap();
        assert_eq!(config.budget, Some(Duration::from_millis(250)));
        assert_eq!(config.checks.len(), 2);
        assert_eq!(config.checks[1].root, 2);
        assert_eq!(config.checks[1].line, 7);
        assert_eq!(config.checks[0].datatype, Datatype::Int32);
    }

    #[test]
    fn names_the_line_and_suggests() {
        let err = parse_str("checks:\n  - collective: allreduc\n    sizes: [8]\n").unwrap_err();
        assert!(err.0.starts_with("test.yaml:2:"), "{}", err.0);
        assert!(err.0.contains("did you mean `allreduce`"), "{}", err.0);
        let err = parse_str("checks:\n  - collective: allreduce\n    sizes: [8]\n    colour: red\n").unwrap_err();
        assert!(err.0.contains("colour"), "{}", err.0);
    }

    #[test]
    fn checks_sizes_against_the_datatype() {
        let err = parse_str("datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [12]\n").unwrap_err();
        assert!(err.0.contains("test.yaml:4:") && err.0.contains("multiple"), "{}", err.0);
    }
}
