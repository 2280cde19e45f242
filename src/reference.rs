//! The independent reference of verification: the result MPI defines for a
//! collective, computed from the known inputs of every rank
//! ([`Element::input`]). Every candidate, the library's own call included,
//! is compared with it. Each rank computes its own output, but for the
//! reductions whose one output folds every rank's inputs ([`sharing`]):
//! there each rank folds a share of the elements ([`share_bounds`],
//! [`reduce_into`]), and verification gathers the shares over pgcheck's
//! own control plane, never over the library under test.

use crate::collective::{Collective, Shape};
use crate::element::{Element, Op, Pattern};

/// The inputs of a case: the pattern and the operator the reductions apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inputs {
    pub pattern: Pattern,
    pub op: Op,
}

impl Inputs {
    /// The inputs of `collective` with `op` on `processes` ranks: the
    /// movement pattern for collectives that do not reduce.
    pub fn new(collective: Collective, op: Op, processes: usize) -> Inputs {
        let pattern = if collective.is_reduction() {
            Pattern::reduction(op, processes)
        } else {
            Pattern::Movement
        };
        Inputs { pattern, op }
    }

    /// Element `index` of `rank`'s send buffer.
    pub fn send<T: Element>(&self, rank: usize, index: usize) -> T {
        T::input(self.pattern, rank, index)
    }

    /// `op` over the elements `index` of ranks `ranks`.
    fn fold<T: Element>(&self, ranks: std::ops::Range<usize>, index: usize) -> T {
        let mut ranks = ranks;
        let first = ranks.next().expect("at least one rank");
        ranks.fold(self.send(first, index), |acc, r| {
            T::combine(self.op, acc, self.send(r, index))
        })
    }
}

/// How the ranks compute a reduction's output together, each its share
/// of the elements ([`share_bounds`]): alone, a rank would fold up to
/// p × count inputs; together, each folds about count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// allreduce: every rank needs the reduction over every rank.
    Everyone,
    /// reduce: the root needs it; MPI defines no output elsewhere.
    Root(usize),
    /// scan and exscan: each rank needs its own prefix; a rank folds its
    /// share of the elements for every rank's prefix at once
    /// ([`prefix_blocks`]), and the blocks go to their ranks (an
    /// all-to-all).
    Prefix,
}

/// Whether the ranks share the reference of `collective`: allreduce,
/// reduce, scan and exscan, whose outputs fold up to p ranks' inputs.
/// Every other collective's output costs a rank about its own output and
/// is computed alone.
pub fn is_shared(collective: Collective) -> bool {
    matches!(
        collective,
        Collective::Allreduce | Collective::Reduce | Collective::Scan | Collective::Exscan
    )
}

/// How the ranks share the reference of `shape.collective`; `None` where
/// each rank computes its own output alone ([`is_shared`]).
pub fn sharing(shape: &Shape) -> Option<Sharing> {
    is_shared(shape.collective).then_some(match shape.collective {
        Collective::Allreduce => Sharing::Everyone,
        Collective::Scan | Collective::Exscan => Sharing::Prefix,
        _ => Sharing::Root(shape.root),
    })
}

/// The `size` + 1 bounds of the ranks' shares of `count` elements: rank r
/// folds `bounds[r]..bounds[r + 1]`. Contiguous shares whose lengths differ
/// by at most one, the longer first.
pub fn share_bounds(count: usize, size: usize) -> Vec<usize> {
    let (base, extra) = (count / size, count % size);
    (0..=size).map(|r| r * base + r.min(extra)).collect()
}

/// Elements `first..first + out.len()` of the reduction over every one of
/// `size` ranks (allreduce's output, reduce's at the root), into `out`.
pub fn reduce_into<T: Element>(inputs: &Inputs, size: usize, first: usize, out: &mut [T]) {
    for (x, i) in out.iter_mut().zip(first..) {
        *x = inputs.fold(0..size, i);
    }
}

/// Elements `share` of every rank's scan (or exscan) output, each rank's
/// block after the one before: rank r's block is
/// `blocks[bounds[r]..bounds[r + 1]]` of the returned bounds, empty where
/// MPI defines no output (exscan's rank 0). One pass over the ranks: each
/// prefix extends the one before it by a rank.
pub fn prefix_blocks<T: Element>(
    inputs: &Inputs,
    collective: Collective,
    size: usize,
    share: std::ops::Range<usize>,
) -> (Vec<T>, Vec<usize>) {
    let exclusive = collective == Collective::Exscan;
    let len = share.len();
    let mut blocks = Vec::with_capacity(size * len);
    let mut bounds = vec![0];
    let mut prefix: Vec<T> = share.clone().map(|i| inputs.send(0, i)).collect();
    for r in 0..size {
        // Rank r's prefix, which holds ranks 0..=r's inputs for scan and
        // 0..r's for exscan, whose rank 0 has none.
        if r > 0 && !exclusive {
            fold_rank(inputs, &mut prefix, r, share.clone());
        }
        if !(exclusive && r == 0) {
            blocks.extend_from_slice(&prefix);
        }
        if r > 0 && exclusive {
            fold_rank(inputs, &mut prefix, r, share.clone());
        }
        bounds.push(blocks.len());
    }
    (blocks, bounds)
}

/// `prefix` (elements `share`) combined with rank `r`'s inputs.
fn fold_rank<T: Element>(
    inputs: &Inputs,
    prefix: &mut [T],
    r: usize,
    share: std::ops::Range<usize>,
) {
    for (x, i) in prefix.iter_mut().zip(share) {
        *x = T::combine(inputs.op, *x, inputs.send(r, i));
    }
}

/// This rank's send buffer.
pub fn send_buffer<T: Element>(shape: &Shape, inputs: &Inputs) -> Vec<T> {
    (0..shape.send_len())
        .map(|i| inputs.send(shape.rank, i))
        .collect()
}

/// Whether `recv` holds an input before the call, which is also its
/// output: bcast's root. Elsewhere nothing in it is defined before.
pub fn recv_is_input(shape: &Shape) -> bool {
    shape.collective == Collective::Bcast && shape.is_root()
}

/// The part of `recv` MPI defines on this rank after the call
/// ([`Shape::defined_output`]), element by element.
pub fn expected<T: Element>(shape: &Shape, inputs: &Inputs) -> Vec<T> {
    let (p, m, r) = (shape.size, shape.count, shape.rank);
    let defined = shape.defined_output();
    let element = |i: usize| -> T {
        match shape.collective {
            Collective::Allgather | Collective::Gather => inputs.send(i / m, i % m),
            Collective::Alltoall => inputs.send(i / m, r * m + i % m),
            Collective::Bcast => inputs.send(shape.root, i),
            Collective::Scatter => inputs.send(shape.root, r * m + i),
            Collective::Allreduce | Collective::Reduce => inputs.fold(0..p, i),
            Collective::ReduceScatterBlock => inputs.fold(0..p, r * m + i),
            Collective::ReduceScatter => {
                let offset: usize = shape.counts[..r].iter().sum();
                inputs.fold(0..p, offset + i)
            }
            Collective::Scan => inputs.fold(0..r + 1, i),
            Collective::Exscan => inputs.fold(0..r, i),
            Collective::Barrier => unreachable!("a barrier defines no output"),
            // A transfer's slot s holds its source's message.
            _ => inputs.send(shape.pattern().source(p, r, i / m), i % m),
        }
    };
    defined.map(element).collect()
}

/// The in-place form (`MPI_IN_PLACE`) on one process: its one buffer
/// ([`Shape::in_place_len`]) before the call, the part of it MPI defines
/// after the call, and what that part must hold.
#[derive(Clone, Debug, PartialEq)]
pub struct InPlace<'a, T> {
    /// The buffer the call runs on, with room for one element more: even
    /// an empty one has an address of its own (Open MPI's `MPI_IN_PLACE`
    /// is `(void*)1`, the address of an empty `Vec<u8>`).
    pub before: Vec<T>,
    pub defined: std::ops::Range<usize>,
    pub want: &'a [T],
}

/// What MPI defines for the in-place form of `shape.collective` on this
/// process, from its send buffer `own` ([`send_buffer`]) and its output of
/// the usual form `expected` ([`expected`]); `None` for bcast, which has
/// none.
/// - allreduce, scan, exscan, reduce at the root, alltoall: the buffer
///   holds this process's send buffer, and receives what `recv` would;
/// - reduce_scatter(_block): the buffer holds the whole input vector, and
///   its first elements receive this process's block;
/// - allgather, gather at the root: the buffer holds this process's block
///   at its offset (rank × count) and sentinels elsewhere, and receives
///   every block;
/// - scatter at the root: the buffer is the send buffer, which must stay
///   as it is, the root's own block included;
/// - reduce and gather off the root call the usual form with the buffer as
///   their send buffer, which must stay as it is; scatter off the root
///   receives its block in it, as usual.
pub fn in_place<'a, T: Element>(
    shape: &Shape,
    own: &'a [T],
    expected: &'a [T],
) -> Option<InPlace<'a, T>> {
    if !shape.collective.has_in_place() {
        return None;
    }
    let (m, r) = (shape.count, shape.rank);
    let len = shape.in_place_len();
    let mut before = Vec::with_capacity(len + 1);
    let input_only = match shape.collective {
        Collective::Reduce | Collective::Gather => !shape.is_root(),
        Collective::Scatter => shape.is_root(),
        _ => false,
    };
    if input_only {
        before.extend_from_slice(own);
        return Some(InPlace {
            before,
            defined: 0..len,
            want: own,
        });
    }
    match shape.collective {
        Collective::Allgather | Collective::Gather => {
            before.extend((0..len).map(|i| match i / m.max(1) == r {
                true => own[i - r * m],
                false => T::sentinel(expected[i]),
            }))
        }
        Collective::Scatter => before.extend(expected.iter().map(|&w| T::sentinel(w))),
        _ => before.extend_from_slice(own),
    }
    Some(InPlace {
        before,
        defined: shape.defined_output(),
        want: expected,
    })
}

/// Where a result differs from the reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    pub element: usize,
    pub expected: String,
    pub got: String,
    /// How many elements differ.
    pub wrong: usize,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "element {}: expected {}, got {}",
            self.element, self.expected, self.got
        )?;
        if self.wrong > 1 {
            write!(f, " ({} elements wrong)", self.wrong)?;
        }
        Ok(())
    }
}

/// The first element where `got` differs from `want`.
pub fn compare<T: Element>(got: &[T], want: &[T]) -> Option<Mismatch> {
    let first = got.iter().zip(want).position(|(g, w)| g != w)?;
    Some(Mismatch {
        element: first,
        expected: want[first].show(),
        got: got[first].show(),
        wrong: got.iter().zip(want).filter(|(g, w)| g != w).count(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::transfers;
    use crate::element::Datatype;

    fn shape(collective: Collective, size: usize, rank: usize, root: usize, count: usize) -> Shape {
        Shape::new(collective, size, rank, root, count)
    }

    /// The in-place form from this process's send buffer and usual output,
    /// owned: the buffer before the call, its defined part, what it must hold.
    struct OwnedInPlace<T> {
        before: Vec<T>,
        defined: std::ops::Range<usize>,
        want: Vec<T>,
    }

    fn owned_in_place<T: Element>(s: &Shape, inputs: &Inputs) -> Option<OwnedInPlace<T>> {
        let own = send_buffer::<T>(s, inputs);
        let usual = expected::<T>(s, inputs);
        let got = in_place(s, &own, &usual)?;
        Some(OwnedInPlace {
            before: got.before,
            defined: got.defined,
            want: got.want.to_vec(),
        })
    }

    /// Every rank's result of `collective`, simulated by moving and combining
    /// the send buffers directly: a second, plainly written reference.
    fn simulate<T: Element>(
        collective: Collective,
        p: usize,
        root: usize,
        m: usize,
        op: Op,
    ) -> Vec<Vec<T>> {
        let inputs = Inputs::new(collective, op, p);
        let sends: Vec<Vec<T>> = (0..p)
            .map(|r| send_buffer(&shape(collective, p, r, root, m), &inputs))
            .collect();
        let reduce = |ranks: &[usize], range: std::ops::Range<usize>| -> Vec<T> {
            range
                .map(|i| {
                    let mut acc = sends[ranks[0]][i];
                    for &r in &ranks[1..] {
                        acc = T::combine(op, acc, sends[r][i]);
                    }
                    acc
                })
                .collect()
        };
        let all: Vec<usize> = (0..p).collect();
        (0..p)
            .map(|r| {
                let s = shape(collective, p, r, root, m);
                match collective {
                    Collective::Allgather => sends.iter().flat_map(|b| b.clone()).collect(),
                    Collective::Gather if r == root => {
                        sends.iter().flat_map(|b| b.clone()).collect()
                    }
                    Collective::Reduce if r == root => reduce(&all, 0..m),
                    Collective::Gather | Collective::Reduce => Vec::new(),
                    Collective::Alltoall => sends
                        .iter()
                        .flat_map(|b| b[r * m..(r + 1) * m].to_vec())
                        .collect(),
                    Collective::Bcast => (0..m).map(|i| inputs.send(root, i)).collect(),
                    Collective::Scatter => sends[root][r * m..(r + 1) * m].to_vec(),
                    Collective::Allreduce => reduce(&all, 0..m),
                    Collective::ReduceScatterBlock => reduce(&all, r * m..(r + 1) * m),
                    Collective::ReduceScatter => {
                        let offset: usize = s.counts[..r].iter().sum();
                        reduce(&all, offset..offset + s.counts[r])
                    }
                    Collective::Scan => reduce(&all[..=r], 0..m),
                    Collective::Exscan if r == 0 => Vec::new(),
                    Collective::Exscan => reduce(&all[..r], 0..m),
                    Collective::Barrier => Vec::new(),
                    // Ping-pong: the first and the last rank swap data.
                    Collective::Send | Collective::Put | Collective::Get => match r {
                        0 => sends[p - 1].clone(),
                        r if r == p - 1 => sends[0].clone(),
                        _ => Vec::new(),
                    },
                    // Halo: the left neighbour's data, then the right one's.
                    Collective::SendHalo | Collective::PutHalo | Collective::GetHalo => {
                        [sends[(r + p - 1) % p].clone(), sends[(r + 1) % p].clone()].concat()
                    }
                }
            })
            .collect()
    }

    #[test]
    fn the_reference_equals_a_direct_simulation() {
        for collective in Collective::ALL {
            for p in [1, 2, 3, 5, 8] {
                for m in [0, 1, 4, 7] {
                    for op in [Op::Sum, Op::Bor, Op::Min] {
                        if collective.is_transfer() && p < 2 {
                            continue;
                        }
                        let root = p / 2;
                        let want = simulate::<i32>(collective, p, root, m, op);
                        for (r, want) in want.iter().enumerate() {
                            let s = shape(collective, p, r, root, m);
                            let inputs = Inputs::new(collective, op, p);
                            assert_eq!(
                                &expected::<i32>(&s, &inputs),
                                want,
                                "{collective} p={p} m={m} {op:?} rank {r}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shares_cover_the_elements_once_and_differ_by_at_most_one() {
        for p in 1..=9usize {
            for count in [0, 1, 2, p.saturating_sub(1), p, p + 1, 7, 100, 1001] {
                let bounds = share_bounds(count, p);
                assert_eq!(bounds.len(), p + 1);
                assert_eq!((bounds[0], bounds[p]), (0, count), "p={p} count={count}");
                let lengths: Vec<usize> = bounds.windows(2).map(|w| w[1] - w[0]).collect();
                let (least, most) = (lengths.iter().min(), lengths.iter().max());
                assert!(most.unwrap() - least.unwrap() <= 1, "{lengths:?}");
                assert!(lengths.windows(2).all(|l| l[0] >= l[1]), "{lengths:?}");
            }
        }
    }

    /// The shared reference as the ranks assemble it: each folds its share
    /// alone, and the shares are put side by side on the ranks that need
    /// them. Equal, on every rank, to the output it computes alone.
    #[test]
    fn the_shared_reference_equals_each_ranks_own() {
        for collective in [Collective::Allreduce, Collective::Reduce] {
            for p in 1..=9usize {
                for count in [0, 1, 2, p.saturating_sub(1), p, p + 1, 7, 100, 1001] {
                    for op in [Op::Sum, Op::Prod, Op::Bor, Op::Band, Op::Bxor, Op::Min] {
                        let inputs = Inputs::new(collective, op, p);
                        let bounds = share_bounds(count, p);
                        let mut shares = vec![0i64; count];
                        for r in 0..p {
                            let (first, end) = (bounds[r], bounds[r + 1]);
                            reduce_into(&inputs, p, first, &mut shares[first..end]);
                        }
                        for root in [0, p / 2, p - 1] {
                            for r in 0..p {
                                let s = shape(collective, p, r, root, count);
                                let at = format!(
                                    "{collective} p={p} count={count} {op:?} root {root} rank {r}"
                                );
                                let assembled = match sharing(&s) {
                                    Some(Sharing::Everyone) => shares.clone(),
                                    Some(Sharing::Root(root)) if root == r => shares.clone(),
                                    Some(Sharing::Root(_)) => Vec::new(),
                                    other => panic!("{at}: shared as {other:?}"),
                                };
                                assert_eq!(assembled, expected::<i64>(&s, &inputs), "{at}");
                            }
                        }
                    }
                }
            }
        }
        // Every other collective is computed alone.
        for collective in Collective::ALL {
            let shared = sharing(&shape(collective, 4, 0, 0, 8)).is_some();
            let folds_many = matches!(
                collective,
                Collective::Allreduce | Collective::Reduce | Collective::Scan | Collective::Exscan
            );
            assert_eq!(shared, folds_many, "{collective}");
        }
    }

    /// Scan's and exscan's blocks, folded by each rank for its share and
    /// sent to their ranks, put together on every rank the output it
    /// computes alone.
    #[test]
    fn the_shared_prefixes_equal_each_ranks_own() {
        for collective in [Collective::Scan, Collective::Exscan] {
            for p in 1..=9usize {
                for count in [0, 1, 2, p.saturating_sub(1), p, p + 1, 7, 100] {
                    for op in [Op::Sum, Op::Prod, Op::Bor, Op::Band, Op::Bxor, Op::Min] {
                        let inputs = Inputs::new(collective, op, p);
                        let bounds = share_bounds(count, p);
                        let sent: Vec<(Vec<i64>, Vec<usize>)> = (0..p)
                            .map(|q| {
                                prefix_blocks(&inputs, collective, p, bounds[q]..bounds[q + 1])
                            })
                            .collect();
                        for r in 0..p {
                            let s = shape(collective, p, r, 0, count);
                            assert_eq!(sharing(&s), Some(Sharing::Prefix));
                            let assembled: Vec<i64> = sent
                                .iter()
                                .flat_map(|(blocks, b)| blocks[b[r]..b[r + 1]].iter().copied())
                                .collect();
                            let at = format!("{collective} p={p} count={count} {op:?} rank {r}");
                            assert_eq!(assembled, expected::<i64>(&s, &inputs), "{at}");
                        }
                    }
                }
            }
        }
    }

    /// Each process's output of the in-place form, computed from the
    /// `before` buffers of all processes as MPI says the in-place form
    /// reads them (a block at its rank's offset, the whole vector of
    /// reduce_scatter, the root's send buffer of scatter, …); `None` where
    /// the buffer is the send buffer of the usual form.
    fn simulate_in_place<T: Element>(
        collective: Collective,
        p: usize,
        root: usize,
        m: usize,
        op: Op,
    ) -> Vec<Option<Vec<T>>> {
        let inputs = Inputs::new(collective, op, p);
        let shapes: Vec<Shape> = (0..p).map(|r| shape(collective, p, r, root, m)).collect();
        let before: Vec<Vec<T>> = shapes
            .iter()
            .map(|s| owned_in_place::<T>(s, &inputs).unwrap().before)
            .collect();
        let fold = |ranks: std::ops::Range<usize>, i: usize| -> T {
            let mut ranks = ranks;
            let first = before[ranks.next().unwrap()][i];
            ranks.fold(first, |acc, r| T::combine(op, acc, before[r][i]))
        };
        let block = |from: usize, b: usize| before[from][b * m..(b + 1) * m].to_vec();
        (0..p)
            .map(|r| {
                let off_root = r != root;
                Some(match collective {
                    Collective::Reduce | Collective::Gather if off_root => return None,
                    Collective::Scatter if !off_root => return None,
                    Collective::Allreduce | Collective::Reduce => {
                        (0..m).map(|i| fold(0..p, i)).collect()
                    }
                    Collective::Scan => (0..m).map(|i| fold(0..r + 1, i)).collect(),
                    Collective::Exscan if r == 0 => Vec::new(),
                    Collective::Exscan => (0..m).map(|i| fold(0..r, i)).collect(),
                    Collective::Allgather => (0..p).flat_map(|j| block(j, j)).collect(),
                    // Off the root, the buffer is the usual send buffer.
                    Collective::Gather => (0..p)
                        .flat_map(|j| block(j, if j == root { j } else { 0 }))
                        .collect(),
                    Collective::Alltoall => (0..p).flat_map(|j| block(j, r)).collect(),
                    Collective::Scatter => block(root, r),
                    Collective::ReduceScatterBlock => {
                        (r * m..(r + 1) * m).map(|i| fold(0..p, i)).collect()
                    }
                    Collective::ReduceScatter => {
                        let offset: usize = shapes[r].counts[..r].iter().sum();
                        (offset..offset + shapes[r].counts[r])
                            .map(|i| fold(0..p, i))
                            .collect()
                    }
                    Collective::Bcast | Collective::Barrier | transfers!() => {
                        unreachable!("{collective} has no in-place form")
                    }
                })
            })
            .collect()
    }

    #[test]
    fn the_in_place_reference_equals_a_direct_simulation() {
        for collective in Collective::ALL.into_iter().filter(|c| c.has_in_place()) {
            for p in [1, 2, 3, 5] {
                for m in [0, 1, 4, 7] {
                    for root in [0, p / 2, p - 1] {
                        let op = Op::Bxor;
                        let outputs = simulate_in_place::<i32>(collective, p, root, m, op);
                        let inputs = Inputs::new(collective, op, p);
                        for (r, output) in outputs.into_iter().enumerate() {
                            let s = shape(collective, p, r, root, m);
                            let got = owned_in_place::<i32>(&s, &inputs).unwrap();
                            let at = format!("{collective} p={p} m={m} root {root} rank {r}");
                            assert_eq!(got.before.len(), s.in_place_len(), "{at}");
                            assert_eq!(got.want.len(), got.defined.len(), "{at}");
                            match output {
                                // The buffer is an input that must stay as it is.
                                None => {
                                    assert_eq!(got.want, got.before, "{at}");
                                    assert_eq!(got.defined, 0..s.in_place_len(), "{at}");
                                }
                                Some(output) => {
                                    assert_eq!(got.want, output, "{at}");
                                    assert_eq!(got.want, expected::<i32>(&s, &inputs), "{at}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(owned_in_place::<u8>(
            &shape(Collective::Bcast, 2, 0, 0, 4),
            &Inputs::new(Collective::Bcast, Op::Bor, 2)
        )
        .is_none());
    }

    #[test]
    fn an_in_place_call_that_writes_nothing_is_wrong() {
        // Where MPI writes the buffer, what it holds before differs from
        // what it must hold after (on two or more processes).
        for collective in Collective::ALL.into_iter().filter(|c| c.has_in_place()) {
            for r in 0..3 {
                let s = shape(collective, 3, r, 1, 4);
                let inputs = Inputs::new(collective, Op::Bxor, 3);
                let got = owned_in_place::<i32>(&s, &inputs).unwrap();
                let unwritten = &got.before[got.defined.clone()];
                let input_only = got.want == got.before;
                let exscan_zero = collective == Collective::Exscan && r == 0;
                if !input_only && !exscan_zero {
                    assert!(
                        compare(unwritten, &got.want).is_some(),
                        "{collective} rank {r}"
                    );
                }
            }
        }
    }

    #[test]
    fn movement_data_do_not_depend_on_the_operator_and_tell_blocks_apart() {
        for collective in [Collective::Allgather, Collective::Gather, Collective::Bcast] {
            let a = Inputs::new(collective, Op::Sum, 16);
            let b = Inputs::new(collective, Op::Bor, 16);
            for r in 0..16 {
                assert_eq!(a.send::<u8>(r, 3), b.send::<u8>(r, 3));
            }
        }
        // One-element blocks of every rank differ, in every datatype.
        let inputs = Inputs::new(Collective::Allgather, Op::Sum, 200);
        macro_rules! distinct {
            ($t:ty) => {{
                let v: Vec<$t> = (0..200).map(|r| inputs.send::<$t>(r, 0)).collect();
                for i in 0..v.len() {
                    for j in 0..i {
                        assert_ne!(v[i], v[j], "{} ranks {i} and {j}", stringify!($t));
                    }
                }
            }};
        }
        distinct!(u8);
        distinct!(i32);
        distinct!(i64);
        distinct!(f32);
        distinct!(f64);
    }

    #[test]
    fn bitwise_reductions_do_not_saturate() {
        // The or of 16 uniform bytes is almost always 0xFF; the reduction
        // pattern keeps about half the bits of the result set.
        for p in [2, 4, 16, 64] {
            for (op, all) in [(Op::Bor, 0xFFu8), (Op::Band, 0x00)] {
                let s = shape(Collective::Allreduce, p, 0, 0, 4096);
                let want = expected::<u8>(&s, &Inputs::new(Collective::Allreduce, op, p));
                let saturated = want.iter().filter(|&&x| x == all).count();
                let ones: u32 = want.iter().map(|x| x.count_ones()).sum();
                let share = ones as f64 / (8.0 * want.len() as f64);
                assert!(
                    saturated < 200,
                    "{op:?} on {p}: {saturated} of 4096 saturated"
                );
                assert!(
                    (0.35..0.65).contains(&share),
                    "{op:?} on {p}: {share} of bits set"
                );
            }
        }
    }

    #[test]
    fn a_sentinel_differs_from_every_value() {
        for d in Datatype::ALL {
            crate::with_element!(d, T => {
                for op in Op::ALL.into_iter().filter(|o| o.applies_to(d)) {
                    let s = shape(Collective::Allreduce, 7, 3, 0, 64);
                    for x in expected::<T>(&s, &Inputs::new(Collective::Allreduce, op, 7)) {
                        assert_ne!(T::sentinel(x), x);
                    }
                }
            })
        }
    }

    #[test]
    fn reductions_stay_exact_in_any_order() {
        // Reversed order of combination gives the same bits.
        for d in Datatype::ALL {
            crate::with_element!(d, T => {
                for op in Op::ALL.into_iter().filter(|o| o.applies_to(d)) {
                    let inputs = Inputs::new(Collective::Allreduce, op, 33);
                    for i in 0..256 {
                        let forward: T = inputs.fold(0..33, i);
                        let mut backward: T = inputs.send(32, i);
                        for r in (0..32).rev() {
                            backward = T::combine(op, inputs.send(r, i), backward);
                        }
                        assert_eq!(forward, backward, "{d:?} {op:?} element {i}");
                    }
                }
            })
        }
    }

    #[test]
    fn a_mismatch_names_the_first_wrong_element() {
        let m = compare(&[1i32, 2, 9, 9], &[1, 2, 3, 4]).unwrap();
        assert_eq!(m.element, 2);
        assert_eq!(m.wrong, 2);
        assert_eq!(
            m.to_string(),
            "element 2: expected 3 (0x3), got 9 (0x9) (2 elements wrong)"
        );
        assert!(compare(&[1u8], &[1]).is_none());
    }
}
