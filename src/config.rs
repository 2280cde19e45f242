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
//! Every value is checked while parsing, inside serde visitors, so that its
//! error carries the value's own line. What needs more than one value (sizes
//! against the datatype, competitor names against the collective, duplicate
//! checks) is checked afterwards and reported at the line of the check.

use crate::candidates;
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use crate::settings::SyncMode;
use crate::units::parse_duration;
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The most elements one buffer may hold: MPI counts are C `int`s.
pub const MAX_COUNT: u64 = i32::MAX as u64;

/// A parsed input file.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    pub budget: Option<Duration>,
    pub rounds: Option<usize>,
    pub datatype: Datatype,
    pub op: Op,
    pub ppn: Option<usize>,
    /// How observations are synchronised (`--sync` overrides it).
    pub sync: Option<SyncMode>,
    /// The line of `ppn` in the file, for the error when it does not
    /// divide the processes (known only once MPI runs).
    pub ppn_line: Option<usize>,
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

impl Check {
    /// The checks that depend on the datatype and op, to repeat when
    /// `--datatype` or `--op` replace the file's: the op is defined for the
    /// datatype, and every size is a whole number of elements that fits an
    /// MPI count.
    pub fn validate_elements(&self) -> Result<(), String> {
        if self.collective.is_reduction() && !self.op.applies_to(self.datatype) {
            return Err(format!(
                "op `{}` is not defined for datatype `{}` (bitwise ops need an integer type)",
                self.op.name(),
                self.datatype.name()
            ));
        }
        for &size in &self.sizes {
            count_of(self.collective, size, self.datatype)?;
        }
        Ok(())
    }
}

/// The element count of `size` bytes of `datatype`: a whole number of
/// elements that fits an MPI count. For the collectives whose size is per
/// process, the whole buffer is p times larger, which the caller must check
/// once p is known.
pub fn count_of(collective: Collective, size: u64, datatype: Datatype) -> Result<usize, String> {
    let width = datatype.size() as u64;
    let count = size / width;
    if count * width != size {
        return Err(format!(
            "size {size} is not a multiple of the {width}-byte datatype `{}`",
            datatype.name()
        ));
    }
    if count > MAX_COUNT {
        let per = if collective.size_is_per_process() {
            " per process"
        } else {
            ""
        };
        return Err(format!(
            "size {size} is {count} elements of `{}`{per}, more than an MPI count can hold \
             ({MAX_COUNT}, i.e. at most {} bytes)",
            datatype.name(),
            MAX_COUNT * width
        ));
    }
    Ok(count as usize)
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with `checks` and optional budget, rounds, datatype, op, ppn"
)]
struct RawConfig {
    #[serde(default, deserialize_with = "budget")]
    budget: Option<Duration>,
    #[serde(default, deserialize_with = "rounds")]
    rounds: Option<usize>,
    #[serde(default, deserialize_with = "datatype")]
    datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    op: Option<Op>,
    #[serde(default, deserialize_with = "ppn")]
    ppn: Option<usize>,
    #[serde(default, deserialize_with = "sync")]
    sync: Option<SyncMode>,
    #[serde(deserialize_with = "checks")]
    checks: Vec<RawCheck>,
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a check: a mapping with `collective` and `sizes`"
)]
struct RawCheck {
    #[serde(deserialize_with = "collective")]
    collective: Collective,
    #[serde(deserialize_with = "sizes")]
    sizes: Vec<u64>,
    #[serde(default, deserialize_with = "root")]
    root: Option<usize>,
    /// `None`: not given or `all`.
    #[serde(default, deserialize_with = "competitors")]
    competitors: Option<Vec<String>>,
    #[serde(default, deserialize_with = "datatype")]
    datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    op: Option<Op>,
    #[serde(default, deserialize_with = "blocks")]
    blocks: Option<usize>,
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
pub fn unknown<'a>(
    what: &str,
    name: &str,
    choices: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let hint = suggest(name, choices.clone())
        .map(|s| format!(" (did you mean `{s}`?)"))
        .unwrap_or_default();
    let valid: Vec<&str> = choices.into_iter().collect();
    format!("unknown {what} `{name}`{hint}; valid: {}", valid.join(", "))
}

/// A scalar as YAML typed it.
enum Scalar<'a> {
    Int(i128),
    Float(f64),
    Text(&'a str),
}

impl fmt::Display for Scalar<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::Int(i) => write!(f, "{i}"),
            Scalar::Float(x) => write!(f, "{x}"),
            Scalar::Text(t) => f.write_str(t),
        }
    }
}

/// Hands a scalar to `check`. The error is raised inside the visitor, where
/// serde_yaml attaches the value's own line to it; anything but a scalar is
/// an "invalid type, expected `expecting`" error.
struct ScalarVisitor<'e, F> {
    expecting: &'e str,
    check: F,
}

impl<'de, T, F: FnOnce(Scalar) -> Result<T, String>> Visitor<'de> for ScalarVisitor<'_, F> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        (self.check)(Scalar::Int(v.into())).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        (self.check)(Scalar::Int(v.into())).map_err(E::custom)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        (self.check)(Scalar::Float(v)).map_err(E::custom)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        (self.check)(Scalar::Text(v)).map_err(E::custom)
    }
}

fn scalar<'de, D, T>(
    d: D,
    expecting: &str,
    check: impl FnOnce(Scalar) -> Result<T, String>,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    d.deserialize_any(ScalarVisitor { expecting, check })
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
    let expecting = format!("a {what} name");
    scalar(d, &expecting, |value| {
        let name = value.to_string();
        parse(&name).ok_or_else(|| unknown(what, &name, names.iter().copied()))
    })
}

fn collective<'de, D: Deserializer<'de>>(d: D) -> Result<Collective, D::Error> {
    let names: Vec<&str> = Collective::ALL.iter().map(|c| c.name()).collect();
    named(d, "collective", Collective::from_name, &names)
}

fn datatype<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Datatype>, D::Error> {
    let names: Vec<&str> = Datatype::ALL.iter().map(|c| c.name()).collect();
    named(d, "datatype", Datatype::from_name, &names).map(Some)
}

fn sync<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SyncMode>, D::Error> {
    let parse = |name: &str| match name {
        "barrier" => Some(SyncMode::Barrier),
        "roundtime" => Some(SyncMode::Roundtime),
        _ => None,
    };
    named(d, "sync", parse, &["barrier", "roundtime"]).map(Some)
}

fn op<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Op>, D::Error> {
    let names: Vec<&str> = Op::ALL.iter().map(|c| c.name()).collect();
    named(d, "op", Op::from_name, &names).map(Some)
}

fn budget<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    scalar(d, "a duration like 500ms or 2s", |value| {
        let text = value.to_string();
        // parse_duration takes a leading `-` for a unit-less typo.
        if text.trim_start().starts_with('-') {
            return Err(format!("budget `{text}` must be positive"));
        }
        parse_duration(&text)
            .map(Some)
            .map_err(|e| format!("budget: {e}"))
    })
}

/// An integer of at least `min`, named `what` in the error.
fn integer<'de, D: Deserializer<'de>>(d: D, what: &str, min: i128) -> Result<usize, D::Error> {
    let expecting = format!("an integer of at least {min}");
    scalar(d, &expecting, |value| match value {
        Scalar::Int(i) if i >= min => {
            usize::try_from(i).map_err(|_| format!("{what} {i} is too large"))
        }
        _ => Err(format!(
            "{what} must be an integer of at least {min}, not `{value}`"
        )),
    })
}

fn rounds<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    integer(d, "rounds", 1).map(Some)
}

fn ppn<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    integer(d, "ppn", 1).map(Some)
}

fn blocks<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    integer(d, "blocks", 1).map(Some)
}

fn root<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    integer(d, "root", 0).map(Some)
}

/// One size in bytes, checked where it stands.
struct Size;

impl<'de> DeserializeSeed<'de> for Size {
    type Value = u64;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        scalar(d, "a size in bytes", |value| match value {
            Scalar::Int(i) if i > 0 => {
                u64::try_from(i).map_err(|_| format!("size {i} is too large"))
            }
            Scalar::Int(i) => Err(format!("size {i} must be a positive number of bytes")),
            _ => Err(format!(
                "size `{value}` must be a positive whole number of bytes"
            )),
        })
    }
}

struct SizesVisitor;

impl<'de> Visitor<'de> for SizesVisitor {
    type Value = Vec<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of sizes in bytes, like [8, 1024]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
        let mut sizes = Vec::new();
        while let Some(size) = seq.next_element_seed(Size)? {
            if sizes.contains(&size) {
                return Err(de::Error::custom(format!("size {size} is listed twice")));
            }
            sizes.push(size);
        }
        if sizes.is_empty() {
            return Err(de::Error::custom(
                "sizes must list at least one size in bytes",
            ));
        }
        Ok(sizes)
    }
}

fn sizes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    d.deserialize_any(SizesVisitor)
}

struct CompetitorsVisitor;

impl<'de> Visitor<'de> for CompetitorsVisitor {
    type Value = Option<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`all` or a list of competitor names")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "all" => Ok(None),
            other => Err(E::custom(format!(
                "competitors must be `all` or a list of names, not `{other}`"
            ))),
        }
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut names = Vec::new();
        while let Some(name) = seq.next_element::<String>()? {
            names.push(name);
        }
        Ok(Some(names))
    }
}

fn competitors<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    d.deserialize_any(CompetitorsVisitor)
}

struct ChecksVisitor;

impl<'de> Visitor<'de> for ChecksVisitor {
    type Value = Vec<RawCheck>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of checks")
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Err(E::custom(EMPTY_CHECKS))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut checks = Vec::new();
        while let Some(check) = seq.next_element()? {
            checks.push(check);
        }
        if checks.is_empty() {
            return Err(de::Error::custom(EMPTY_CHECKS));
        }
        Ok(checks)
    }
}

const EMPTY_CHECKS: &str = "`checks` is empty: list at least one check";

fn checks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RawCheck>, D::Error> {
    d.deserialize_any(ChecksVisitor)
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
    if text
        .lines()
        .all(|l| matches!(l.trim(), "" | "---" | "...") || l.trim_start().starts_with('#'))
    {
        return Err(at(1, "the file is empty; it needs a `checks:` list".into()));
    }
    let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| {
        let message = hint_unknown_field(strip_location(&e.to_string()));
        let line = e.location().map_or(1, |l| l.line());
        at(
            duplicate_key_line(text, line, &message).unwrap_or(line),
            message,
        )
    })?;
    let (checks_line, lines) = entry_lines(text);
    let datatype = raw.datatype.unwrap_or(Datatype::Byte);
    let op = raw.op.unwrap_or(Op::Bor);
    let mut checks = Vec::with_capacity(raw.checks.len());
    for (i, c) in raw.checks.into_iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(checks_line);
        let fail = |msg: String| Err(at(line, format!("checks[{i}] ({}): {msg}", c.collective)));
        if c.root.is_some() && !c.collective.is_rooted() {
            return fail("`root` applies only to bcast, gather, reduce and scatter".into());
        }
        if c.blocks.is_some() && c.collective != Collective::Bcast {
            return fail("`blocks` applies only to bcast (the n-block circulant broadcast)".into());
        }
        if let Some(names) = &c.competitors {
            if let Err(e) = check_competitors(c.collective, names) {
                return fail(e);
            }
        }
        let check = Check {
            collective: c.collective,
            sizes: c.sizes,
            root: c.root.unwrap_or(0),
            competitors: c.competitors,
            datatype: c.datatype.unwrap_or(datatype),
            op: c.op.unwrap_or(op),
            blocks: c.blocks,
            line,
        };
        if let Err(e) = check.validate_elements() {
            let hint = if c.op.is_none() && raw.op.is_none() && !check.op.applies_to(check.datatype)
            {
                " (set `op:`, the default is `bor`)"
            } else {
                ""
            };
            return fail(format!("{e}{hint}"));
        }
        checks.push(check);
    }
    for (i, a) in checks.iter().enumerate() {
        let same = |b: &&Check| {
            b.collective == a.collective
                && b.root == a.root
                && b.datatype == a.datatype
                && b.op == a.op
                && b.sizes.iter().any(|s| a.sizes.contains(s))
        };
        if let Some(b) = checks[..i].iter().find(same) {
            return Err(at(
                a.line,
                format!(
                    "duplicate check: {} with the same sizes, root, datatype and op is already at line {}",
                    a.collective, b.line
                ),
            ));
        }
    }
    Ok(Config {
        path: path.to_path_buf(),
        budget: raw.budget,
        rounds: raw.rounds,
        datatype,
        op,
        ppn: raw.ppn,
        sync: raw.sync,
        ppn_line: raw.ppn.map(|_| top_level_line(text, "ppn").unwrap_or(1)),
        checks,
    })
}

/// Every name is a competitor of `collective`, and none is listed twice.
fn check_competitors(collective: Collective, names: &[String]) -> Result<(), String> {
    let valid: Vec<&str> = candidates::competitors_of(collective)
        .map(|c| c.name)
        .collect();
    for (j, name) in names.iter().enumerate() {
        if !valid.contains(&name.as_str()) {
            let what = format!("competitor of {collective}");
            // A competitor of another collective is a likelier mistake than a typo.
            let elsewhere = candidates::find(name)
                .map(|c| format!(" (`{name}` is a competitor of {})", c.collective))
                .unwrap_or_default();
            return Err(format!(
                "{}{elsewhere}",
                unknown(&what, name, valid.iter().copied())
            ));
        }
        if names[..j].contains(name) {
            return Err(format!("competitor `{name}` is listed twice"));
        }
    }
    Ok(())
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
fn top_level_line(text: &str, key: &str) -> Option<usize> {
    let key = format!("{key}:");
    text.lines()
        .position(|l| l.starts_with(&key))
        .map(|i| i + 1)
}

/// The line of the top-level `checks:` key and the line of every entry of
/// it, in order: the lines that open a list item at the indentation of the
/// first one after `checks:` (which may be the key's own). A flow list
/// (`checks: [{...}]`) yields no entry lines; its entries get the key's line.
fn entry_lines(text: &str) -> (usize, Vec<usize>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_str(text: &str) -> Result<Config, InputError> {
        parse(Path::new("test.yaml"), text)
    }

    fn error(text: &str) -> String {
        parse_str(text).unwrap_err().0
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
        assert_eq!(config.ppn_line, None);
        let config =
            parse_str("budget: 1s\nppn: 2\nchecks:\n  - collective: allreduce\n    sizes: [8]\n")
                .unwrap();
        assert_eq!((config.ppn, config.ppn_line), (Some(2), Some(2)));
    }

    #[test]
    fn names_the_line_and_suggests() {
        let err = error("checks:\n  - collective: allreduc\n    sizes: [8]\n");
        assert!(err.starts_with("test.yaml:2:"), "{err}");
        assert!(err.contains("did you mean `allreduce`"), "{err}");
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n    colour: red\n");
        assert!(
            err.starts_with("test.yaml:4:") && err.contains("colour"),
            "{err}"
        );
        let err = error("budgt: 1s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n");
        assert!(err.contains("did you mean `budget`"), "{err}");
    }

    #[test]
    fn values_are_reported_at_their_own_line() {
        let err = error("checks:\n  - sizes: [8]\n    collective: allreduc\n");
        assert!(err.starts_with("test.yaml:3:"), "{err}");
        let err = error(
            "datatype: byte\n\nbudget: -1s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n",
        );
        assert!(
            err.starts_with("test.yaml:3:") && err.contains("positive"),
            "{err}"
        );
        let err = error("checks:\n  - collective: allreduce\n    sizes:\n      - 8\n      - 0\n");
        assert!(
            err.starts_with("test.yaml:5:") && err.contains("size 0"),
            "{err}"
        );
        let err = error("rounds: 1\nppn: 0\nchecks:\n  - collective: allreduce\n    sizes: [8]\n");
        assert!(
            err.starts_with("test.yaml:2:") && err.contains("ppn"),
            "{err}"
        );
        let err = error("checks:\n  - collective: bcast\n    sizes: [8]\n    competitors: 5\n");
        assert!(
            err.starts_with("test.yaml:4:") && err.contains("`all` or a list"),
            "{err}"
        );
    }

    #[test]
    fn checks_sizes_against_the_datatype() {
        let err = error(
            "datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [12]\n",
        );
        assert!(
            err.contains("test.yaml:4:") && err.contains("multiple"),
            "{err}"
        );
        let err = error("checks:\n  - collective: bcast\n    sizes: [1000000000000000]\n");
        assert!(
            err.contains("test.yaml:2:") && err.contains("MPI count"),
            "{err}"
        );
        let fits = "datatype: int64\nop: sum\nchecks:\n  - collective: allreduce\n    sizes: [17179869176]\n";
        assert!(parse_str(fits).is_ok());
    }

    #[test]
    fn duplicate_keys_are_reported_where_they_repeat() {
        let err = error("budget: 1s\nrounds: 2\nbudget: 2s\nchecks:\n  - collective: allreduce\n    sizes: [8]\n");
        assert!(
            err.starts_with("test.yaml:3: duplicate field `budget`"),
            "{err}"
        );
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n  - collective: bcast\n    sizes: [8]\n    sizes: [16]\n");
        assert!(
            err.starts_with("test.yaml:6: checks[1]: duplicate field `sizes`"),
            "{err}"
        );
    }

    #[test]
    fn libyaml_messages_lose_only_the_location() {
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8, 64]]\n");
        assert_eq!(
            err,
            "test.yaml:3: did not find expected key, while parsing a block mapping"
        );
    }

    #[test]
    fn an_empty_list_of_checks_has_a_line() {
        for text in ["budget: 1s\nchecks: []\n", "budget: 1s\nchecks:\n"] {
            let err = error(text);
            assert!(
                err.starts_with("test.yaml:2:") && err.contains("empty"),
                "{err}"
            );
        }
        assert!(error("# nothing\n").contains("empty"));
    }

    #[test]
    fn finds_entry_lines_in_every_layout() {
        let flush =
            "checks:\n- collective: allreduce\n  sizes: [8]\n- collective: bcast\n  sizes: [8]\n";
        let lines: Vec<usize> = parse_str(flush)
            .unwrap()
            .checks
            .iter()
            .map(|c| c.line)
            .collect();
        assert_eq!(lines, [2, 4]);
        let flow = "budget: 1s\nchecks: [{collective: allreduce, sizes: [8]}]\n";
        assert_eq!(parse_str(flow).unwrap().checks[0].line, 2);
    }

    #[test]
    fn rejects_settings_that_do_not_apply() {
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n    root: 0\n");
        assert!(err.contains("`root` applies only"), "{err}");
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n    blocks: 4\n");
        assert!(err.contains("`blocks` applies only"), "{err}");
        let err = error("checks:\n  - collective: allreduce\n    sizes: [8]\n    competitors: [bcast_as_scatter_allgather]\n");
        assert!(err.contains("is a competitor of bcast"), "{err}");
    }
}
