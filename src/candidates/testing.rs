//! Test-only competitors, compiled in with the cargo feature `testing`:
//! known wrong ones that verification must catch, and the library's own
//! call under another name for A/A experiments. `pgcheck list` shows them
//! and inputs may name them, but `competitors: all` leaves them out.

use super::{native, Call};
use crate::element::Element;
use crate::operation::Operation;

/// The factor by which `default` of `operation` at `size_bytes` is
/// slowed (`PGCHECK_TEST_SLOW_DEFAULT`): a known slowdown against the A/A
/// competitors (`*_as_*_self`), for experiments on the power of the tests,
/// or a known regression of the library. `PGCHECK_TEST_SLOW_DEFAULT_AT`
/// (`allreduce:512,bcast:8`) limits it to those cases.
pub fn default_slowdown(operation: Operation, size_bytes: usize) -> Option<f64> {
    let factor: f64 = std::env::var("PGCHECK_TEST_SLOW_DEFAULT")
        .ok()?
        .parse()
        .ok()?;
    let here = format!("{operation}:{size_bytes}");
    let at = std::env::var("PGCHECK_TEST_SLOW_DEFAULT_AT").ok();
    let chosen = at.is_none_or(|at| at.split(',').any(|case| case.trim() == here));
    (factor.is_finite() && factor > 1.0 && chosen).then_some(factor)
}

/// `run`, then a wait of `factor − 1` times the call's usual duration on
/// this rank: the same call made `factor` times slower at its median, so
/// that the known truth is exact. The usual duration is the running median
/// of the call's own durations ([`RunningMedian`]), cheap enough for a call
/// of 0.5 µs, and the wrapper's own cost (its clock reads; left in,
/// 1.25× read 1.31× on calls of 1–2 µs) is taken off the wait. A wait that is a share of each call's own
/// duration was not exact: with synchronised starts the last rank's
/// duration is what counts, and a cap that kept a rank's wait for a late
/// one from compounding cut the slowdown of every call slower than twice
/// the fastest (1.25× read 1.2×). A fixed wait cannot compound.
pub fn slowed<T: Element>(mut run: Call<T>, factor: f64) -> Call<T> {
    let mut usual = RunningMedian::default();
    let own_cost = wrapper_cost();
    Box::new(move |s, r| {
        let start = mpi::time();
        run(s, r);
        let took = mpi::time() - start;
        let wait = (factor - 1.0) * usual.add(took) - own_cost;
        wait_until(start + took + wait.max(0.0));
    })
}

/// Waits until `until` (in `mpi::time`): far from it the wait yields the
/// core, so that oversubscribed ranks are not slowed further; near it, it
/// spins, so that a yield does not overshoot it.
fn wait_until(until: f64) {
    loop {
        match until - mpi::time() {
            left if left > 50e-6 => std::thread::yield_now(),
            left if left > 0.0 => std::hint::spin_loop(),
            _ => break,
        }
    }
}

/// What [`slowed`] adds to an empty call with no wait: its median over
/// 101 tries.
fn wrapper_cost() -> f64 {
    let mut usual = RunningMedian::default();
    let mut costs: Vec<f64> = (0..101)
        .map(|_| {
            let entry = mpi::time();
            let start = mpi::time();
            let took = mpi::time() - start;
            std::hint::black_box(usual.add(took));
            wait_until(start + took);
            mpi::time() - entry
        })
        .collect();
    costs.sort_by(f64::total_cmp);
    costs[costs.len() / 2]
}

/// The median of a stream of positive durations: exact over the first
/// values, then tracked by stochastic approximation (each new value moves
/// the estimate 0.5 % of itself towards it, so that once it settles as
/// many values lie above it as below; a 2× change of the machine's state
/// is followed within 150 values).
struct RunningMedian {
    first: Vec<f64>,
    estimate: f64,
}

impl Default for RunningMedian {
    /// Room for the exact values made before any call is timed.
    fn default() -> Self {
        RunningMedian {
            first: Vec::with_capacity(Self::EXACT),
            estimate: 0.0,
        }
    }
}

impl RunningMedian {
    const EXACT: usize = 16;
    const STEP: f64 = 0.005;

    /// Adds `value` and returns the median's estimate.
    fn add(&mut self, value: f64) -> f64 {
        if self.first.len() < Self::EXACT {
            self.first.push(value);
            self.first.sort_by(f64::total_cmp);
            self.estimate = self.first[self.first.len() / 2];
        } else {
            self.estimate *= match value.total_cmp(&self.estimate) {
                std::cmp::Ordering::Greater => 1.0 + Self::STEP,
                std::cmp::Ordering::Less => 1.0 - Self::STEP,
                std::cmp::Ordering::Equal => 1.0,
            };
        }
        self.estimate
    }
}

competitors! {
    family: Testing,
    prepare<T>(name, setup) {
        let mut inner = native::prepare::<T>(setup);
        let shape = setup.shape.clone();
    }
    "allreduce_as_allreduce_corrupted" for Allreduce {
        guideline: "test only",
        description: "MPI_Allreduce, then the last rank's first element is overwritten",
        call: Box::new(move |s, r| {
            inner(s, r);
            if shape.rank + 1 == shape.size && !r.is_empty() {
                r[0] = s[s.len() - 1];
            }
        }),
    }
    "allgather_as_allgather_misplaced" for Allgather {
        guideline: "test only",
        description: "MPI_Allgather with the first two blocks swapped on every rank",
        call: Box::new(move |s, r| {
            inner(s, r);
            if shape.size >= 2 {
                let (first, second) = r.split_at_mut(shape.count);
                first.swap_with_slice(&mut second[..shape.count]);
            }
        }),
    }
    "allreduce_as_allreduce_self" for Allreduce {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Allreduce under another name",
        call: inner,
    }
    "allreduce_as_allreduce_self_b" for Allreduce {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Allreduce under a second name (a case of several A/A competitors)",
        call: inner,
    }
    "allreduce_as_allreduce_self_c" for Allreduce {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Allreduce under a third name",
        call: inner,
    }
    "allreduce_as_allreduce_panics" for Allreduce {
        guideline: "test only",
        description: "MPI_Allreduce; the last rank panics on its 5th call, the first measured one after verification and 3 warm-ups",
        call: {
            let mut calls = 0;
            Box::new(move |s, r| {
                calls += 1;
                if shape.rank + 1 == shape.size && calls == 5 {
                    panic!("test-only candidate fails on purpose");
                }
                inner(s, r)
            })
        },
    }
    "allreduce_as_allreduce_late" for Allreduce {
        guideline: "test only",
        description: "MPI_Allreduce; the last rank sleeps 2 ms before every 8th call, so the next start is late",
        call: {
            let mut calls = 0u64;
            Box::new(move |s, r| {
                calls += 1;
                if shape.rank + 1 == shape.size && calls.is_multiple_of(8) {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                inner(s, r)
            })
        },
    }
    "iallreduce_as_iallreduce_self" for Allreduce (Nonblocking) {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Iallreduce + MPI_Wait under another name",
        call: inner,
    }
    "bcast_as_bcast_self" for Bcast {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Bcast under another name",
        call: inner,
    }
    "bcast_as_bcast_self_b" for Bcast {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Bcast under a second name (a case of several A/A competitors)",
        call: inner,
    }
    "bcast_as_bcast_self_c" for Bcast {
        guideline: "test only (A/A)",
        description: "the library's own MPI_Bcast under a third name",
        call: inner,
    }
}

#[cfg(test)]
mod tests {
    use super::RunningMedian;

    /// Durations of a call: a pseudo-random, skewed stream (a tail of slow
    /// calls) whose median is known by sorting.
    fn durations(values: usize, scale: f64) -> Vec<f64> {
        let mut state = 12345u64;
        (0..values)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = (state >> 11) as f64 / (1u64 << 53) as f64;
                scale * (1.0 + 0.2 * u + if u > 0.9 { 30.0 * (u - 0.9) } else { 0.0 })
            })
            .collect()
    }

    fn median(values: &[f64]) -> f64 {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        sorted[sorted.len() / 2]
    }

    #[test]
    fn the_running_median_settles_on_the_median_and_follows_a_change_of_state() {
        let mut usual = RunningMedian::default();
        let first = durations(2000, 1e-6);
        let settled = first.iter().map(|&d| usual.add(d)).last().unwrap();
        assert!((settled / median(&first) - 1.0).abs() < 0.03, "{settled:e}");
        // The machine becomes twice as slow: followed within 300 calls.
        let second = durations(300, 2e-6);
        let followed = second.iter().map(|&d| usual.add(d)).last().unwrap();
        assert!(
            (followed / median(&second) - 1.0).abs() < 0.05,
            "{followed:e}"
        );
    }

    #[test]
    fn a_slow_first_call_is_forgotten_within_a_few_calls() {
        let mut usual = RunningMedian::default();
        usual.add(1e-3);
        let rest = durations(60, 1e-6);
        let estimate = rest.iter().map(|&d| usual.add(d)).last().unwrap();
        assert!((estimate / median(&rest) - 1.0).abs() < 0.1, "{estimate:e}");
    }
}
