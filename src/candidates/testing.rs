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

/// `run`, then a wait of `factor − 1` times the call's own duration on
/// each rank: the same call made `factor` times slower. The duration is at
/// most twice the shortest seen so far: a call that waited for a late rank
/// would otherwise make that wait `factor` times longer, which the other
/// rank then waits for in its next call, and so on (a rooted collective
/// back to back grew to minutes that way). Far from its end the wait
/// yields the core, so that oversubscribed ranks are not slowed further;
/// near it, it spins, so that a yield does not overshoot it.
pub fn slowed<T: Element>(mut run: Call<T>, factor: f64) -> Call<T> {
    let mut shortest = f64::INFINITY;
    Box::new(move |s, r| {
        let start = mpi::time();
        run(s, r);
        let took = mpi::time() - start;
        shortest = shortest.min(took);
        let until = start + factor * took.min(2.0 * shortest);
        loop {
            match until - mpi::time() {
                left if left > 50e-6 => std::thread::yield_now(),
                left if left > 0.0 => std::hint::spin_loop(),
                _ => break,
            }
        }
    })
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
