//! Checks the point-to-point tree collectives (`algorithms::tree`) on the
//! processes it is launched on: every root, lengths 0, 1, 3 and 1000, data
//! that differs per rank and element, blocks of uneven lengths. Prints `tree collectives: ok on p
//! processes` on rank 0, or the first mismatch and exits with status 1.
//! `tests/control.rs` launches it.

use algorithms::tree;
use mpi::traits::*;

fn main() {
    let universe = mpi::initialize().expect("MPI initialises");
    let world = universe.world();
    let comm = world.duplicate();
    let (rank, size) = (comm.rank() as usize, comm.size() as usize);
    let value = |r: usize, i: usize| (r * 1_000_003 + i * 7 + 1) as f64;
    let fail = |what: String| -> ! {
        eprintln!("tree collectives, rank {rank} of {size}: {what}");
        std::process::exit(1)
    };
    for len in [0usize, 1, 3, 1000] {
        for root in 0..size {
            let mut buf: Vec<f64> = (0..len)
                .map(|i| match rank == root {
                    true => value(root, i),
                    false => -1.0,
                })
                .collect();
            tree::broadcast(&comm, root, &mut buf);
            if let Some(i) = (0..len).find(|&i| buf[i] != value(root, i)) {
                fail(format!(
                    "broadcast from {root} of {len}: element {i} is {}",
                    buf[i]
                ));
            }
        }
        let mine: Vec<f64> = (0..len).map(|i| value(rank, i)).collect();
        let mut scratch = vec![0.0; len];
        let mut max = mine.clone();
        tree::all_reduce(&comm, &mut max, &mut scratch, |a, b| {
            a.iter_mut().zip(b).for_each(|(x, &y)| *x = x.max(y))
        });
        let mut sum = mine.clone();
        tree::all_reduce(&comm, &mut sum, &mut scratch, |a, b| {
            a.iter_mut().zip(b).for_each(|(x, &y)| *x += y)
        });
        for i in 0..len {
            let want_max = value(size - 1, i);
            let want_sum: f64 = (0..size).map(|r| value(r, i)).sum();
            if max[i] != want_max || sum[i] != want_sum {
                fail(format!(
                    "all_reduce of {len}, element {i}: max {} (want {want_max}), sum {} (want {want_sum})",
                    max[i], sum[i]
                ));
            }
        }
        let mut first = mine.clone();
        tree::reduce_to_first(&comm, &mut first, &mut scratch, |a, b| {
            a.iter_mut().zip(b).for_each(|(x, &y)| *x += y)
        });
        if rank == 0 {
            if let Some(i) = (0..len).find(|&i| first[i] != (0..size).map(|r| value(r, i)).sum()) {
                fail(format!(
                    "reduce_to_first of {len}: element {i} is {}",
                    first[i]
                ));
            }
        }
        let mut all = vec![0.0; len * size];
        tree::all_gather(&comm, &mine, &mut all);
        for r in 0..size {
            if let Some(i) = (0..len).find(|&i| all[r * len + i] != value(r, i)) {
                fail(format!("all_gather of {len}: block {r}, element {i}"));
            }
        }
        // Blocks of uneven lengths, the last ones empty where len < size.
        let bounds: Vec<usize> = (0..=size)
            .map(|r| r * (len / size) + r.min(len % size))
            .collect();
        let block = bounds[rank]..bounds[rank + 1];
        let mut all: Vec<f64> = (0..len)
            .map(|i| match block.contains(&i) {
                true => value(rank, i),
                false => -1.0,
            })
            .collect();
        tree::all_gather_blocks(&comm, &mut all, &bounds);
        let owner = |i: usize| (0..size).find(|&r| bounds[r + 1] > i).expect("a block");
        if let Some(i) = (0..len).find(|&i| all[i] != value(owner(i), i)) {
            fail(format!(
                "all_gather_blocks of {len}: element {i} is {}",
                all[i]
            ));
        }
        // All-to-all: the block from q to r holds (q, r, i) for i below
        // `len` shortened by q + r, so block lengths differ and some are
        // empty; each side computes the other's lengths.
        let length = |from: usize, to: usize| len.saturating_sub(from + to);
        let item = |from: usize, to: usize, i: usize| (from * 1000 + to) as f64 + i as f64 / 1e6;
        let bounds_of = |lengths: &dyn Fn(usize) -> usize| -> Vec<usize> {
            std::iter::once(0)
                .chain((0..size).scan(0, |end, r| {
                    *end += lengths(r);
                    Some(*end)
                }))
                .collect()
        };
        let out_bounds = bounds_of(&|to| length(rank, to));
        let in_bounds = bounds_of(&|from| length(from, rank));
        let outgoing: Vec<f64> = (0..size)
            .flat_map(|to| (0..length(rank, to)).map(move |i| item(rank, to, i)))
            .collect();
        let mut incoming = vec![-1.0; in_bounds[size]];
        tree::all_to_all_blocks(&comm, &outgoing, &out_bounds, &mut incoming, &in_bounds);
        for from in 0..size {
            for i in 0..length(from, rank) {
                let got = incoming[in_bounds[from] + i];
                if got != item(from, rank, i) {
                    fail(format!(
                        "all_to_all_blocks of {len}: from {from}, element {i} is {got}"
                    ));
                }
            }
        }
        for root in 0..size {
            let mut buf: Vec<f64> = match rank == root {
                true => (0..len)
                    .map(|i| match block.contains(&i) {
                        true => value(rank, i),
                        false => -1.0,
                    })
                    .collect(),
                false => block.clone().map(|i| value(rank, i)).collect(),
            };
            tree::gather_blocks(&comm, root, &mut buf, &bounds);
            if rank == root {
                if let Some(i) = (0..len).find(|&i| buf[i] != value(owner(i), i)) {
                    fail(format!(
                        "gather_blocks to {root} of {len}: element {i} is {}",
                        buf[i]
                    ));
                }
            }
        }
    }
    // A barrier: no rank leaves before the last has entered. The last rank
    // enters late and tells the time it entered; everybody else must have
    // left after it. The times are the system's clock, which the processes
    // of one node share: MPI_Wtime need not agree between them (Intel MPI
    // 2021.19's differs by up to 10 ms between ranks of one node, although
    // it sets MPI_WTIME_IS_GLOBAL).
    let late = size - 1;
    let entered = match rank == late {
        true => {
            std::thread::sleep(std::time::Duration::from_millis(50));
            system_time()
        }
        false => 0.0,
    };
    tree::barrier(&comm);
    let left = system_time();
    let mut told = [entered];
    tree::broadcast(&comm, late, &mut told);
    // The clocks of one node agree; allow for their resolution.
    if size > 1 && left + 1e-3 < told[0] {
        fail(format!(
            "left the barrier at {left}, before rank {late} entered at {}",
            told[0]
        ));
    }
    if rank == 0 {
        println!("tree collectives: ok on {size} processes");
    }
}

/// Seconds since the epoch by the system's clock.
fn system_time() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_secs_f64()
}
