//! `default`'s sample of every decided case: what the universal guidelines
//! and a baseline compare across cases. A run keeps these samples in an
//! unnamed temporary file ([`Spilled`]) and reads back one or two at a
//! time, so that rank 0 holds one case's observations at a time whatever
//! the number of cases; `analyze`, which has every case in memory anyway,
//! lends its slice.

use super::rounds::Shape;
use super::{CaseData, CaseKey, Outcome, Sample};
use crate::candidates::native::DEFAULT;
use crate::case::Smaller;
use crate::host::scratch::{Location, Scratch};
use std::borrow::Cow;

/// Cases whose `default` sample (and the smaller size's, with `--universal
/// shared`) can be read one case at a time.
pub trait Defaults {
    /// How many cases.
    fn cases(&self) -> usize;
    fn key(&self, case: usize) -> &CaseKey;
    /// Whether `default` was measured, with observations, in `case`.
    fn measured(&self, case: usize) -> bool;
    /// The case with `default`'s sample and the smaller size's; other
    /// candidates may be missing.
    fn load(&self, case: usize) -> Cow<'_, CaseData>;
    /// `default`'s sample summarised, if measured with observations.
    fn default_shape(&self, case: usize) -> Option<Shape>;
    /// The smaller size measured in the case's rounds, summarised, if it
    /// has observations.
    fn smaller_shape(&self, case: usize) -> Option<(u64, Shape)>;
}

/// `default`'s sample in `case`, if it was measured with observations.
pub fn measured_default(case: &CaseData) -> Option<&Sample> {
    case.samples
        .iter()
        .find(|s| s.name == DEFAULT && s.outcome == Outcome::Measured && !s.seconds.is_empty())
}

/// Cases in memory, owned or borrowed (a case without its disturbed
/// rounds is a copy, the others are not).
impl<C: std::borrow::Borrow<CaseData>> Defaults for [C] {
    fn cases(&self) -> usize {
        self.len()
    }

    fn key(&self, case: usize) -> &CaseKey {
        &self[case].borrow().key
    }

    fn measured(&self, case: usize) -> bool {
        measured_default(self[case].borrow()).is_some()
    }

    fn load(&self, case: usize) -> Cow<'_, CaseData> {
        Cow::Borrowed(self[case].borrow())
    }

    fn default_shape(&self, case: usize) -> Option<Shape> {
        measured_default(self[case].borrow()).and_then(Shape::of)
    }

    fn smaller_shape(&self, case: usize) -> Option<(u64, Shape)> {
        let smaller = self[case].borrow().smaller.as_ref()?;
        Some((smaller.size_bytes, Shape::of(&smaller.sample)?))
    }
}

/// `default`'s samples kept out of memory: their observations in an
/// unnamed temporary file (in memory if none can be written), their names
/// and outcomes here, O(cases).
#[derive(Debug, Default)]
pub struct Spilled {
    kept: Vec<Kept>,
    observations: Scratch,
}

#[derive(Debug)]
struct Kept {
    key: CaseKey,
    default: Option<Stub>,
    smaller: Option<(u64, Stub)>,
}

/// A sample without its observations, and where they are.
#[derive(Debug)]
struct Stub {
    name: String,
    outcome: Outcome,
    at: Location,
    seconds: usize,
    invalid: usize,
    /// Its middles, selected once when kept.
    shape: Option<Shape>,
}

impl Spilled {
    /// Keeps `default`'s sample of each of `cases`.
    pub fn of(cases: &[CaseData]) -> Spilled {
        let mut spilled = Spilled::default();
        for case in cases {
            spilled.push(case);
        }
        spilled
    }

    /// Keeps `default`'s sample of `case` and the smaller size's.
    pub fn push(&mut self, case: &CaseData) {
        self.push_with_shape(case, None);
    }

    /// [`Spilled::push`] with `default`'s shape, if known already (as its
    /// verdict has it): its middles are not selected again.
    pub(super) fn push_with_shape(&mut self, case: &CaseData, default_shape: Option<Shape>) {
        let default = case
            .samples
            .iter()
            .find(|s| s.name == DEFAULT)
            .map(|s| self.spill(s, default_shape));
        let smaller = case
            .smaller
            .as_ref()
            .map(|s| (s.size_bytes, self.spill(&s.sample, None)));
        self.kept.push(Kept {
            key: case.key.clone(),
            default,
            smaller,
        });
    }

    /// The bytes of observations held in memory (none while the temporary
    /// file can be written).
    pub fn bytes_in_memory(&self) -> usize {
        self.observations.bytes_in_memory()
    }

    fn spill(&mut self, sample: &Sample, shape: Option<Shape>) -> Stub {
        let at = self.observations.append(&encode(sample));
        Stub {
            name: sample.name.clone(),
            outcome: sample.outcome.clone(),
            at,
            seconds: sample.seconds.len(),
            invalid: sample.invalid_rounds.len(),
            shape: shape.or_else(|| Shape::of(sample)),
        }
    }

    fn read(&self, stub: &Stub) -> Sample {
        let len = stub.seconds * 12 + stub.invalid * 4;
        let bytes = self.observations.read(stub.at, len);
        decode(stub, &bytes)
    }
}

impl Defaults for Spilled {
    fn cases(&self) -> usize {
        self.kept.len()
    }

    fn key(&self, case: usize) -> &CaseKey {
        &self.kept[case].key
    }

    fn measured(&self, case: usize) -> bool {
        self.kept[case]
            .default
            .as_ref()
            .is_some_and(|d| d.outcome == Outcome::Measured && d.seconds > 0)
    }

    fn default_shape(&self, case: usize) -> Option<Shape> {
        let default = self.kept[case].default.as_ref()?;
        (default.outcome == Outcome::Measured)
            .then(|| default.shape.clone())
            .flatten()
    }

    fn smaller_shape(&self, case: usize) -> Option<(u64, Shape)> {
        let (size_bytes, smaller) = self.kept[case].smaller.as_ref()?;
        Some((*size_bytes, smaller.shape.clone()?))
    }

    fn load(&self, case: usize) -> Cow<'_, CaseData> {
        let kept = &self.kept[case];
        Cow::Owned(CaseData {
            key: kept.key.clone(),
            samples: kept.default.iter().map(|d| self.read(d)).collect(),
            smaller: kept.smaller.as_ref().map(|(size_bytes, s)| Smaller {
                size_bytes: *size_bytes,
                sample: self.read(s),
            }),
            overlapped: None,
            calibration: None,
        })
    }
}

/// Seconds, their rounds, then the invalid observations' rounds, little
/// endian: the same bits come back. Written into a buffer of the final
/// length, in about a third of the time pushing 12 bytes at a time took.
fn encode(sample: &Sample) -> Vec<u8> {
    let n_seconds = sample.seconds.len();
    let n_rounds = sample.rounds.len() + sample.invalid_rounds.len();
    let rounds = sample.rounds.iter().chain(&sample.invalid_rounds);
    let mut bytes = vec![0u8; n_seconds * 8 + n_rounds * 4];
    let (seconds_bytes, rounds_bytes) = bytes.split_at_mut(n_seconds * 8);
    for (to, s) in seconds_bytes.chunks_exact_mut(8).zip(&sample.seconds) {
        to.copy_from_slice(&s.to_le_bytes());
    }
    for (to, r) in rounds_bytes.chunks_exact_mut(4).zip(rounds) {
        to.copy_from_slice(&r.to_le_bytes());
    }
    bytes
}

fn decode(stub: &Stub, bytes: &[u8]) -> Sample {
    let (seconds, rounds) = bytes.split_at(stub.seconds * 8);
    let (rounds, invalid) = rounds.split_at(stub.seconds * 4);
    let f64s = |b: &[u8]| {
        b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    let u32s = |b: &[u8]| {
        b.chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect()
    };
    Sample {
        name: stub.name.clone(),
        outcome: stub.outcome.clone(),
        seconds: f64s(seconds),
        rounds: u32s(rounds),
        invalid_rounds: u32s(invalid),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(size: u64, n: usize, with_smaller: bool) -> CaseData {
        let sample = |name: &str, scale: f64| Sample {
            name: name.into(),
            outcome: Outcome::Measured,
            seconds: (0..n).map(|i| scale * (1.0 + i as f64 / 7.0)).collect(),
            rounds: (0..n as u32).map(|i| i % 10).collect(),
            invalid_rounds: vec![3, 9],
        };
        CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey::allreduce_bytes(size),
            samples: vec![sample(DEFAULT, 1e-6), sample("other", 2e-6)],
            smaller: with_smaller.then(|| Smaller {
                size_bytes: size / 2,
                sample: sample(&Smaller::name(size / 2), 0.5e-6),
            }),
        }
    }

    #[test]
    fn spilled_samples_come_back_bit_for_bit_without_the_other_candidates() {
        let cases = vec![case(8, 100, false), case(16, 3, true), case(32, 0, false)];
        let spilled = Spilled::of(&cases);
        assert_eq!(spilled.cases(), 3);
        assert_eq!(spilled.bytes_in_memory(), 0, "spilled to the file");
        for (i, original) in cases.iter().enumerate() {
            let back = spilled.load(i);
            assert_eq!(spilled.key(i), &original.key);
            assert_eq!(back.samples.len(), 1);
            let (b, o) = (&back.samples[0], &original.samples[0]);
            assert_eq!((&b.name, &b.outcome), (&o.name, &o.outcome));
            assert_eq!(b.seconds, o.seconds);
            assert_eq!(b.rounds, o.rounds);
            assert_eq!(b.invalid_rounds, o.invalid_rounds);
            let smaller = |c: &CaseData| {
                c.smaller
                    .as_ref()
                    .map(|s| (s.size_bytes, s.sample.seconds.clone()))
            };
            assert_eq!(smaller(&back), smaller(original));
            assert_eq!(spilled.measured(i), <[CaseData]>::measured(&cases, i));
        }
        assert!(!spilled.measured(2), "no observations");
    }
}
