//! User-defined operators (`MPI_Op_create`) that compute what MPI's
//! built-in ones do: Träff, Gropp & Thakur's rule (17), a reduction with
//! a built-in operator is not slower than the same reduction with a
//! user-defined operator computing the same (the paper cites a vendor's
//! library whose user-defined sum beat its `MPI_SUM`).
//!
//! Each operator is a plain C-callable function, one per built-in and
//! element type, with the loop a C programmer would write
//! (`inoutvec[i] = invec[i] ⊕ inoutvec[i]`), registered as commutative,
//! as the built-ins are. rsmpi's closure-based `UserOperation` would need
//! libffi and an indirect call per vector; [`UnsafeUserOperation`] takes
//! the function itself. The operator is created once, outside the timed
//! calls, and freed (`MPI_Op_free`) when the [`UserOp`] is dropped.

use mpi::collective::{Operation, SystemOperation, UnsafeUserFunction, UnsafeUserOperation};
use mpi::datatype::Equivalence;
use mpi::ffi::MPI_Op;
use mpi::raw::AsRaw;
use std::marker::PhantomData;

/// A built-in operator a [`UserOp`] stands in for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Sum,
    Prod,
    Min,
    Max,
    Band,
    Bor,
    Bxor,
}

impl Builtin {
    pub const ALL: [Builtin; 7] = [
        Builtin::Sum,
        Builtin::Prod,
        Builtin::Min,
        Builtin::Max,
        Builtin::Band,
        Builtin::Bor,
        Builtin::Bxor,
    ];

    /// The built-in operator itself (`MPI_SUM`, …).
    pub fn system(self) -> SystemOperation {
        match self {
            Builtin::Sum => SystemOperation::sum(),
            Builtin::Prod => SystemOperation::product(),
            Builtin::Min => SystemOperation::min(),
            Builtin::Max => SystemOperation::max(),
            Builtin::Band => SystemOperation::bitwise_and(),
            Builtin::Bor => SystemOperation::bitwise_or(),
            Builtin::Bxor => SystemOperation::bitwise_xor(),
        }
    }

    /// Which of these `op` is, by its handle; `None` for another operator.
    pub fn of(op: &SystemOperation) -> Option<Builtin> {
        Builtin::ALL
            .into_iter()
            .find(|b| b.system().as_raw() == op.as_raw())
    }
}

/// Element types a [`UserOp`] computes on, as MPI's built-ins do.
pub trait Arithmetic: Equivalence + Copy {
    /// The user function computing `builtin` on this type; `None` where
    /// MPI defines no such built-in (bitwise operators on floating point).
    fn user_function(builtin: Builtin) -> Option<UnsafeUserFunction>;
}

/// A C user function `inoutvec[i] = f(invec[i], inoutvec[i])` on `$t`.
/// Called on another datatype (an operator made for one type handed to a
/// reduction of another), it aborts the process rather than read past the
/// buffers: it cannot unwind into MPI.
macro_rules! elementwise {
    ($t:ty, |$a:ident, $b:ident| $f:expr) => {{
        /// # Safety
        /// MPI calls it with `len` elements of `*datatype` at `invec` and at
        /// `inoutvec`, which do not overlap.
        unsafe extern "C" fn apply(
            invec: *mut std::ffi::c_void,
            inoutvec: *mut std::ffi::c_void,
            len: *mut std::ffi::c_int,
            datatype: *mut mpi::ffi::MPI_Datatype,
        ) {
            let len = usize::try_from(*len).unwrap_or(0);
            if len == 0 {
                return;
            }
            if *datatype != <$t as Equivalence>::equivalent_datatype().as_raw() {
                std::process::abort();
            }
            let input = std::slice::from_raw_parts(invec as *const $t, len);
            let inout = std::slice::from_raw_parts_mut(inoutvec as *mut $t, len);
            for (out, &$a) in inout.iter_mut().zip(input) {
                let $b = *out;
                *out = $f;
            }
        }
        apply as UnsafeUserFunction
    }};
}

/// Integers: sums and products wrap, as the C operators MPI's
/// implementations apply do in practice.
macro_rules! integer {
    ($t:ty) => {
        impl Arithmetic for $t {
            fn user_function(builtin: Builtin) -> Option<UnsafeUserFunction> {
                Some(match builtin {
                    Builtin::Sum => elementwise!($t, |a, b| a.wrapping_add(b)),
                    Builtin::Prod => elementwise!($t, |a, b| a.wrapping_mul(b)),
                    Builtin::Min => elementwise!($t, |a, b| if a < b { a } else { b }),
                    Builtin::Max => elementwise!($t, |a, b| if a > b { a } else { b }),
                    Builtin::Band => elementwise!($t, |a, b| a & b),
                    Builtin::Bor => elementwise!($t, |a, b| a | b),
                    Builtin::Bxor => elementwise!($t, |a, b| a ^ b),
                })
            }
        }
    };
}

/// Floating point: MPI defines no bitwise operators on it.
macro_rules! float {
    ($t:ty) => {
        impl Arithmetic for $t {
            fn user_function(builtin: Builtin) -> Option<UnsafeUserFunction> {
                match builtin {
                    Builtin::Sum => Some(elementwise!($t, |a, b| a + b)),
                    Builtin::Prod => Some(elementwise!($t, |a, b| a * b)),
                    Builtin::Min => Some(elementwise!($t, |a, b| if a < b { a } else { b })),
                    Builtin::Max => Some(elementwise!($t, |a, b| if a > b { a } else { b })),
                    Builtin::Band | Builtin::Bor | Builtin::Bxor => None,
                }
            }
        }
    };
}

integer!(u8);
integer!(i32);
integer!(i64);
float!(f32);
float!(f64);

/// A commutative user-defined operator computing a built-in one on `T`;
/// `MPI_Op_free`d when dropped. `&UserOp<T>` is an [`Operation`], for
/// reductions of `T` (on another datatype its function aborts).
#[derive(Debug)]
pub struct UserOp<T> {
    op: UnsafeUserOperation,
    builtin: Builtin,
    element: PhantomData<T>,
}

impl<T: Arithmetic> UserOp<T> {
    /// `MPI_Op_create` of the user function computing `builtin` on `T`;
    /// `None` where MPI defines no such built-in. Local, not collective.
    pub fn new(builtin: Builtin) -> Option<UserOp<T>> {
        let function = T::user_function(builtin)?;
        // SAFETY: the function reads and writes `len` elements of the
        // call's datatype, after checking that it is T's.
        let op = unsafe { UnsafeUserOperation::commutative(function) };
        Some(UserOp {
            op,
            builtin,
            element: PhantomData,
        })
    }

    /// The built-in operator it computes.
    pub fn builtin(&self) -> Builtin {
        self.builtin
    }
}

// SAFETY: the handle of a live operator, freed only when `self` is dropped.
unsafe impl<T> AsRaw for UserOp<T> {
    type Raw = MPI_Op;
    fn as_raw(&self) -> MPI_Op {
        self.op.as_raw()
    }
}

impl<T> Operation for &UserOp<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Calls a user function as MPI would: `inout[i] = f(input[i], inout[i])`.
    fn apply<T: Arithmetic>(builtin: Builtin, input: &[T], inout: &mut [T]) {
        let f = T::user_function(builtin).expect("defined");
        let mut len = input.len() as std::ffi::c_int;
        let mut datatype = T::equivalent_datatype().as_raw();
        // SAFETY: both slices hold `len` elements of T, the datatype's.
        unsafe {
            f(
                input.as_ptr() as *mut _,
                inout.as_mut_ptr() as *mut _,
                &mut len,
                &mut datatype,
            )
        };
    }

    #[test]
    fn integers_wrap_and_compare_as_the_built_ins() {
        let mut inout = [250u8, 3, 7, 0x0F];
        apply(Builtin::Sum, &[10u8, 4, 1, 0], &mut inout);
        assert_eq!(inout, [4, 7, 8, 0x0F]);
        let cases: [(Builtin, [i32; 3]); 7] = [
            (Builtin::Sum, [i32::MIN + 1, 7, 19]),
            (Builtin::Prod, [-2, 12, 84]),
            (Builtin::Min, [2, 3, 7]),
            (Builtin::Max, [i32::MAX, 4, 12]),
            (Builtin::Band, [2, 0, 0b0100]),
            (Builtin::Bor, [i32::MAX, 7, 0b1111]),
            (Builtin::Bxor, [i32::MAX - 2, 7, 0b1011]),
        ];
        for (builtin, expected) in cases {
            let mut inout = [2, 4, 0b1100];
            apply(builtin, &[i32::MAX, 3, 0b0111], &mut inout);
            assert_eq!(inout, expected, "{builtin:?}");
        }
        let mut inout = [i64::MAX, -5];
        apply(Builtin::Sum, &[1i64, 5], &mut inout);
        assert_eq!(inout, [i64::MIN, 0]);
    }

    #[test]
    fn floats_compute_sums_products_and_extremes_and_nothing_bitwise() {
        let mut inout = [1.5f64, -2.0, 3.0];
        apply(Builtin::Prod, &[2.0f64, 4.0, -0.5], &mut inout);
        assert_eq!(inout, [3.0, -8.0, -1.5]);
        let mut inout = [1.0f32, 8.0];
        apply(Builtin::Min, &[2.0f32, -3.0], &mut inout);
        assert_eq!(inout, [1.0, -3.0]);
        apply(Builtin::Max, &[2.0f32, -3.0], &mut inout);
        assert_eq!(inout, [2.0, -3.0]);
        apply(Builtin::Sum, &[0.25f32, 0.5], &mut inout);
        assert_eq!(inout, [2.25, -2.5]);
        for bitwise in [Builtin::Band, Builtin::Bor, Builtin::Bxor] {
            assert!(f32::user_function(bitwise).is_none());
            assert!(f64::user_function(bitwise).is_none());
        }
    }

    #[test]
    fn every_built_in_is_known_by_its_handle() {
        for builtin in Builtin::ALL {
            assert_eq!(Builtin::of(&builtin.system()), Some(builtin));
        }
        assert_eq!(Builtin::of(&SystemOperation::logical_and()), None);
    }

    #[test]
    fn an_empty_vector_is_left_alone() {
        let mut inout: [u8; 0] = [];
        apply(Builtin::Bxor, &[], &mut inout);
    }
}
