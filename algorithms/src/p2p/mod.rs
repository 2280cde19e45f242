//! Minimal implementations of the rooted collectives and the barrier from
//! point-to-point calls: Träff, Gropp & Thakur's rule (19), a collective is not slower
//! than its obvious implementation from sends and receives (the linear
//! gather of p − 1 receives the MPI standard describes it by, and, "for
//! example, an MPI_Bcast implementation by a simple binomial tree").
//!
//! Gather and scatter are linear: the root posts its p − 1 receives or
//! sends at once (`MPI_Irecv`/`MPI_Isend`, then `MPI_Waitall`) and copies
//! its own block; the others make one blocking call. Bcast and reduce run
//! on the binomial tree of [`Tree`]: ⌈log₂ p⌉ rounds, p − 1 messages of
//! the whole vector, blocking `MPI_Send` and `MPI_Recv`.
//!
//! The reduction keeps MPI's rank order: every subtree of [`Tree`] holds
//! consecutive ranks, and a process combines its partial result with a
//! child's as `lower ranks ⊕ higher ranks`, so the result is the rank-order
//! expression `x₀ ⊕ x₁ ⊕ … ⊕ x_{p−1}` bracketed by the tree, as MPI requires
//! of non-commutative operators (and floating-point sums round the same way
//! whatever the root).

mod barrier;
mod bcast;
mod gather;
mod reduce;
mod scatter;

pub use barrier::Barrier;
pub use bcast::Bcast;
pub use gather::Gather;
pub use reduce::Reduce;
pub use scatter::Scatter;

use std::ops::Range;

/// Message tags, one per collective, below the guaranteed `MPI_TAG_UB` of
/// 32767 and apart from the circulant family's and the control plane's.
mod tags {
    use mpi::Tag;
    pub const GATHER: Tag = 0x7D10;
    pub const SCATTER: Tag = 0x7D11;
    pub const BCAST: Tag = 0x7D12;
    pub const REDUCE: Tag = 0x7D13;
    pub const BARRIER: Tag = 0x7D14;
}

/// A child of a process in the [`Tree`], and the ranks of its subtree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Child {
    pub rank: usize,
    /// Consecutive ranks, `rank` among them.
    pub ranks: Range<usize>,
}

/// A process's place in the binomial tree of `size` processes rooted at
/// `root` in which every subtree holds consecutive ranks.
///
/// Built top-down by halving: the root of a range of n ranks keeps the
/// largest power of two below n of them, on its own side, and hands the
/// other n − h (at most h) to a child, which then does the same in its
/// part. A part to the right goes to its first rank, a part to the left to
/// its last (next to the root's). The subtree sizes are those of the
/// binomial tree, whatever the root, so every process is at most ⌈log₂ p⌉
/// steps from the root; for root 0 it is the textbook binomial tree
/// (MPICH's `MPIR_Bcast_intra_binomial`): the children of r are r + 2^k for
/// every 2^k below the lowest set bit of r. For another root the tree has
/// the same shape with ranks placed so that subtrees stay consecutive,
/// where the usual rotation by the root (rank − root mod p) would wrap a
/// subtree around the last rank and break the rank order of a reduction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    pub rank: usize,
    /// `None` at the root.
    pub parent: Option<usize>,
    /// The children in the order the halving hands them their parts, the
    /// farthest first (for a power of two, the largest subtree first): the
    /// order a broadcast sends in; a reduction receives in the reverse one.
    pub children: Vec<Child>,
}

impl Tree {
    /// The place of `rank` among `size` processes for `root`.
    pub fn of(size: usize, root: usize, rank: usize) -> Tree {
        assert!(root < size && rank < size, "root and rank below the size");
        let (mut lo, mut hi, mut top) = (0, size, root);
        let mut parent = None;
        let mut children = Vec::new();
        while hi - lo > 1 {
            let n = hi - lo;
            // The largest power of two below n: the root's share.
            let keep = n.next_power_of_two() / 2;
            let (kept, given, child) = if top - lo < keep {
                (lo..lo + keep, lo + keep..hi, lo + keep)
            } else {
                (hi - keep..hi, lo..hi - keep, hi - keep - 1)
            };
            if kept.contains(&rank) {
                if top == rank {
                    children.push(Child {
                        rank: child,
                        ranks: given,
                    });
                }
                (lo, hi) = (kept.start, kept.end);
            } else {
                if child == rank {
                    parent = Some(top);
                }
                (lo, hi, top) = (given.start, given.end, child);
            }
        }
        Tree {
            rank,
            parent,
            children,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ⌈log₂ p⌉.
    fn rounds(p: usize) -> usize {
        p.next_power_of_two().trailing_zeros() as usize
    }

    /// The ranks of the subtree of `rank`: itself and its children's.
    fn subtree(trees: &[Tree], rank: usize) -> Vec<usize> {
        let mut all = vec![rank];
        for child in &trees[rank].children {
            all.extend(subtree(trees, child.rank));
        }
        all.sort_unstable();
        all
    }

    fn depth(trees: &[Tree], rank: usize) -> usize {
        match trees[rank].parent {
            None => 0,
            Some(parent) => 1 + depth(trees, parent),
        }
    }

    /// For every size to 40 and every root: one tree (each process the
    /// child of its parent, only the root without one), every subtree the
    /// consecutive ranks its parent says, the root's subtree everyone, and
    /// no process more than ⌈log₂ p⌉ steps from the root or with more than
    /// ⌈log₂ p⌉ children.
    #[test]
    fn every_subtree_holds_consecutive_ranks_and_the_depth_is_logarithmic() {
        for p in 1..=40 {
            for root in 0..p {
                let trees: Vec<Tree> = (0..p).map(|r| Tree::of(p, root, r)).collect();
                for (r, tree) in trees.iter().enumerate() {
                    assert_eq!(tree.rank, r);
                    assert_eq!(
                        tree.parent.is_none(),
                        r == root,
                        "p {p} root {root} rank {r}"
                    );
                    if let Some(parent) = tree.parent {
                        let listed = trees[parent].children.iter().filter(|c| c.rank == r);
                        assert_eq!(listed.count(), 1, "p {p} root {root}: {r} under {parent}");
                    }
                    for child in &tree.children {
                        assert_eq!(trees[child.rank].parent, Some(r));
                        let ranks: Vec<usize> = child.ranks.clone().collect();
                        assert_eq!(subtree(&trees, child.rank), ranks, "p {p} root {root}");
                    }
                    assert!(tree.children.len() <= rounds(p));
                    assert!(depth(&trees, r) <= rounds(p), "p {p} root {root} rank {r}");
                }
                assert_eq!(subtree(&trees, root), (0..p).collect::<Vec<_>>());
                // A process's own rank and its children's subtrees, taken
                // from the smallest, grow one range of consecutive ranks.
                for tree in &trees {
                    let mut range = tree.rank..tree.rank + 1;
                    for child in tree.children.iter().rev() {
                        if child.ranks.end == range.start {
                            range.start = child.ranks.start;
                        } else {
                            assert_eq!(child.ranks.start, range.end, "p {p} root {root}");
                            range.end = child.ranks.end;
                        }
                    }
                }
            }
        }
    }

    /// Rooted at 0 it is the textbook binomial tree: the children of r are
    /// r + 2^k, the largest first, for every 2^k below r's lowest set bit
    /// (every 2^k for rank 0) that stays below p.
    #[test]
    fn rooted_at_zero_it_is_the_textbook_binomial_tree() {
        for p in 1..=40usize {
            for r in 0..p {
                let low = if r == 0 {
                    usize::MAX
                } else {
                    1 << r.trailing_zeros()
                };
                let mut expected: Vec<usize> = (0..usize::BITS)
                    .map(|k| 1usize << k)
                    .take_while(|&step| step < low && r + step < p)
                    .map(|step| r + step)
                    .collect();
                expected.reverse();
                let children: Vec<usize> =
                    Tree::of(p, 0, r).children.iter().map(|c| c.rank).collect();
                assert_eq!(children, expected, "p {p}, rank {r}");
                let parent = (r != 0).then(|| r - low);
                assert_eq!(Tree::of(p, 0, r).parent, parent);
            }
        }
    }

    #[test]
    fn a_middle_root_hands_out_consecutive_ranks_on_both_sides() {
        // p = 8, root 3: it keeps 0..4 and hands 4..8 to 4, then keeps 2..4
        // and hands 0..2 to 1 (the last of that part), then hands 2 to 2.
        let tree = Tree::of(8, 3, 3);
        assert_eq!(tree.parent, None);
        assert_eq!(
            tree.children,
            vec![
                Child {
                    rank: 4,
                    ranks: 4..8
                },
                Child {
                    rank: 1,
                    ranks: 0..2
                },
                Child {
                    rank: 2,
                    ranks: 2..3
                },
            ]
        );
        assert_eq!(Tree::of(8, 3, 0).parent, Some(1));
        assert_eq!(Tree::of(8, 3, 6).parent, Some(4));
        // The last rank as root mirrors root 0.
        let mirrored: Vec<usize> = Tree::of(5, 4, 4).children.iter().map(|c| c.rank).collect();
        assert_eq!(mirrored, [0, 2, 3]);
    }
}
