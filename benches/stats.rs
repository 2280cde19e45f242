//! Times the full two-sample analysis of 10^6 + 10^6 observations
//! (medians, Mann–Whitney U, Welch, Kolmogorov–Smirnov).
//! Run with `cargo bench --bench stats`.

use std::hint::black_box;
use std::time::Instant;

use pgcheck::stats::mann_whitney::Method;
use pgcheck::stats::{describe, ks, mann_whitney, welch, Alternative};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const OBSERVATIONS: usize = 1_000_000;
const REPETITIONS: usize = 5;

/// Run times in seconds: a floor, a right-skewed body and a timer resolution
/// of one nanosecond, so that the samples have ties as real timings do.
fn timings(rng: &mut StdRng, floor: f64) -> Vec<f64> {
    (0..OBSERVATIONS)
        .map(|_| {
            let u: f64 = rng.gen();
            let noise = -(1.0 - u).ln() * 2e-6;
            ((floor + noise) * 1e9).round() / 1e9
        })
        .collect()
}

/// Slowdown and the three one-sided p-values, each test sorting for itself.
fn analyse(x: &[f64], y: &[f64]) -> [f64; 4] {
    let slowdown = describe::median(x) / describe::median(y);
    [
        slowdown,
        mann_whitney::test(x, y, Alternative::Greater, Method::Auto).p_value,
        welch::test(x, y, Alternative::Greater).p_value,
        ks::test(x, y, Alternative::Greater).p_value,
    ]
}

/// The same from one sort of each sample, shared by the medians and the rank tests.
fn analyse_sorted_once(x: &[f64], y: &[f64]) -> [f64; 4] {
    let (xs, ys) = (describe::sorted(x), describe::sorted(y));
    let slowdown = describe::median_sorted(&xs) / describe::median_sorted(&ys);
    [
        slowdown,
        mann_whitney::test_sorted(&xs, &ys, Alternative::Greater, Method::Auto).p_value,
        welch::test(x, y, Alternative::Greater).p_value,
        ks::test_sorted(&xs, &ys, Alternative::Greater).p_value,
    ]
}

/// Best wall-clock time in seconds of `REPETITIONS` runs, and the last result.
fn time(run: impl Fn(&[f64], &[f64]) -> [f64; 4], x: &[f64], y: &[f64]) -> (f64, [f64; 4]) {
    let mut best = f64::INFINITY;
    let mut result = [0.0; 4];
    for _ in 0..REPETITIONS {
        let start = Instant::now();
        result = black_box(run(black_box(x), black_box(y)));
        best = best.min(start.elapsed().as_secs_f64());
    }
    (best, result)
}

fn main() {
    let mut rng = StdRng::seed_from_u64(20_261_121);
    let x = timings(&mut rng, 10.002e-6);
    let y = timings(&mut rng, 10.0e-6);

    let (seconds, result) = time(analyse, &x, &y);
    let (seconds_sorted_once, result_sorted_once) = time(analyse_sorted_once, &x, &y);
    assert_eq!(result, result_sorted_once);
    println!(
        "stats: {} + {} observations: slowdown {:.5}, one-sided p: MWU {:.3e}, Welch {:.3e}, KS {:.3e}",
        x.len(),
        y.len(),
        result[0],
        result[1],
        result[2],
        result[3]
    );
    println!(
        "stats: full analysis (medians + MWU + Welch + KS) {seconds:.3} s (best of {REPETITIONS})"
    );
    println!("stats: the same sorting each sample once {seconds_sorted_once:.3} s");
}
