//! The independent reference of verification: the result MPI defines for a
//! collective, computed on each rank from the known inputs of every rank
//! ([`Element::input`]) without communicating. Every candidate, the
//! library's own call included, is compared with it.

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

/// This rank's send buffer.
pub fn send_buffer<T: Element>(shape: &Shape, inputs: &Inputs) -> Vec<T> {
    (0..shape.send_len())
        .map(|i| inputs.send(shape.rank, i))
        .collect()
}

/// What `recv` holds before the call: bcast's input at its root, nothing
/// defined elsewhere.
pub fn recv_input<T: Element>(shape: &Shape, inputs: &Inputs) -> Option<Vec<T>> {
    (shape.collective == Collective::Bcast && shape.is_root()).then(|| {
        (0..shape.recv_len())
            .map(|i| inputs.send(shape.root, i))
            .collect()
    })
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
        }
    };
    defined.map(element).collect()
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
    use crate::element::Datatype;

    fn shape(collective: Collective, size: usize, rank: usize, root: usize, count: usize) -> Shape {
        Shape::new(collective, size, rank, root, count)
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
