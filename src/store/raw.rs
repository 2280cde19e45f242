//! `raw.csv`: one row per observation, appended after every case, so that a
//! killed run keeps what it measured and `analyze` can decide again. An
//! observation discarded for a late start has a row too, without seconds.

use crate::analyse::Results;
use crate::candidates::native::DEFAULT;
use crate::case::{CaseData, CaseKey, Outcome, Sample, Smaller};
use crate::collective::Collective;
use crate::element::{Datatype, Op};
use serde::{Deserialize, Serialize};
use std::fs::OpenOptions;
use std::path::Path;

/// One observation. Its fields are the CSV's columns (serde writes the
/// header from them).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RawRow {
    pub collective: Collective,
    pub size_bytes: u64,
    pub count: usize,
    pub datatype: Datatype,
    pub op: Op,
    pub root: usize,
    pub candidate: String,
    pub round: u32,
    /// False for an observation discarded because a rank started late.
    #[serde(default = "valid_by_default")]
    pub valid: bool,
    /// Empty when not valid.
    pub seconds: Option<f64>,
}

/// Files written before the `valid` column held valid observations only
/// (their invalid observations are not counted).
fn valid_by_default() -> bool {
    true
}

impl RawRow {
    fn key(&self) -> CaseKey {
        CaseKey {
            collective: self.collective,
            size_bytes: self.size_bytes,
            count: self.count,
            datatype: self.datatype,
            op: self.op,
            root: self.root,
        }
    }
}

/// Creates an empty `raw.csv`: its header comes with the first case.
pub fn create(dir: &Path) -> std::io::Result<()> {
    std::fs::File::create(dir.join("raw.csv")).map(drop)
}

/// Appends one case's observations to `raw.csv`.
pub fn append(dir: &Path, case: &CaseData) -> std::io::Result<()> {
    let file = OpenOptions::new().append(true).open(dir.join("raw.csv"))?;
    let empty = file.metadata()?.len() == 0;
    let mut writer = csv::WriterBuilder::new()
        .has_headers(empty)
        .from_writer(file);
    let k = &case.key;
    for sample in case
        .samples
        .iter()
        .chain(case.smaller.as_ref().map(|s| &s.sample))
    {
        let valid = sample.rounds.iter().zip(sample.seconds.iter().map(Some));
        let invalid = sample.invalid_rounds.iter().zip(std::iter::repeat(None));
        for (&round, seconds) in valid.chain(invalid) {
            writer.serialize(RawRow {
                collective: k.collective,
                size_bytes: k.size_bytes,
                count: k.count,
                datatype: k.datatype,
                op: k.op,
                root: k.root,
                candidate: sample.name.clone(),
                round,
                valid: seconds.is_some(),
                seconds: seconds.copied(),
            })?;
        }
    }
    writer.flush()
}

/// Reads `raw.csv`.
pub fn read(path: &Path) -> anyhow::Result<Vec<RawRow>> {
    let mut reader = csv::Reader::from_path(path)?;
    Ok(reader.deserialize().collect::<Result<_, _>>()?)
}

/// Cases from `raw.csv` rows, in the order they were measured, with the
/// candidates that `results.json` says were wrong or skipped.
pub fn cases(rows: &[RawRow], previous: Option<&Results>) -> Result<Vec<CaseData>, String> {
    // The cases results.json knows, in their order: a case may have no row
    // (every candidate wrong, skipped or without a valid observation).
    let mut cases: Vec<CaseData> = previous
        .map(|p| &p.checks[..])
        .unwrap_or_default()
        .iter()
        .map(|v| CaseData {
            key: v.key.clone(),
            samples: Vec::new(),
            smaller: None,
        })
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let seconds = match (row.valid, row.seconds) {
            (true, Some(s)) if s.is_finite() && s >= 0.0 => Some(s),
            (true, Some(s)) => {
                return Err(format!("line {}: seconds `{s}` is not a duration", i + 2))
            }
            (true, None) => {
                return Err(format!(
                    "line {}: a valid observation without seconds",
                    i + 2
                ))
            }
            (false, _) => None,
        };
        let key = row.key();
        let case = match cases.iter().position(|c| c.key == key) {
            Some(c) => &mut cases[c],
            None => {
                cases.push(CaseData {
                    key,
                    samples: Vec::new(),
                    smaller: None,
                });
                cases.last_mut().expect("just pushed")
            }
        };
        let sample = match Smaller::size_of(&row.candidate) {
            Some(size_bytes) => {
                let smaller = case.smaller.get_or_insert_with(|| Smaller {
                    size_bytes,
                    sample: Sample::measured(&row.candidate),
                });
                &mut smaller.sample
            }
            None => match case.samples.iter().position(|s| s.name == row.candidate) {
                Some(s) => &mut case.samples[s],
                None => {
                    case.samples.push(Sample::measured(&row.candidate));
                    case.samples.last_mut().expect("just pushed")
                }
            },
        };
        match seconds {
            Some(seconds) => {
                sample.seconds.push(seconds);
                sample.rounds.push(row.round);
            }
            None => sample.invalid_rounds.push(row.round),
        }
    }
    for case in &mut cases {
        let verdict = previous.and_then(|p| p.checks.iter().find(|v| v.key == case.key));
        for c in verdict.map(|v| &v.candidates[..]).unwrap_or_default() {
            // raw.csv holds observations only: what results.json says of
            // the rest (wrong and skipped candidates) comes from there.
            if !case.samples.iter().any(|s| s.name == c.name) {
                case.samples.push(Sample {
                    outcome: match &c.outcome {
                        Outcome::Unmeasured(_) => Outcome::Measured,
                        outcome => outcome.clone(),
                    },
                    ..Sample::measured(&c.name)
                });
            }
        }
        // `default` first, as measured runs have it.
        case.samples.sort_by_key(|s| s.name != DEFAULT);
    }
    Ok(cases)
}
