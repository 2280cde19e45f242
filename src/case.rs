//! What a case is and what became of a candidate in it: the two facts every
//! stage after the config shares (plan, measure, analyse, store, report).

use crate::collective::Shape;
use crate::element::{Datatype, Op};
use crate::operation::Operation;
use serde::{Deserialize, Serialize};

/// The identity of a case: one operation at one size, datatype, operator
/// and root.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseKey {
    /// As files name it, `collective`: a nonblocking one is `iallreduce`.
    #[serde(rename = "collective")]
    pub operation: Operation,
    pub size_bytes: u64,
    /// Elements per block or per vector (see `collective::Shape`).
    pub count: usize,
    pub datatype: Datatype,
    pub op: Op,
    pub root: usize,
}

/// The first three of `all`, and how many more: `a, b, c and 2 more`.
pub fn first_few(all: impl IntoIterator<Item = String>) -> String {
    let all: Vec<String> = all.into_iter().collect();
    let shown = all[..all.len().min(3)].join(", ");
    match all.len().saturating_sub(3) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// How many cases, in words: "1 case", "3 cases".
pub fn cases(n: usize) -> String {
    match n {
        1 => "1 case".into(),
        n => format!("{n} cases"),
    }
}

impl CaseKey {
    /// The case as messages name it: `MPI_Bcast 64 B (64 × byte bor, root 1)`.
    pub fn label(&self) -> String {
        let root = match self.operation.is_rooted() {
            true => format!(", root {}", self.root),
            false => String::new(),
        };
        if !self.operation.collective.has_size() {
            return self.operation.mpi_name();
        }
        format!(
            "{} {} B ({} × {} {}{root})",
            self.operation.mpi_name(),
            self.size_bytes,
            self.count,
            self.datatype.name(),
            self.op.name(),
        )
    }

    /// The buffers of this case on rank `rank` of `size` processes.
    pub fn shape(&self, size: usize, rank: usize) -> Shape {
        Shape::new(self.operation.collective, size, rank, self.root, self.count)
    }

    /// Whether `other` is the same collective, datatype, operator and root
    /// at some size: a series of the universal guidelines.
    pub fn same_series(&self, other: &CaseKey) -> bool {
        (self.operation, self.datatype, self.op, self.root)
            == (other.operation, other.datatype, other.op, other.root)
    }
}

#[cfg(test)]
impl CaseKey {
    /// The case of many unit tests: allreduce of `size_bytes` bytes, `bor`.
    pub fn allreduce_bytes(size_bytes: u64) -> CaseKey {
        CaseKey {
            operation: crate::collective::Collective::Allreduce.into(),
            size_bytes,
            count: size_bytes as usize,
            datatype: Datatype::Byte,
            op: Op::Bor,
            root: 0,
        }
    }
}

/// What became of a candidate in a case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", content = "reason", rename_all = "snake_case")]
pub enum Outcome {
    /// Verified and measured.
    Measured,
    /// Verified, but without a valid observation.
    Unmeasured(String),
    /// Its result differs from the reference.
    Wrong(String),
    /// It cannot run in this case (topology, operator, memory, …).
    Skipped(String),
}

impl Outcome {
    /// The status word of files and tables: `measured`, `wrong`, …
    pub fn label(&self) -> &'static str {
        match self {
            Outcome::Measured => "measured",
            Outcome::Unmeasured(_) => "unmeasured",
            Outcome::Wrong(_) => "wrong",
            Outcome::Skipped(_) => "skipped",
        }
    }

    /// Why it was not measured.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Outcome::Measured => None,
            Outcome::Unmeasured(why) | Outcome::Wrong(why) | Outcome::Skipped(why) => Some(why),
        }
    }

    pub fn is_wrong(&self) -> bool {
        matches!(self, Outcome::Wrong(_))
    }

    /// Passed verification (measured or not).
    pub fn verified(&self) -> bool {
        matches!(self, Outcome::Measured | Outcome::Unmeasured(_))
    }
}

/// A candidate's observations in one case, as measured or re-read: what
/// `measure` hands to `analyse`. Observations are kept on rank 0 only.
#[derive(Clone, Debug)]
pub struct Sample {
    pub name: String,
    /// `Measured` when verified and timed (its observations may still all
    /// be invalid); why it has no observations otherwise.
    pub outcome: Outcome,
    /// Seconds per observation: the maximum over ranks of the local
    /// duration, or max end − min start.
    pub seconds: Vec<f64>,
    /// The round of each observation.
    pub rounds: Vec<u32>,
    /// The round of each observation discarded because a rank started late
    /// (`roundtime`).
    pub invalid_rounds: Vec<u32>,
}

impl Sample {
    /// A measured candidate without observations yet.
    pub fn measured(name: &str) -> Sample {
        Sample {
            name: name.to_string(),
            outcome: Outcome::Measured,
            seconds: Vec::new(),
            rounds: Vec::new(),
            invalid_rounds: Vec::new(),
        }
    }
}

/// One case's samples.
#[derive(Clone, Debug)]
pub struct CaseData {
    pub key: CaseKey,
    pub samples: Vec<Sample>,
    /// With `--universal shared`, the library's call at the next smaller
    /// size of the series, measured in this case's rounds.
    pub smaller: Option<Smaller>,
    /// A nonblocking case's: the library's call with computation between
    /// its start and its wait, measured in this case's rounds.
    pub overlapped: Option<Overlapped>,
    /// The machine's state in each of its rounds: the calibration's barrier
    /// ([`crate::meta::MachineState`]) taken at the round's start, one
    /// observation a round, named [`CALIBRATION`] in raw/.
    pub calibration: Option<Sample>,
}

/// The name of a case's calibrations in the raw observations.
pub const CALIBRATION: &str = "calibration";

/// The library's call at a smaller size, timed beside a case's candidates
/// (not verified there: its own case verifies it).
#[derive(Clone, Debug)]
pub struct Smaller {
    pub size_bytes: u64,
    pub sample: Sample,
}

impl Smaller {
    /// Its name in the raw observations and in progress: `default@64B`.
    pub fn name(size_bytes: u64) -> String {
        format!("default@{size_bytes}B")
    }

    /// The size a raw observation's candidate name gives, if it names one.
    pub fn size_of(name: &str) -> Option<u64> {
        name.strip_prefix("default@")?
            .strip_suffix('B')?
            .parse()
            .ok()
    }
}

/// The library's nonblocking call with `compute_s` of computation (no MPI
/// call) between its start and its wait, timed beside the case's
/// candidates: what of the call the library overlaps with computation
/// (IMB-NBC's measure, [`Overlapped::overlap`]).
#[derive(Clone, Debug)]
pub struct Overlapped {
    pub compute_s: f64,
    pub sample: Sample,
}

impl Overlapped {
    /// Its name in the raw observations and in progress:
    /// `default+compute@1250ns`.
    pub fn name(compute_s: f64) -> String {
        format!("default+compute@{}ns", (compute_s * 1e9).round() as u64)
    }

    /// The computation a raw observation's candidate name gives, if it
    /// names one.
    pub fn compute_of(name: &str) -> Option<f64> {
        let ns: u64 = name
            .strip_prefix("default+compute@")?
            .strip_suffix("ns")?
            .parse()
            .ok()?;
        Some(ns as f64 * 1e-9)
    }

    /// The share of the shorter of the call (`pure_s`) and the computation
    /// (`compute_s`) that ran at the same time, when both together took
    /// `overlapped_s`: 1 when they took the longer one's time, 0 when
    /// they took their sum or more. IMB-NBC's overlap.
    pub fn overlap(pure_s: f64, compute_s: f64, overlapped_s: f64) -> f64 {
        let shorter = pure_s.min(compute_s);
        if shorter <= 0.0 {
            return 0.0;
        }
        ((pure_s + compute_s - overlapped_s) / shorter).clamp(0.0, 1.0)
    }
}

/// Where measuring is, sent by `measure` to whoever draws progress (rank 0
/// only).
#[derive(Clone, Debug)]
pub struct Event {
    /// 1-based index of the case and the number of cases.
    pub case: usize,
    pub cases: usize,
    /// e.g. `allreduce 8 B`.
    pub label: String,
    pub candidate: String,
    /// 1-based round and the number of rounds.
    pub round: usize,
    pub rounds: usize,
    /// Seconds since measuring started, and of the plan booked so far.
    pub elapsed_s: f64,
    pub planned_s: f64,
}

#[cfg(test)]
mod tests {
    use super::Overlapped;

    #[test]
    fn overlap_is_imb_nbc_s_share_of_the_shorter_clamped() {
        // Call 10, computation 10: 10 together is all of it, 20 nothing.
        assert_eq!(Overlapped::overlap(10.0, 10.0, 10.0), 1.0);
        assert_eq!(Overlapped::overlap(10.0, 10.0, 20.0), 0.0);
        assert_eq!(Overlapped::overlap(10.0, 10.0, 15.0), 0.5);
        // Faster than the longer alone, or slower than the sum: clamped.
        assert_eq!(Overlapped::overlap(10.0, 4.0, 8.0), 1.0);
        assert_eq!(Overlapped::overlap(10.0, 4.0, 30.0), 0.0);
        // The shorter is the computation: 2 of its 4 ran alongside.
        assert_eq!(Overlapped::overlap(10.0, 4.0, 12.0), 0.5);
        assert_eq!(Overlapped::overlap(0.0, 4.0, 4.0), 0.0);
    }

    #[test]
    fn an_overlapped_name_gives_its_computation_back() {
        let name = Overlapped::name(1.25e-6);
        assert_eq!(name, "default+compute@1250ns");
        assert!((Overlapped::compute_of(&name).unwrap() - 1.25e-6).abs() < 1e-15);
        assert_eq!(Overlapped::compute_of("default@64B"), None);
        assert_eq!(Overlapped::compute_of("default"), None);
    }
}
