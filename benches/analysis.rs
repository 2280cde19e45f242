//! Times rank 0's analysis of a run at volume: 100 cases × 2 candidates ×
//! 25,000 observations (5 million), decided one case at a time as `run`
//! does (`Decisions::add`, then the results). Issue 26 asks for at most
//! 0.2 s on a quiet machine. Run with `cargo bench --bench analysis`.

use std::hint::black_box;
use std::time::Instant;

use pgcheck::analyse::{CaseData, CaseKey, Decisions, Options, Outcome, Sample};
use pgcheck::collective::Collective;
use pgcheck::element::{Datatype, Op};
use pgcheck::meta::Meta;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const SERIES: usize = 10;
const SIZES: usize = 10;
const OBSERVATIONS: usize = 25_000;
const ROUNDS: u32 = 10;
const REPETITIONS: usize = 3;

/// One candidate's observations: a floor that grows with the size, an
/// exponential error of 0.2 µs and a shared slowdown per round, on a
/// nanosecond timer, round after round as `measure` appends them.
fn sample(rng: &mut StdRng, name: &str, floor: f64) -> Sample {
    let mut seconds = Vec::with_capacity(OBSERVATIONS);
    let mut rounds = Vec::with_capacity(OBSERVATIONS);
    for round in 0..ROUNDS {
        let shift = 1.0 + 0.02 * rng.gen::<f64>();
        for _ in 0..OBSERVATIONS / ROUNDS as usize {
            let error = -(1.0 - rng.gen::<f64>()).ln() * 0.2e-6;
            seconds.push(((floor * shift + error) * 1e9).round() / 1e9);
            rounds.push(round);
        }
    }
    Sample {
        name: name.into(),
        outcome: Outcome::Measured,
        seconds,
        rounds,
        invalid_rounds: Vec::new(),
    }
}

/// Ten series (here: roots) of ten sizes each, a competitor 3 % faster.
fn cases() -> Vec<CaseData> {
    let mut rng = StdRng::seed_from_u64(20_261_124);
    let mut cases = Vec::new();
    for root in 0..SERIES {
        for i in 0..SIZES {
            let size_bytes = 8u64 << i;
            let floor = 1e-6 + size_bytes as f64 * 1e-10;
            cases.push(CaseData {
                overlapped: None,
                calibration: None,
                key: CaseKey {
                    operation: Collective::Allreduce.into(),
                    size_bytes,
                    count: size_bytes as usize,
                    datatype: Datatype::Byte,
                    op: Op::Bor,
                    root,
                },
                samples: vec![
                    sample(&mut rng, "default", floor),
                    sample(&mut rng, "allreduce_as_reduce_bcast", floor * 0.97),
                ],
                smaller: None,
            });
        }
    }
    cases
}

/// This thread's CPU time in seconds: on a loaded machine the wall-clock
/// time counts the other processes' turns too.
fn thread_cpu_s() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec for the call to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// The options of `pgcheck run` by default, with a nanosecond timer so
/// that every candidate gets its usual time.
fn main() {
    let cases = cases();
    let options = Options::default();
    let observations: usize = cases
        .iter()
        .flat_map(|c| &c.samples)
        .map(|s| s.seconds.len())
        .sum();
    let (mut best, mut best_cpu) = (f64::INFINITY, f64::INFINITY);
    let mut violated = 0;
    for _ in 0..REPETITIONS {
        let (start, cpu) = (Instant::now(), thread_cpu_s());
        let mut decisions = Decisions::default();
        for case in &cases {
            decisions.add(black_box(case), &options);
        }
        let results = black_box(decisions.results(Meta::default(), true, &options));
        best = best.min(start.elapsed().as_secs_f64());
        best_cpu = best_cpu.min(thread_cpu_s() - cpu);
        violated = results
            .checks
            .iter()
            .filter(|v| v.violated_by.is_some())
            .count();
    }
    println!(
        "analysis: {} cases, {observations} observations: {best:.3} s wall, {best_cpu:.3} s CPU (best of {REPETITIONS}), {violated} violated",
        cases.len()
    );
}
