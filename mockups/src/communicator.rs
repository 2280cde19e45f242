//! Other communicators over the same processes, on which the library's own
//! collective runs for Träff, Gropp & Thakur's rules (20)/(21): a
//! collective performs about the same on a communicator whose ranks are
//! permuted ([`permuted`]) or on a copy ([`duplicate`]) as on the original.
//! Both are made once, outside the timed region, and freed (MPI_Comm_free)
//! when dropped.

use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

/// The seed of [`permutation`]: fixed, so that every process, and every
/// run, draws the same permutation.
const SEED: u64 = 0x7261_6e6b_7320_3230;

/// A random permutation of `0..p` from a fixed seed: process r has rank
/// `key[r]` on the permuted communicator. Never the identity for p ≥ 2,
/// which would make the permuted communicator a mere copy.
pub fn permutation(p: usize) -> Vec<usize> {
    let mut key: Vec<usize> = (0..p).collect();
    let mut state = SEED;
    // Fisher–Yates with splitmix64; the modulo bias is irrelevant here.
    for i in (1..p).rev() {
        let j = (splitmix64(&mut state) % (i as u64 + 1)) as usize;
        key.swap(i, j);
    }
    if key.iter().enumerate().all(|(i, &k)| i == k) {
        key.rotate_left(1);
    }
    key
}

/// The inverse of a permutation: `inverse(key)[key[r]] == r`.
pub fn inverse(key: &[usize]) -> Vec<usize> {
    let mut inverse = vec![0; key.len()];
    for (r, &k) in key.iter().enumerate() {
        inverse[k] = r;
    }
    inverse
}

fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `MPI_Comm_split(comm, 0, key)` with the key of [`permutation`]: the
/// same processes, ranked in another order. Collective over `comm`.
pub fn permuted<C: Communicator>(comm: &C) -> SimpleCommunicator {
    let key = permutation(comm.size() as usize)[comm.rank() as usize];
    comm.split_by_color_with_key(Color::with_value(0), key as i32)
        .expect("every process has colour 0")
}

/// `MPI_Comm_dup(comm)`. Collective over `comm`.
pub fn duplicate<C: Communicator>(comm: &C) -> SimpleCommunicator {
    comm.duplicate()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_are_permutations_and_never_the_identity() {
        for p in 1..=64 {
            let key = permutation(p);
            let mut sorted = key.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, (0..p).collect::<Vec<_>>(), "p = {p}");
            if p >= 2 {
                assert!(key.iter().enumerate().any(|(i, &k)| i != k), "p = {p}");
            }
            let inv = inverse(&key);
            assert!((0..p).all(|r| inv[key[r]] == r));
            assert_eq!(permutation(p), key, "the same on every call");
        }
    }
}
