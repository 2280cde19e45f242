//! Rank 0 holds one case's observations at a time: what `Decisions` keeps
//! of decided cases (verdicts, universal guidelines, `default`'s samples for
//! them and for a baseline) does not grow with their observations. Counted
//! by this test binary's allocator; one test, so nothing else allocates.

use pgcheck::analyse::{Decisions, Options};
use pgcheck::case::{CaseData, CaseKey, Sample};
use pgcheck::collective::Collective;
use pgcheck::element::{Datatype, Op};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

/// Bytes allocated and not yet freed.
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A case of allreduce at `size_bytes` with `default` and two competitors
/// of `n` observations each in ten rounds.
fn case(size_bytes: u64, n: usize) -> CaseData {
    let sample = |name: &str, scale: f64| Sample {
        seconds: (0..n)
            .map(|i| scale * size_bytes as f64 * (1.0 + ((i * 7919) % 1000) as f64 / 5000.0))
            .collect(),
        rounds: (0..n as u32).map(|i| i % 10).collect(),
        ..Sample::measured(name)
    };
    CaseData {
        overlapped: None,
        calibration: None,
        key: CaseKey {
            operation: Collective::Allreduce.into(),
            size_bytes,
            count: size_bytes as usize,
            datatype: Datatype::Byte,
            op: Op::Bor,
            root: 0,
        },
        samples: vec![
            sample("default", 1e-8),
            sample("allreduce_as_reduce_bcast", 1.2e-8),
            sample("allreduce_as_reduce_scatter_block_allgather", 0.9e-8),
        ],
        smaller: None,
    }
}

/// The bytes `Decisions` holds after deciding `cases` cases of `n`
/// observations per candidate (each case freed once decided).
fn kept_after(cases: u32, n: usize) -> isize {
    let options = Options {
        noise_floor_s: 1e-7,
        ..Options::default()
    };
    let before = LIVE.load(Ordering::Relaxed);
    let mut decisions = Decisions::default();
    for i in 0..cases {
        let data = case(8 << i, n);
        decisions.add(&data, &options);
    }
    let kept = LIVE.load(Ordering::Relaxed) - before;
    let results = decisions.results(Default::default(), true, &options);
    assert_eq!(results.checks.len(), cases as usize);
    assert_eq!(results.guidelines.monotony.len(), cases as usize - 1);
    kept
}

#[test]
fn what_decided_cases_leave_in_memory_does_not_grow_with_their_observations() {
    let cases = 12;
    let few = kept_after(cases, 100);
    let many = kept_after(cases, 10_000);
    // One candidate's observations of one case: 10,000 × (8 B + 4 B).
    let one_sample = 10_000 * 12;
    eprintln!("kept after {cases} cases: {few} B (100 observations each), {many} B (10,000)");
    assert!(
        many < one_sample,
        "{many} B kept: more than one sample's observations"
    );
    assert!(
        many < few * 2,
        "{many} B kept with 10,000 observations, {few} B with 100"
    );
}
