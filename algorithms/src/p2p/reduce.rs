//! `MPI_Reduce` on a binomial tree of `MPI_Send` and `MPI_Recv`, combining
//! in rank order with `MPI_Reduce_local`.

use super::{tags, Tree};
use mockups::scratch::scratch;
use mpi::collective::{reduce_local_into, Operation};
use mpi::datatype::Equivalence;
use mpi::topology::Communicator;
use mpi::traits::*;

/// Binomial reduction: each process receives its children's partial
/// results, the nearest first, combines each with its own, and
/// sends the result to its parent; ⌈log₂ p⌉ rounds, p − 1 messages.
///
/// Every subtree holds consecutive ranks ([`Tree`]), so a child's partial
/// result covers the ranks just below or just above the process's: it is
/// combined as `child ⊕ mine` or `mine ⊕ child`, and the root ends with
/// the rank-order reduction whatever the operator. `MPI_Reduce_local(in,
/// inout)` computes `inout = in ⊕ inout`, so a child from above is combined
/// into its own buffer and the partial result moves there ([`folds`]); a
/// process works in two buffers (the root's `recv` one of them) and a leaf
/// sends straight from `send`.
pub struct Reduce<T> {
    count: usize,
    parent: Option<usize>,
    folds: Vec<Fold>,
    /// Where the result is after the folds.
    result: Slot,
    /// The work buffers other than the root's `recv`, one after the other.
    work: Vec<T>,
}

impl<T: Equivalence + Copy + Default> Reduce<T> {
    /// Prepares the reduction of `count` elements to `root`; not
    /// collective.
    pub fn new<C: Communicator>(comm: &C, count: usize, root: usize) -> Reduce<T> {
        let (size, rank) = (comm.size() as usize, comm.rank() as usize);
        let tree = Tree::of(size, root, rank);
        let (folds, result) = folds(&tree);
        let used = folds
            .iter()
            .flat_map(|f| [f.into, f.inout].into_iter().chain(f.copy_send))
            .max()
            .map_or(0, |w| w + 1);
        // The root's result lands in `recv`, which stands for one buffer.
        let own = used - usize::from(tree.parent.is_none() && used > 0);
        Reduce {
            count,
            parent: tree.parent,
            folds,
            result,
            work: scratch(own * count),
        }
    }

    /// Reduces every process's `send` with `op` into the root's `recv`;
    /// `recv` is not touched elsewhere.
    pub fn run<C, O>(&mut self, comm: &C, send: &[T], recv: &mut [T], op: O)
    where
        C: Communicator,
        O: Operation + Copy,
    {
        let m = self.count;
        let send = &send[..m];
        if m == 0 {
            return;
        }
        let first_len = m.min(self.work.len());
        let (first, second) = self.work.split_at_mut(first_len);
        let mut work: [&mut [T]; 2] = match (self.parent, self.result) {
            // The root's result is its `recv`: that work buffer is `recv`.
            (None, Slot::Work(0)) => [&mut recv[..m], first],
            (None, Slot::Work(_)) => [first, &mut recv[..m]],
            _ => [first, second],
        };
        for fold in &self.folds {
            if let Some(w) = fold.copy_send {
                work[w].copy_from_slice(send);
            }
            comm.process_at_rank(fold.from as i32)
                .receive_into_with_tag(&mut *work[fold.into], tags::REDUCE);
            let [a, b] = &mut work;
            let (one, other): (&mut [T], &mut [T]) = (a, b);
            let (input, inout): (&[T], &mut [T]) = match (fold.input, fold.inout) {
                (Slot::Send, 0) => (send, one),
                (Slot::Send, _) => (send, other),
                (Slot::Work(1), 0) => (other, one),
                (Slot::Work(0), 1) => (one, other),
                _ => unreachable!("a fold reads and writes different buffers"),
            };
            reduce_local_into(input, inout, op);
        }
        let result: &[T] = match self.result {
            Slot::Send => send,
            Slot::Work(w) => &*work[w],
        };
        match self.parent {
            Some(parent) => comm
                .process_at_rank(parent as i32)
                .send_with_tag(result, tags::REDUCE),
            // p = 1: the root has no children and its result is `send`.
            None if self.result == Slot::Send => recv[..m].copy_from_slice(send),
            None => {}
        }
    }
}

/// Where a partial result is: the caller's `send` or work buffer 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Send,
    Work(usize),
}

/// One child's partial result combined with the process's: received into
/// work buffer `into`, then `MPI_Reduce_local(input, inout)`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Fold {
    /// The child.
    from: usize,
    /// Copy `send` into this work buffer first (the process's own value,
    /// where a child from below must be combined into it).
    copy_send: Option<usize>,
    into: usize,
    input: Slot,
    /// The work buffer that holds the partial result afterwards.
    inout: usize,
}

/// The folds of a process at `tree`, the nearest child first, and where
/// its result is after them. With the partial result `mine` and a child's
/// `theirs` (received into the work buffer `mine` is not in), a child from
/// below gives `theirs ⊕ mine` in `mine`'s buffer (copied there from
/// `send` first if it is still `send`), a child from above `mine ⊕ theirs`
/// in `theirs`'.
fn folds(tree: &Tree) -> (Vec<Fold>, Slot) {
    let mut mine = Slot::Send;
    let mut folds = Vec::new();
    for child in tree.children.iter().rev() {
        let below = child.ranks.end <= tree.rank;
        let fold = match (mine, below) {
            (Slot::Send, true) => Fold {
                from: child.rank,
                copy_send: Some(0),
                into: 1,
                input: Slot::Work(1),
                inout: 0,
            },
            (Slot::Send, false) => Fold {
                from: child.rank,
                copy_send: None,
                into: 0,
                input: Slot::Send,
                inout: 0,
            },
            (Slot::Work(w), true) => Fold {
                from: child.rank,
                copy_send: None,
                into: 1 - w,
                input: Slot::Work(1 - w),
                inout: w,
            },
            (Slot::Work(w), false) => Fold {
                from: child.rank,
                copy_send: None,
                into: 1 - w,
                input: Slot::Work(w),
                inout: 1 - w,
            },
        };
        mine = Slot::Work(fold.inout);
        folds.push(fold);
    }
    (folds, mine)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the folds of every process of the tree on text, where `a ⊕ b`
    /// is `(a b)`: neither commutative nor associative, so the text shows
    /// the order and bracketing of every combination. Each buffer is
    /// simulated, `send` read only, and a fold must read and write
    /// different ones.
    fn reduce_as_text(p: usize, root: usize, rank: usize) -> String {
        let tree = Tree::of(p, root, rank);
        let (folds, result) = folds(&tree);
        let send = rank.to_string();
        let mut work = [String::from("?"), String::from("?")];
        for fold in &folds {
            if let Some(w) = fold.copy_send {
                work[w] = send.clone();
            }
            assert_ne!(Slot::Work(fold.inout), fold.input);
            work[fold.into] = reduce_as_text(p, root, fold.from);
            let input = match fold.input {
                Slot::Send => send.clone(),
                Slot::Work(w) => work[w].clone(),
            };
            work[fold.inout] = format!("({input} {})", work[fold.inout]);
        }
        match result {
            Slot::Send => send,
            Slot::Work(w) => work[w].clone(),
        }
    }

    /// The ranks in the order the text names them.
    fn leaves(text: &str) -> Vec<usize> {
        text.split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .map(|s| s.parse().unwrap())
            .collect()
    }

    #[test]
    fn the_root_combines_every_rank_once_in_rank_order() {
        for p in 1..=33 {
            for root in 0..p {
                let text = reduce_as_text(p, root, root);
                assert_eq!(
                    leaves(&text),
                    (0..p).collect::<Vec<_>>(),
                    "p {p} root {root}: {text}"
                );
            }
        }
        // Rooted in the middle, the tree's bracketing.
        assert_eq!(reduce_as_text(8, 3, 3), "(((0 1) (2 3)) ((4 5) (6 7)))");
        assert_eq!(reduce_as_text(5, 2, 2), "(((0 1) (2 3)) 4)");
    }

    #[test]
    fn a_process_copies_send_only_for_a_child_below_it_and_leaves_send_alone() {
        // Root 0: every child is above, no copy, one buffer per fold pair.
        for rank in 0..8 {
            let (folds, _) = folds(&Tree::of(8, 0, rank));
            assert!(folds.iter().all(|f| f.copy_send.is_none()));
        }
        // The last rank as root: its nearest child is below it.
        let (folds, result) = folds(&Tree::of(4, 3, 3));
        assert_eq!(folds[0].copy_send, Some(0));
        assert!(folds[1..].iter().all(|f| f.copy_send.is_none()));
        assert_eq!(result, Slot::Work(0));
        // A leaf sends `send` itself.
        assert_eq!(super::folds(&Tree::of(4, 0, 3)), (vec![], Slot::Send));
    }
}
