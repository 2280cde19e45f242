//! Property tests (issue 41, item 5) of pure code, through the public API:
//! Holm's correction, the Parquet round trip of raw observations, the
//! parsing of sizes and size ranges, and the split of a buffer into
//! blocks. The exit statuses' precedence is enumerated beside the gate
//! (`src/exit/properties.rs`), which builds results from crate-private
//! fixtures. No MPI: these run without a launcher, in about a second.

use pgcheck::case::{CaseData, CaseKey, Sample, Smaller};
use pgcheck::collective::Collective;
use pgcheck::element::{Datatype, Op};
use pgcheck::report::model::size_label;
use pgcheck::stats::correction::holm;
use pgcheck::store::raw::parquet;
use pgcheck::store::raw::RawRow;
use pgcheck::units::{
    parse_bytes, parse_duration, parse_duration_or_zero, parse_fraction, parse_size,
    parse_size_entry, parse_sizes, parse_sizes_or_zero,
};
use proptest::prelude::*;
use proptest::sample::select;

/// `cases` cases a property, no file of failures kept (a failure prints
/// its input).
fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------
// Holm's correction
// ---------------------------------------------------------------------

/// p-values in [0, 1], often tied, at the edges or NaN (which stays NaN
/// and counts in m).
fn p_value(nan: bool) -> BoxedStrategy<f64> {
    let edges = select(vec![0.0, 1.0, 0.01, 0.05, 0.5, 1e-300, 0.999_999]);
    match nan {
        false => prop_oneof![4 => 0.0..=1.0f64, 2 => edges].boxed(),
        true => prop_oneof![4 => 0.0..=1.0f64, 2 => edges, 1 => Just(f64::NAN)].boxed(),
    }
}

fn p_values(nan: bool) -> impl Strategy<Value = Vec<f64>> {
    prop::collection::vec(p_value(nan), 0..40)
}

/// Holm's adjusted p-values by the definition, written apart from the
/// code: the i-th is the largest (m − k)·p_j over every p_j ≤ p_i, k the
/// number of p-values below p_j (its rank from 0, ties at their first
/// rank), capped at 1. NaN stays NaN and counts in m.
fn holm_reference(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    p.iter()
        .map(|&pi| {
            if pi.is_nan() {
                return f64::NAN;
            }
            let largest = p
                .iter()
                .filter(|&&pj| pj <= pi)
                .map(|&pj| {
                    let below = p.iter().filter(|&&pk| pk < pj).count();
                    (m - below) as f64 * pj
                })
                .fold(0.0f64, f64::max);
            largest.min(1.0)
        })
        .collect()
}

/// Equal, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan())
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn holm_matches_its_definition(p in p_values(true)) {
        let adjusted = holm(&p);
        let reference = holm_reference(&p);
        prop_assert_eq!(adjusted.len(), p.len());
        for (i, (&a, &r)) in adjusted.iter().zip(&reference).enumerate() {
            prop_assert!(same(a, r), "p {:?}: [{}] is {}, by definition {}", p, i, a, r);
        }
    }

    /// p ≤ Holm ≤ Bonferroni (min(m·p, 1)) ≤ 1, element by element; so at
    /// every α Holm rejects at least what Bonferroni rejects and at most
    /// what the unadjusted p-values reject.
    #[test]
    fn holm_lies_between_the_raw_p_values_and_bonferroni(p in p_values(true)) {
        let adjusted = holm(&p);
        let m = p.len() as f64;
        for (&raw, &a) in p.iter().zip(&adjusted) {
            if raw.is_nan() {
                prop_assert!(a.is_nan());
                continue;
            }
            let bonferroni = (m * raw).min(1.0);
            prop_assert!(raw <= a && a <= bonferroni && a <= 1.0, "p {:?} → {:?}", p, adjusted);
        }
        for alpha in [0.001, 0.01, 0.05, 0.1, 0.5, 1.0] {
            let rejects = |values: &[f64]| -> Vec<bool> {
                values.iter().map(|&v| v <= alpha).collect()
            };
            // f64::min would make NaN 1: NaN stays NaN, rejected by none.
            let bonferroni: Vec<f64> = p
                .iter()
                .map(|&raw| if raw.is_nan() { raw } else { (m * raw).min(1.0) })
                .collect();
            let (raw, holm, bonf) = (rejects(&p), rejects(&adjusted), rejects(&bonferroni));
            for i in 0..p.len() {
                prop_assert!(!bonf[i] || holm[i], "α {}: Bonferroni rejects {} and Holm not", alpha, i);
                prop_assert!(!holm[i] || raw[i], "α {}: Holm rejects {} and raw not", alpha, i);
            }
        }
    }

    /// In the order of the raw p-values: a smaller p never has a larger
    /// adjusted p, equal p-values have equal ones.
    #[test]
    fn holm_keeps_the_order_of_the_p_values(p in p_values(true)) {
        let adjusted = holm(&p);
        for i in 0..p.len() {
            for j in 0..p.len() {
                if p[i] <= p[j] {
                    prop_assert!(adjusted[i] <= adjusted[j], "p {:?} → {:?}", p, adjusted);
                }
            }
        }
    }

    /// Shuffling the p-values shuffles their adjusted values alike.
    #[test]
    fn holm_does_not_depend_on_the_order_given(
        (p, order) in p_values(true).prop_flat_map(|p| {
            let n = p.len();
            (Just(p), Just((0..n).collect::<Vec<usize>>()).prop_shuffle())
        })
    ) {
        let adjusted = holm(&p);
        let shuffled: Vec<f64> = order.iter().map(|&i| p[i]).collect();
        let adjusted_shuffled = holm(&shuffled);
        for (k, &i) in order.iter().enumerate() {
            prop_assert!(same(adjusted_shuffled[k], adjusted[i]), "p {:?}, order {:?}", p, order);
        }
    }
}

// ---------------------------------------------------------------------
// Parquet: what is written is read back
// ---------------------------------------------------------------------

/// A time as written: whole picoseconds (which the file keeps exactly),
/// or any float that is not NaN (extreme ones included), which the file
/// keeps to the picosecond, saturated at i64's range.
#[derive(Clone, Debug)]
enum Time {
    Picoseconds(i64),
    Float(f64),
}

impl Time {
    fn seconds(&self) -> f64 {
        match *self {
            // The nearest float, as one division rounds it (not
            // parquet::seconds, which the round trip checks).
            Time::Picoseconds(ps) => ps as f64 / 1e12,
            Time::Float(s) => s,
        }
    }
}

fn time() -> impl Strategy<Value = Time> {
    let float = prop_oneof![
        3 => 0.0..10.0f64,
        1 => select(vec![
            0.0,
            -0.0,
            f64::MIN_POSITIVE,
            5e-324,
            1e-13,
            0.4e-12,
            0.6e-12,
            1e6,
            f64::MAX,
            f64::INFINITY,
            -1.0,
            f64::NEG_INFINITY,
        ]),
        1 => any::<f64>().prop_filter("NaN is no time", |s| !s.is_nan()),
    ];
    prop_oneof![
        3 => (0i64..1 << 50).prop_map(Time::Picoseconds),
        1 => select(vec![0, 1, i64::MAX, i64::MAX - 1, 1 << 62, i64::MIN, -1])
            .prop_map(Time::Picoseconds),
        2 => float.prop_map(Time::Float),
    ]
}

/// Text of any length, any Unicode, often empty or long.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "\\PC{0,20}",
        1 => Just(String::new()),
        1 => ("[a-zé€😀\\x00 ]", 1000usize..5000).prop_map(|(c, n)| c.repeat(n)),
    ]
}

/// A round: the file holds it as a 32-bit signed integer.
fn round() -> impl Strategy<Value = u32> {
    prop_oneof![3 => 0u32..50, 1 => select(vec![0, i32::MAX as u32])]
}

fn sample() -> impl Strategy<Value = (Sample, Vec<Time>)> {
    (
        text(),
        prop::collection::vec((round(), time()), 0..40),
        prop::collection::vec(round(), 0..5),
    )
        .prop_map(|(name, timed, invalid)| {
            let sample = Sample {
                seconds: timed.iter().map(|(_, t)| t.seconds()).collect(),
                rounds: timed.iter().map(|&(r, _)| r).collect(),
                invalid_rounds: invalid,
                ..Sample::measured(&name)
            };
            (sample, timed.into_iter().map(|(_, t)| t).collect())
        })
}

/// A key's integers as the file holds them (INT64, read back as u64 or
/// usize): from 0 to i64::MAX.
fn integer() -> impl Strategy<Value = u64> {
    prop_oneof![3 => 0u64..100_000, 1 => select(vec![0, 1, i64::MAX as u64])]
}

fn case() -> impl Strategy<Value = CaseData> {
    (
        select(pgcheck::operation::Operation::all().collect::<Vec<_>>()),
        integer(),
        integer(),
        select(Datatype::ALL.to_vec()),
        select(Op::ALL.to_vec()),
        integer(),
        prop::collection::vec(sample(), 0..5),
        prop::option::of((integer(), sample())),
    )
        .prop_map(
            |(collective, size_bytes, count, datatype, op, root, samples, smaller)| CaseData {
                overlapped: None,
                calibration: None,
                key: CaseKey {
                    operation: collective,
                    size_bytes,
                    count: count as usize,
                    datatype,
                    op,
                    root: root as usize,
                },
                samples: samples.into_iter().map(|(s, _)| s).collect(),
                smaller: smaller.map(|(size_bytes, (sample, _))| Smaller { size_bytes, sample }),
            },
        )
}

/// The rows `case` should read back as: per sample (the smaller size's
/// last), its timed observations, then its late starts; a time as the
/// file keeps it, in whole picoseconds.
fn expected_rows(run: &str, case: &CaseData) -> Vec<RawRow> {
    let k = &case.key;
    let row = |name: &str, round: u32, seconds: Option<f64>| RawRow {
        run: run.to_string(),
        collective: k.operation,
        size_bytes: k.size_bytes,
        count: k.count,
        datatype: k.datatype,
        op: k.op,
        root: k.root,
        candidate: name.to_string(),
        round,
        valid: seconds.is_some(),
        seconds: seconds.map(|s| parquet::seconds(parquet::picoseconds(s))),
    };
    case.samples
        .iter()
        .chain(case.smaller.as_ref().map(|s| &s.sample))
        .flat_map(|s| {
            let timed = s.rounds.iter().zip(&s.seconds);
            let timed = timed.map(|(&r, &t)| row(&s.name, r, Some(t)));
            let late = s.invalid_rounds.iter().map(|&r| row(&s.name, r, None));
            timed.chain(late).collect::<Vec<_>>()
        })
        .collect()
}

fn scratch() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "pgcheck-properties-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

proptest! {
    #![proptest_config(config(64))]

    /// Cases written one file each, in the order measured, read back row
    /// for row: the run's id and candidates' names of any text, keys to
    /// i64::MAX, rounds to i32::MAX, cases without observations (no file),
    /// times exact to the picosecond.
    #[test]
    fn parquet_reads_back_what_it_wrote(
        run in text(),
        cases in prop::collection::vec(case(), 0..4),
    ) {
        let dir = scratch();
        let mut expected = Vec::new();
        for (i, case) in cases.iter().enumerate() {
            parquet::write(&dir, &run, i + 1, case).unwrap();
            expected.extend(expected_rows(&run, case));
        }
        let back = parquet::read(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let back = back.unwrap();
        prop_assert_eq!(back.len(), expected.len());
        for (got, want) in back.iter().zip(&expected) {
            prop_assert_eq!(got, want);
        }
    }

    /// Whole picoseconds (below 2⁵⁰, 13 days) come back as the very same
    /// float, the nearest to them.
    #[test]
    fn parquet_keeps_whole_picoseconds_exactly(
        samples in prop::collection::vec(sample(), 1..4),
    ) {
        let dir = scratch();
        let case = CaseData {
            overlapped: None,
            calibration: None,
            key: CaseKey {
                operation: Collective::Allreduce.into(),
                size_bytes: 8,
                count: 2,
                datatype: Datatype::Int32,
                op: Op::Sum,
                root: 0,
            },
            samples: samples.iter().map(|(s, _)| s.clone()).collect(),
            smaller: None,
        };
        parquet::write(&dir, "r", 1, &case).unwrap();
        let back = parquet::read(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        let mut times = back.unwrap().into_iter().filter_map(|r| r.seconds);
        for (_, written) in &samples {
            for t in written {
                let got = times.next().expect("as many times as written");
                if let Time::Picoseconds(ps) = *t {
                    if (0..1 << 50).contains(&ps) {
                        prop_assert_eq!(got, t.seconds(), "{} ps", ps);
                        prop_assert_eq!(parquet::picoseconds(got), ps);
                    }
                }
            }
        }
        prop_assert!(times.next().is_none());
    }
}

// ---------------------------------------------------------------------
// Sizes and size ranges
// ---------------------------------------------------------------------

/// The binary units of a size, each spelling: K is 1024 bytes like KiB.
const UNITS: [(&str, u64); 8] = [
    ("", 1),
    ("B", 1),
    ("K", 1 << 10),
    ("KiB", 1 << 10),
    ("M", 1 << 20),
    ("MiB", 1 << 20),
    ("G", 1 << 30),
    ("GiB", 1 << 30),
];

/// Sizes up to 2⁵³ (exact in the f64 the parser reads them into), often
/// whole KiB, MiB or GiB.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        2 => 1u64..=1 << 53,
        2 => 1u64..5000,
        1 => (1u64..=1 << 23, 0u32..=30).prop_map(|(k, shift)| k << shift),
        1 => select(vec![1, 1 << 10, 1 << 20, 1 << 30, 1 << 53, 10_000, 1_000_000_000]),
    ]
}

/// `size` as a user may write it: in any unit that divides it, with or
/// without spaces.
fn written(size: u64) -> impl Strategy<Value = String> {
    let units: Vec<(&str, u64)> = UNITS
        .into_iter()
        .filter(|&(_, unit)| size.is_multiple_of(unit))
        .collect();
    (
        select(units),
        select(vec!["", " "]),
        select(vec!["", " ", "\t"]),
    )
        .prop_map(move |((name, unit), inner, outer)| {
            format!("{outer}{}{inner}{name}{outer}", size / unit)
        })
}

fn written_size() -> impl Strategy<Value = (u64, String)> {
    size().prop_flat_map(|s| (Just(s), written(s)))
}

/// Text near the grammar of sizes, ranges, durations and fractions (and
/// sometimes anything at all), to look for panics.
fn near_grammar() -> impl Strategy<Value = String> {
    let token = select(vec![
        "0",
        "1",
        "2",
        "8",
        "9",
        ".",
        ":",
        ",",
        " ",
        "K",
        "KiB",
        "M",
        "MiB",
        "G",
        "GiB",
        "B",
        "kB",
        "ms",
        "s",
        "us",
        "µs",
        "m",
        "%",
        "-",
        "e",
        "18446744073709551615",
        "99999999999999999999999999999999",
        "1e308",
        "0.5",
        "nan",
        "inf",
    ]);
    prop_oneof![
        3 => prop::collection::vec(token, 0..12).prop_map(|t| t.concat()),
        1 => "\\PC{0,30}",
        1 => "[0-9]{300,400}(s|ms|KiB|%)?",
    ]
}

/// A range's START, END and FACTOR (None: the default, 2): END often
/// START times a power of FACTOR, or one byte off it.
#[allow(clippy::type_complexity)]
fn range() -> impl Strategy<Value = ((u64, String), (u64, String), Option<u64>)> {
    let factor = prop_oneof![
        3 => Just(None),
        2 => (2u64..10).prop_map(Some),
        1 => Just(Some(1u64 << 40)),
    ];
    (written_size(), factor).prop_flat_map(|((start, text), factor)| {
        let f = factor.unwrap_or(2);
        let powers: Vec<u64> = std::iter::successors(Some(start), |p| p.checked_mul(f))
            .take_while(|&p| p <= 1 << 53)
            .collect();
        let end = prop_oneof![
            1 => size(),
            2 => (select(powers), -1i64..=1)
                .prop_map(|(p, off)| p.saturating_add_signed(off).clamp(1, 1 << 53)),
        ];
        let end = end.prop_flat_map(|end| (Just(end), written(end)));
        (Just((start, text)), end, Just(factor))
    })
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn a_written_size_parses_back((size, text) in written_size()) {
        prop_assert_eq!(parse_size(&text), Ok(size), "`{}`", text);
        prop_assert_eq!(parse_size_entry(&text), Ok(vec![size]), "`{}`", text);
        prop_assert_eq!(parse_bytes(&text), Ok(size), "`{}`", text);
    }

    /// The reports' labels (`8 KiB`, `10 kB`) read back as memory; as a
    /// message size only in binary units (a size's `K` is 1024 bytes, so
    /// `kB`, `MB` and `GB` are refused, not misread).
    #[test]
    fn a_size_label_parses_back(size in size()) {
        let label = size_label(size);
        prop_assert_eq!(parse_bytes(&label), Ok(size), "`{}`", label);
        let decimal = ["kB", "MB", "GB"].iter().any(|u| label.ends_with(u));
        match parse_size(&label) {
            Ok(parsed) => prop_assert!(!decimal && parsed == size, "`{}` → {}", label, parsed),
            Err(_) => prop_assert!(decimal, "`{}` refused", label),
        }
    }

    /// START:END[:FACTOR]: START, then each the FACTOR times the one
    /// before, up to END included, in order, the next one beyond END;
    /// END below START is an error.
    #[test]
    fn a_range_runs_from_start_to_end_in_order(
        ((start, start_text), (end, end_text), factor) in range(),
    ) {
        let text = match factor {
            None => format!("{start_text}:{end_text}"),
            Some(f) => format!("{start_text}:{end_text}:{f}"),
        };
        let f = factor.unwrap_or(2);
        let parsed = parse_size_entry(&text);
        if end < start {
            prop_assert!(parsed.is_err(), "`{}` → {:?}", text, parsed);
            return Ok(());
        }
        let sizes = parsed.map_err(|e| TestCaseError::fail(format!("`{text}`: {e}")))?;
        prop_assert_eq!(sizes[0], start);
        for pair in sizes.windows(2) {
            prop_assert_eq!(Some(pair[1]), pair[0].checked_mul(f), "`{}`", text);
        }
        let last = *sizes.last().unwrap();
        prop_assert!(last <= end, "`{}`: {} beyond the end", text, last);
        prop_assert!(last.checked_mul(f).is_none_or(|next| next > end), "`{}` stops early at {}", text, last);
        // END is in the range exactly when it is START times a power of FACTOR.
        let mut power = Some(start);
        let mut reachable = false;
        while let Some(p) = power.filter(|&p| p <= end) {
            reachable |= p == end;
            power = p.checked_mul(f);
        }
        prop_assert_eq!(sizes.contains(&end), reachable, "`{}`", text);
    }

    /// A list is its entries' sizes in the order given, or an error when
    /// a size repeats.
    #[test]
    fn a_list_keeps_its_entries_in_order(entries in prop::collection::vec(written_size(), 1..6)) {
        let text = entries.iter().map(|(_, t)| t.as_str()).collect::<Vec<_>>().join(",");
        let sizes: Vec<u64> = entries.iter().map(|&(s, _)| s).collect();
        let mut distinct = sizes.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let parsed = parse_sizes(&text);
        if distinct.len() == sizes.len() {
            prop_assert_eq!(&parsed, &Ok(sizes.clone()), "`{}`", text);
            let with_zero = parse_sizes_or_zero(&format!("0,{text}"));
            let mut zero_first = vec![0];
            zero_first.extend(&sizes);
            prop_assert_eq!(with_zero, Ok(zero_first), "`0,{}`", text);
        } else {
            prop_assert!(parsed.is_err(), "`{}` → {:?}", text, parsed);
        }
    }

    /// Whatever the text, the parsers answer with an error, not a panic.
    #[test]
    fn parsers_do_not_panic(text in near_grammar()) {
        let _ = parse_size(&text);
        let _ = parse_size_entry(&text);
        let _ = parse_sizes(&text);
        let _ = parse_sizes_or_zero(&text);
        let _ = parse_bytes(&text);
        let _ = parse_duration(&text);
        let _ = parse_duration_or_zero(&text);
        let _ = parse_fraction(&text);
    }
}

// ---------------------------------------------------------------------
// Blocks
// ---------------------------------------------------------------------

/// For every n < 10,000 and p < 64, exhaustively: p blocks, in order,
/// that cover 0..n exactly once, the first n mod p one element larger
/// than the rest; the counts and displacements the vector collectives
/// take agree (`mockups::blocks`, which `algorithms::split` re-exports).
#[test]
fn blocks_split_a_buffer_evenly_in_order() {
    use algorithms::split::{block_counts, displacements};
    use mockups::blocks::Blocks;
    for n in 0..10_000usize {
        for p in 1..64usize {
            let counts = block_counts(n, p);
            let displs = displacements(&counts);
            assert_eq!((counts.len(), displs.len()), (p, p), "{n} in {p}");
            let mut next = 0;
            for (i, (&count, &start)) in counts.iter().zip(&displs).enumerate() {
                assert_eq!(start, next, "{n} in {p}: block {i} starts at {start}");
                next += count;
                assert!(
                    count == n / p + usize::from(i < n % p),
                    "{n} in {p}: block {i} holds {count}"
                );
            }
            assert_eq!(next, n, "{n} in {p}: the blocks end at {next}");
            let (small, large) = (counts.iter().min(), counts.iter().max());
            assert!(
                large.unwrap() - small.unwrap() <= 1,
                "{n} in {p}: {counts:?}"
            );
            // Only every few: Blocks converts to MPI's counts.
            if (n + p) % 97 == 0 {
                let blocks = Blocks::split(n, p);
                assert_eq!(blocks.total(), n);
                for (i, (&count, &start)) in counts.iter().zip(&displs).enumerate() {
                    assert_eq!(blocks.range(i), start..start + count, "{n} in {p}");
                }
            }
        }
    }
}
