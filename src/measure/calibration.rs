//! The machine's state, measured at the start of every round: a fixed
//! workload outside the timed calls, the same in every round, case and
//! launch, so that its time says which state the machine was in (this VM
//! ran whole launches 1.6–2.4× faster or slower, and changed state within
//! a launch).

use super::Context;
use crate::meta::MachineState;
use crate::stats::describe::{self, Statistic};

/// Steps of the compute loop: a few microseconds of dependent floating
/// point work, which no compiler can shorten.
const COMPUTE_STEPS: usize = 4096;

/// Doubles of the exchange: 4 KiB, past the sizes that fit a single
/// shared-memory cell, broadcast over pgcheck's own control plane.
const EXCHANGE_LEN: usize = 512;

/// The fastest of this many repetitions is the round's: the state, not
/// one interruption.
const REPETITIONS: usize = 3;

/// The calibration of one round: on every rank, the compute loop and then
/// rank 0's 4 KiB broadcast; the maximum over ranks, fastest of
/// [`REPETITIONS`]. Collective over the control plane; the same value on
/// every rank.
pub fn calibrate(ctx: &Context) -> f64 {
    let control = &ctx.control;
    let mut exchange = [0.0f64; EXCHANGE_LEN];
    let mut fastest = f64::INFINITY;
    for repetition in 0..REPETITIONS {
        control.barrier();
        let start = mpi::time();
        exchange[0] = std::hint::black_box(compute(COMPUTE_STEPS, repetition as f64));
        control.broadcast(&mut exchange[..]);
        let mut took = [mpi::time() - start];
        control.max(&mut took);
        fastest = fastest.min(took[0]);
    }
    fastest
}

/// A chain of dependent multiply-adds.
fn compute(steps: usize, seed: f64) -> f64 {
    let mut x = 1.0 + seed * 1e-3;
    for _ in 0..steps {
        x = std::hint::black_box(x * 0.999_999 + 1e-6);
    }
    x
}

/// The run's machine state from every round's calibration, in the order
/// measured; None without rounds.
pub fn state(rounds_s: Vec<f64>) -> Option<MachineState> {
    let selected = describe::Selected::of(
        &rounds_s,
        &[
            Statistic::Quantile(0.1),
            Statistic::Median,
            Statistic::Quantile(0.9),
        ],
    )?;
    Some(MachineState {
        calibration_s: selected.median(),
        low_s: selected.quantile(0.1),
        high_s: selected.quantile(0.9),
        rounds_s,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_the_median_and_spread_of_the_rounds() {
        assert_eq!(state(Vec::new()), None);
        let rounds: Vec<f64> = (1..=11).map(|i| f64::from(i) * 1e-6).collect();
        let s = state(rounds.clone()).unwrap();
        assert_eq!(s.calibration_s, describe::median(&rounds));
        assert!((s.low_s - 2e-6).abs() < 1e-12 && (s.high_s - 10e-6).abs() < 1e-12);
        assert!(s.changed(), "2 to 10 µs: two states");
        let quiet = state(vec![5.0e-6, 5.1e-6, 5.05e-6, 5.2e-6]).unwrap();
        assert!(!quiet.changed());
        assert_eq!(quiet.rounds_s.len(), 4);
    }
}
