//! The YAML input: defaults and a list of checks.
//!
//! ```yaml
//! budget: 1s          # per candidate and size
//! datatype: byte
//! op: bor
//! checks:
//!   - collective: allreduce
//!     sizes: [8, 64, 1KiB, 4K:64K]   # bytes, binary units, doubling ranges
//!     competitors: all
//!   - collective: bcast
//!     sizes: [8, 8192]
//!     root: 0
//!     competitors: [bcast_as_scatter_allgather]
//!   - collective: allreduce
//!     sizes: [65536]
//!     competitors: [all, library]   # or `library`: the library's own algorithms
//!     in_place: both    # also time `default` with MPI_IN_PLACE (true: only so)
//! ```
//!
//! Every value is checked while parsing, inside serde visitors, so that its
//! error carries the value's own line. What needs more than one value (sizes
//! against the datatype, competitor names against the collective, duplicate
//! checks) is checked afterwards and reported at the line of the check.
//! The visitors are in `values`; finding lines in the text is `lines`' job.
//!
//! `run --collective C --sizes LIST …` gives one check on the command line
//! instead ([`from_options`]); it goes through the same checks.

mod lines;
#[cfg(test)]
mod tests;
mod values;

use crate::candidates;
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use crate::settings::{SyncRequest, TimedForms};
use std::path::{Path, PathBuf};
use std::time::Duration;
pub use values::RawCheck;
use values::RawConfig;

/// The most elements one buffer may hold: MPI counts are C `int`s.
pub const MAX_COUNT: u64 = i32::MAX as u64;

/// Where an input comes from, for its error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A YAML file: errors start with its path and the line.
    File(PathBuf),
    /// `run --collective …`: errors name the options.
    Options,
    /// `run` without an input: [`DEFAULT_INPUT`], whose errors name it
    /// [`DEFAULT_INPUT_NAME`].
    Default,
}

/// The check `run` runs without an input: `inputs/quick.yaml`, compiled in,
/// so that the first command needs no file; the file stays the one to copy
/// and edit.
pub const DEFAULT_INPUT: &str = include_str!("../../inputs/quick.yaml");

/// How errors and the help name [`DEFAULT_INPUT`].
pub const DEFAULT_INPUT_NAME: &str = "the default input (inputs/quick.yaml)";

/// A parsed input: a file, or one check given on the command line.
#[derive(Debug, Clone)]
pub struct Config {
    pub source: Source,
    pub budget: Option<Duration>,
    pub rounds: Option<usize>,
    pub datatype: Datatype,
    pub op: Op,
    pub ppn: Option<usize>,
    /// How observations are synchronised (`--sync` overrides it).
    pub sync: Option<SyncRequest>,
    /// The line of `ppn` in the file, for the error when it does not
    /// divide the processes (known only once MPI runs).
    pub ppn_line: Option<usize>,
    pub checks: Vec<Check>,
}

impl Config {
    /// The input with `--in-place` over every check that has an in-place
    /// form (all but bcast's): the command line over the file, as for
    /// `--datatype`.
    pub fn with_in_place(mut self, forms: TimedForms) -> Config {
        for check in &mut self.checks {
            if check.operation.has_in_place() {
                check.in_place = forms;
            }
        }
        self
    }

    /// The error `message` about the check at `line`: after the file's path
    /// and the line, or as it is for the command line.
    pub fn error_at(&self, line: usize, message: &str) -> InputError {
        InputError(match &self.source {
            Source::File(path) => format!("{}:{line}: {message}", path.display()),
            Source::Default => format!("{DEFAULT_INPUT_NAME}:{line}: {message}"),
            Source::Options => message.to_string(),
        })
    }
}

/// One entry of `checks`.
#[derive(Debug, Clone)]
pub struct Check {
    pub operation: Operation,
    pub sizes: Vec<u64>,
    pub root: usize,
    /// `None` means all competitors of the operation.
    pub competitors: Option<Vec<String>>,
    pub datatype: Datatype,
    pub op: Op,
    /// Blocks of the n-block circulant broadcast.
    pub blocks: Option<usize>,
    /// Which forms of the library's call are timed (`in_place`).
    pub in_place: TimedForms,
    /// The line of the entry in the file (1-based).
    pub line: usize,
}

impl Check {
    /// The checks that depend on the datatype and op, to repeat when
    /// `--datatype` or `--op` replace the file's: the op is defined for the
    /// datatype, and every size is a whole number of elements that fits an
    /// MPI count.
    pub fn validate_elements(&self) -> Result<(), String> {
        if self.operation.is_reduction() && !self.op.applies_to(self.datatype) {
            return Err(format!(
                "op `{}` is not defined for datatype `{}` (bitwise ops need an integer type)",
                self.op.name(),
                self.datatype.name()
            ));
        }
        for &size in &self.sizes {
            count_of(self.operation.collective, size, self.datatype)?;
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

/// An operation by its name (`allreduce`, `iallreduce`), as the file and
/// the options spell it; the error suggests the closest name.
pub fn parse_operation(name: &str) -> Result<Operation, String> {
    Operation::from_name(name).ok_or_else(|| {
        let names: Vec<String> = Operation::all().map(|o| o.name()).collect();
        unknown("collective", name, names.iter().map(String::as_str))
    })
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
    parse_from(
        &path.display().to_string(),
        Source::File(path.to_path_buf()),
        text,
    )
}

/// The default input, [`DEFAULT_INPUT`], parsed and checked.
pub fn default_input() -> Result<Config, InputError> {
    parse_from(DEFAULT_INPUT_NAME, Source::Default, DEFAULT_INPUT)
}

/// Parses and checks the text of an input from `source`, a file or the
/// default input, whose errors start with `name`.
fn parse_from(name: &str, source: Source, text: &str) -> Result<Config, InputError> {
    let at = |line: usize, msg: String| InputError(format!("{name}:{line}: {msg}"));
    if text
        .lines()
        .all(|l| matches!(l.trim(), "" | "---" | "...") || l.trim_start().starts_with('#'))
    {
        return Err(at(1, "the file is empty; it needs a `checks:` list".into()));
    }
    let raw: RawConfig = serde_yaml::from_str(text).map_err(|e| {
        let (line, message) = lines::yaml_error(text, &e);
        at(line, message)
    })?;
    let (checks_line, entries) = lines::entry_lines(text);
    let datatype = raw.datatype.unwrap_or(Datatype::Byte);
    let op = raw.op.unwrap_or(Op::Bor);
    let mut checks = Vec::with_capacity(raw.checks.len());
    for (i, c) in raw.checks.into_iter().enumerate() {
        let line = entries.get(i).copied().unwrap_or(checks_line);
        let about = format!("checks[{i}] ({})", c.collective);
        let check = check_of(c, (datatype, raw.op), line, &FILE_SPELLING)
            .map_err(|e| at(line, format!("{about}: {e}")))?;
        checks.push(check);
    }
    for (i, a) in checks.iter().enumerate() {
        let same = |b: &&Check| {
            b.operation == a.operation
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
                    a.operation, b.line
                ),
            ));
        }
    }
    Ok(Config {
        source,
        budget: raw.budget,
        rounds: raw.rounds,
        datatype,
        op,
        ppn: raw.ppn,
        sync: raw.sync,
        ppn_line: raw
            .ppn
            .map(|_| lines::top_level_line(text, "ppn").unwrap_or(1)),
        checks,
    })
}

/// How messages name an input's keys: the file's, or the options'.
struct Spelling {
    /// `root` in the file, `--root` on the command line.
    key: fn(&str) -> String,
    /// What to add when the default op does not fit the datatype.
    op_hint: &'static str,
}

const FILE_SPELLING: Spelling = Spelling {
    key: |k| format!("`{k}`"),
    op_hint: " (set `op:`, the default is `bor`)",
};

const OPTION_SPELLING: Spelling = Spelling {
    key: |k| format!("--{}", k.replace('_', "-")),
    op_hint: " (give --op, the default is bor)",
};

/// A check as written, checked, with the input's datatype and op (`None`:
/// not given, `bor`) where it gives none.
fn check_of(
    c: RawCheck,
    (datatype, op): (Datatype, Option<Op>),
    line: usize,
    spelling: &Spelling,
) -> Result<Check, String> {
    let key = spelling.key;
    if c.sizes.is_empty() && c.collective.collective.has_size() {
        return Err(format!(
            "{} is missing: the sizes to check (only a barrier has none)",
            key("sizes")
        ));
    }
    if c.root.is_some() && !c.collective.is_rooted() {
        return Err(format!(
            "{} applies only to bcast, gather, reduce and scatter",
            key("root")
        ));
    }
    let split = [Collective::Send, Collective::SendHalo].map(Operation::from);
    if c.blocks.is_some()
        && c.collective != Collective::Bcast.into()
        && !split.contains(&c.collective)
    {
        return Err(format!(
            "{} applies only to bcast (the n-block circulant broadcast) and to send and \
             send_halo (the pieces of `*_as_split`)",
            key("blocks")
        ));
    }
    if c.in_place.is_some() && !c.collective.has_in_place() {
        return Err(format!(
            "{} applies to every blocking collective but bcast, which has no MPI_IN_PLACE form",
            key("in_place")
        ));
    }
    if let Some(names) = &c.competitors {
        check_competitors(c.collective, names)?;
    }
    let check = Check {
        operation: c.collective,
        sizes: c.sizes,
        root: c.root.unwrap_or(0),
        competitors: c.competitors,
        datatype: c.datatype.unwrap_or(datatype),
        op: c.op.or(op).unwrap_or(Op::Bor),
        blocks: c.blocks,
        in_place: c.in_place.unwrap_or_default(),
        line,
    };
    if let Err(e) = check.validate_elements() {
        let hint = match c.op.is_none() && op.is_none() && !check.op.applies_to(check.datatype) {
            true => spelling.op_hint,
            false => "",
        };
        return Err(format!("{e}{hint}"));
    }
    Ok(check)
}

/// The input of `run --collective C --sizes LIST …`: one check, checked as
/// a file's would be, whose errors name the options.
pub fn from_options(check: RawCheck) -> Result<Config, InputError> {
    let datatype = check.datatype.unwrap_or(Datatype::Byte);
    let op = check.op;
    let check = check_of(check, (datatype, op), 0, &OPTION_SPELLING).map_err(InputError)?;
    Ok(Config {
        source: Source::Options,
        budget: None,
        rounds: None,
        datatype,
        op: op.unwrap_or(Op::Bor),
        ppn: None,
        sync: None,
        ppn_line: None,
        checks: vec![check],
    })
}

/// Every name is a competitor of `operation` or a selector (`all`,
/// `library`), and none is listed twice.
fn check_competitors(operation: Operation, names: &[String]) -> Result<(), String> {
    // A competitor found by name needs no list of them all: that list
    // holds the library's algorithms, which starts MPI_T.
    let known = |name: &str| {
        candidates::SELECTORS.contains(&name)
            || candidates::find(name).is_some_and(|c| c.operation == operation)
    };
    for (j, name) in names.iter().enumerate() {
        if !known(name) {
            let valid: Vec<&str> = candidates::competitors_of(operation)
                .map(|c| c.name)
                .chain(candidates::SELECTORS)
                .collect();
            let what = format!("competitor of {operation}");
            // A competitor of another collective is a likelier mistake than a typo.
            let elsewhere = candidates::find(name)
                .map(|c| format!(" (`{name}` is a competitor of {})", c.operation))
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
