//! The machine's state, measured at the start of every round: a fixed
//! workload outside the timed calls, the same in every round, case and
//! launch, so that its time says which state the machine was in (this VM
//! ran whole launches 1.6–2.4× faster or slower, and changed state within
//! a launch): barriers of pgcheck's control plane, whose messages take the
//! library's own transport, and a compute loop.

use super::Context;
use crate::meta::MachineState;
use crate::stats::describe::{self, Statistic};

/// Steps of the compute loop: a few microseconds of dependent floating
/// point work, which no compiler can shorten.
const COMPUTE_STEPS: usize = 4096;

/// Barriers of pgcheck's control plane (point-to-point messages of the
/// library's own transport) per exchange: their mean is the round trip
/// the machine's state moves (allreduce 1 KiB went from 1 to 2 µs within a
/// launch, with the compute loop unchanged).
const EXCHANGE_BARRIERS: usize = 8;

/// The fastest of this many repetitions is the round's: the state, not
/// one interruption.
const REPETITIONS: usize = 3;

/// The calibration of one round: the control plane's barrier (mean of
/// [`EXCHANGE_BARRIERS`]) and the compute loop, each the maximum over
/// ranks, fastest of [`REPETITIONS`]. Collective over the control plane;
/// the same values on every rank.
pub fn calibrate(ctx: &Context) -> Calibration {
    let control = &ctx.control;
    let mut fastest = [f64::INFINITY; 2];
    for repetition in 0..REPETITIONS {
        control.barrier();
        let start = mpi::time();
        for _ in 0..EXCHANGE_BARRIERS {
            control.barrier();
        }
        let exchanged = mpi::time();
        std::hint::black_box(compute(COMPUTE_STEPS, repetition as f64));
        let mut took = [
            (exchanged - start) / EXCHANGE_BARRIERS as f64,
            mpi::time() - exchanged,
        ];
        control.max(&mut took);
        fastest[0] = fastest[0].min(took[0]);
        fastest[1] = fastest[1].min(took[1]);
    }
    Calibration {
        exchange_s: fastest[0],
        compute_s: fastest[1],
    }
}

/// One round's calibration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Calibration {
    /// A barrier of the control plane.
    pub exchange_s: f64,
    /// The compute loop.
    pub compute_s: f64,
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
pub fn state(rounds: &[Calibration]) -> Option<MachineState> {
    let exchange: Vec<f64> = rounds.iter().map(|c| c.exchange_s).collect();
    let compute: Vec<f64> = rounds.iter().map(|c| c.compute_s).collect();
    let selected = describe::Selected::of(
        &exchange,
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
        compute_s: describe::median(&compute),
        rounds_s: exchange,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_the_median_and_spread_of_the_rounds() {
        assert_eq!(state(&[]), None);
        let round = |exchange_s: f64| Calibration {
            exchange_s,
            compute_s: 5e-6,
        };
        let rounds: Vec<Calibration> = (1..=11).map(|i| round(f64::from(i) * 1e-6)).collect();
        let s = state(&rounds).unwrap();
        assert_eq!(s.calibration_s, 6e-6);
        assert_eq!(s.compute_s, 5e-6);
        assert!((s.low_s - 2e-6).abs() < 1e-12 && (s.high_s - 10e-6).abs() < 1e-12);
        assert_eq!(s.rounds_s.len(), 11);
    }
}
