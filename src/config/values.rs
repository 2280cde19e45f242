//! The serde side of the input: raw structs whose values are each checked
//! inside a visitor, so that serde_yaml gives the error the value's own line.

use super::unknown;
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use crate::settings::{SyncRequest, TimedForms};
use crate::units::{add_sizes, parse_duration, parse_size_entry, parse_sizes};
use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::time::Duration;

/// The file as written; `super::parse` fills in the defaults.
#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a mapping with `checks` and optional budget, rounds, datatype, op, ppn"
)]
pub(super) struct RawConfig {
    #[serde(default, deserialize_with = "budget")]
    pub(super) budget: Option<Duration>,
    #[serde(default, deserialize_with = "rounds")]
    pub(super) rounds: Option<usize>,
    #[serde(default, deserialize_with = "datatype")]
    pub(super) datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    pub(super) op: Option<Op>,
    #[serde(default, deserialize_with = "ppn")]
    pub(super) ppn: Option<usize>,
    #[serde(default, deserialize_with = "sync")]
    pub(super) sync: Option<SyncRequest>,
    #[serde(deserialize_with = "checks")]
    pub(super) checks: Vec<RawCheck>,
}

/// One entry of `checks` as written, or the options of
/// `run --collective …`; `None` is not given.
#[derive(Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a check: a mapping with `collective` and `sizes` (a barrier has none)"
)]
pub struct RawCheck {
    /// The operation (`allreduce`, `iallreduce`, `send`), under its input
    /// key (`collective`, or `operation`).
    #[serde(alias = "operation", deserialize_with = "operation")]
    pub collective: Operation,
    /// Empty when not given: only a barrier, which has no data, may omit it.
    #[serde(default, deserialize_with = "sizes")]
    pub sizes: Vec<u64>,
    #[serde(default, deserialize_with = "root")]
    pub root: Option<usize>,
    /// `None`: not given or `all`.
    #[serde(default, deserialize_with = "competitors")]
    pub competitors: Option<Vec<String>>,
    #[serde(default, deserialize_with = "datatype")]
    pub datatype: Option<Datatype>,
    #[serde(default, deserialize_with = "op")]
    pub op: Option<Op>,
    #[serde(default, deserialize_with = "blocks")]
    pub blocks: Option<usize>,
    #[serde(default, deserialize_with = "in_place")]
    pub in_place: Option<TimedForms>,
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

/// One of `names`, which `parse` turns into a value.
fn named<'de, D, T>(
    d: D,
    what: &str,
    parse: fn(&str) -> Option<T>,
    names: impl IntoIterator<Item = &'static str> + Clone,
) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
{
    let expecting = format!("a {what} name");
    scalar(d, &expecting, |value| {
        let name = value.to_string();
        parse(&name).ok_or_else(|| unknown(what, &name, names))
    })
}

fn operation<'de, D: Deserializer<'de>>(d: D) -> Result<Operation, D::Error> {
    scalar(d, "a collective name", |value| {
        super::parse_operation(&value.to_string())
    })
}

fn datatype<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Datatype>, D::Error> {
    let names = Datatype::ALL.iter().map(|t| t.name());
    named(d, "datatype", Datatype::from_name, names).map(Some)
}

fn sync<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SyncRequest>, D::Error> {
    let parse = |name: &str| match name {
        "auto" => Some(SyncRequest::Auto),
        "barrier" => Some(SyncRequest::Barrier),
        "roundtime" => Some(SyncRequest::Roundtime),
        _ => None,
    };
    named(d, "sync", parse, ["auto", "barrier", "roundtime"]).map(Some)
}

fn op<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Op>, D::Error> {
    let names = Op::ALL.iter().map(|o| o.name());
    named(d, "op", Op::from_name, names).map(Some)
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

/// `in_place`: `false`, `true` or `both` (quoted or not).
struct InPlaceVisitor;

impl<'de> Visitor<'de> for InPlaceVisitor {
    type Value = Option<TimedForms>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`false`, `true` or `both`")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Some(match v {
            false => TimedForms::Usual,
            true => TimedForms::InPlace,
        }))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "false" | "true" => self.visit_bool(v == "true"),
            "both" => Ok(Some(TimedForms::Both)),
            other => Err(E::custom(format!(
                "in_place must be `false`, `true` or `both`, not `{other}`"
            ))),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        self.visit_str(&v.to_string())
    }
}

fn in_place<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TimedForms>, D::Error> {
    d.deserialize_any(InPlaceVisitor)
}

/// One entry of `sizes`, checked where it stands: a number of bytes, or
/// text as the command line's `--sizes` takes it (`1KiB`, `4K:1M`).
struct SizeEntry;

impl<'de> DeserializeSeed<'de> for SizeEntry {
    type Value = Vec<u64>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<u64>, D::Error> {
        scalar(d, "a size like 8, 1KiB or 4K:1M", |value| match value {
            Scalar::Int(i) if i > 0 => u64::try_from(i)
                .map(|s| vec![s])
                .map_err(|_| format!("size {i} is too large")),
            Scalar::Int(i) => Err(format!("size {i} must be a positive number of bytes")),
            Scalar::Float(_) => Err(format!(
                "size `{value}` must be a positive whole number of bytes"
            )),
            Scalar::Text(text) => parse_size_entry(text),
        })
    }
}

struct SizesVisitor;

impl<'de> Visitor<'de> for SizesVisitor {
    type Value = Vec<u64>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of sizes, like [8, 1KiB, 4K:1M], or the same as text")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u64>, A::Error> {
        let mut sizes = Vec::new();
        while let Some(entry) = seq.next_element_seed(SizeEntry)? {
            add_sizes(&mut sizes, entry).map_err(de::Error::custom)?;
        }
        if sizes.is_empty() {
            return Err(de::Error::custom("sizes must list at least one size"));
        }
        Ok(sizes)
    }

    /// `sizes: 8, 1K:4K`, as `--sizes` takes it.
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u64>, E> {
        parse_sizes(v).map_err(E::custom)
    }

    /// `sizes: 8`: one size.
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Vec<u64>, E> {
        match v {
            0 => Err(E::custom("size 0 must be a positive number of bytes")),
            v => Ok(vec![v]),
        }
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Vec<u64>, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(format!(
                "size {v} must be a positive number of bytes"
            ))),
        }
    }
}

fn sizes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    d.deserialize_any(SizesVisitor)
}

struct CompetitorsVisitor;

impl<'de> Visitor<'de> for CompetitorsVisitor {
    type Value = Option<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("`all`, `library` or a list of competitor names")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match v {
            "all" => Ok(None),
            "library" => Ok(Some(vec![v.to_string()])),
            other => Err(E::custom(format!(
                "competitors must be `all`, `library` or a list of names, not `{other}`"
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
