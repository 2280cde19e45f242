//! Datatypes and reduction operators, and the rank-dependent data that
//! verification feeds to candidates (see [`Pattern`]).

use mpi::collective::SystemOperation;
use mpi::datatype::Equivalence;
use serde::{Deserialize, Serialize};
use std::fmt::Debug;

/// An element type of the buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Datatype {
    /// One byte. rsmpi exposes no `MPI_BYTE`, so this is `MPI_UINT8_T`.
    Byte,
    Int32,
    Int64,
    Float32,
    Float64,
}

impl Datatype {
    pub const ALL: [Datatype; 5] = [
        Datatype::Byte,
        Datatype::Int32,
        Datatype::Int64,
        Datatype::Float32,
        Datatype::Float64,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Datatype::Byte => "byte",
            Datatype::Int32 => "int32",
            Datatype::Int64 => "int64",
            Datatype::Float32 => "float32",
            Datatype::Float64 => "float64",
        }
    }

    pub fn from_name(name: &str) -> Option<Datatype> {
        Datatype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Size of one element in bytes.
    pub fn size(self) -> usize {
        match self {
            Datatype::Byte => 1,
            Datatype::Int32 | Datatype::Float32 => 4,
            Datatype::Int64 | Datatype::Float64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Datatype::Float32 | Datatype::Float64)
    }
}

/// A predefined MPI reduction operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Sum,
    Prod,
    Min,
    Max,
    Band,
    Bor,
    Bxor,
}

impl Op {
    pub const ALL: [Op; 7] = [
        Op::Sum,
        Op::Prod,
        Op::Min,
        Op::Max,
        Op::Band,
        Op::Bor,
        Op::Bxor,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Prod => "prod",
            Op::Min => "min",
            Op::Max => "max",
            Op::Band => "band",
            Op::Bor => "bor",
            Op::Bxor => "bxor",
        }
    }

    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.name() == name)
    }

    pub fn is_bitwise(self) -> bool {
        matches!(self, Op::Band | Op::Bor | Op::Bxor)
    }

    /// Whether MPI defines the operator for the datatype: bitwise operators
    /// are for integers only.
    pub fn applies_to(self, datatype: Datatype) -> bool {
        !(self.is_bitwise() && datatype.is_float())
    }

    /// The operator of a second verification of reductions with `self` on
    /// `datatype`, if one is needed. Idempotent operators (min, max, band,
    /// bor) cannot show a rank counted twice, and products of ±1 and 2 or sums
    /// of 0/1 bytes carry little of each rank; bxor (integers) and sums of
    /// small whole numbers (floating point) show both.
    pub fn second_check(self, datatype: Datatype) -> Option<Op> {
        let strong = match self {
            Op::Bxor => true,
            Op::Sum => datatype != Datatype::Byte,
            _ => false,
        };
        (!strong).then_some(if datatype.is_float() {
            Op::Sum
        } else {
            Op::Bxor
        })
    }

    pub fn mpi(self) -> SystemOperation {
        match self {
            Op::Sum => SystemOperation::sum(),
            Op::Prod => SystemOperation::product(),
            Op::Min => SystemOperation::min(),
            Op::Max => SystemOperation::max(),
            Op::Band => SystemOperation::bitwise_and(),
            Op::Bor => SystemOperation::bitwise_or(),
            Op::Bxor => SystemOperation::bitwise_xor(),
        }
    }
}

/// What the inputs of a case are made for: which values each rank's
/// elements hold depends on what the collective does with them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Data movement (gather, bcast, …): every element tells its rank and
    /// index apart, whatever the operator, so a block in the wrong place or
    /// from the wrong rank cannot match.
    Movement,
    /// A reduction with `op` over `processes` ranks: values that keep every
    /// order of evaluation exact and never saturate (a bitwise or over the
    /// ranks sets about half the bits, an and clears about half).
    Reduction {
        op: Op,
        /// Bitwise or/and: a bit is set where its hash byte is below this
        /// ([`sparse_threshold`] of `processes`), computed once per pattern,
        /// not once per element and rank.
        bit_threshold: u64,
    },
}

impl Pattern {
    /// The pattern of a reduction with `op` over `processes` ranks.
    pub fn reduction(op: Op, processes: usize) -> Pattern {
        Pattern::Reduction {
            op,
            bit_threshold: sparse_threshold(processes),
        }
    }
}

/// An element type candidates run on; user-defined operators compute on
/// it as the built-ins do (`mockups::user_op`).
pub trait Element:
    Equivalence + Copy + Default + PartialEq + Debug + mockups::user_op::Arithmetic + 'static
{
    /// Input element `index` of process `rank`.
    fn input(pattern: Pattern, rank: usize, index: usize) -> Self;
    /// `op` applied to two elements, as MPI's predefined operators do.
    fn combine(op: Op, a: Self, b: Self) -> Self;
    /// A value that differs from `expected`: receive buffers start with it,
    /// so that a candidate that never writes its output fails.
    fn sentinel(expected: Self) -> Self;
    /// The value for messages: decimal and, for integers, its bits.
    fn show(self) -> String;
}

/// A well-mixed 64-bit value of (rank, index) (SplitMix64's finaliser).
pub fn mix(rank: usize, index: usize) -> u64 {
    let mut x = (rank as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (index as u64);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Small signed values that keep sums and products exact.
fn small(rank: usize, index: usize, op: Op) -> i64 {
    let h = mix(rank, index);
    match op {
        Op::Prod => {
            let magnitude = if h.is_multiple_of(7) { 2 } else { 1 };
            if (h >> 8).is_multiple_of(5) {
                -magnitude
            } else {
                magnitude
            }
        }
        _ => (h % 201) as i64 - 100,
    }
}

/// Of 256, the hash bytes below which a bit is set so that it is set with
/// probability `1 − 0.5^(1/processes)`: the or over `processes` ranks of
/// such bits has about half of them set, where uniform bits would give all
/// ones on a few ranks already.
fn sparse_threshold(processes: usize) -> u64 {
    let q = 1.0 - 0.5f64.powf(1.0 / processes.max(1) as f64);
    ((q * 256.0).round() as u64).clamp(1, 255)
}

/// `bytes` bytes of bits, each set where its hash byte is below `threshold`
/// ([`sparse_threshold`], at most 128).
fn sparse_bits(rank: usize, index: usize, threshold: u64, bytes: usize) -> u64 {
    let mut bits = 0u64;
    for byte in 0..bytes {
        let h = mix(rank, index.wrapping_mul(8).wrapping_add(byte) ^ 0xB175);
        bits |= bytes_below(h, threshold) << (8 * byte);
    }
    bits
}

/// Bit i set where byte i of `h` is below `threshold` (at most 128), all
/// eight bytes at once: a byte is below when its top bit is clear and
/// subtracting the threshold from it with the top bit set clears that bit.
fn bytes_below(h: u64, threshold: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    debug_assert!(threshold <= 128);
    let lowered = (h | HIGH).wrapping_sub(threshold * ONES);
    let below = !h & !lowered & HIGH;
    // Gathers the top bits of the eight bytes into the lowest byte.
    (below >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The raw bits of an integer input.
fn integer_bits(pattern: Pattern, rank: usize, index: usize, bytes: usize) -> u64 {
    match pattern {
        // Bytes: the rank added to a hash of the index, so that one-byte
        // blocks of up to 256 ranks are all different.
        Pattern::Movement if bytes == 1 => (rank as u64).wrapping_add(mix(0, index)),
        Pattern::Movement => mix(rank, index),
        Pattern::Reduction {
            op, bit_threshold, ..
        } => match op {
            Op::Bor => sparse_bits(rank, index, bit_threshold, bytes),
            Op::Band => !sparse_bits(rank, index, bit_threshold, bytes),
            Op::Min | Op::Max | Op::Bxor => mix(rank, index),
            // Sums of bytes that cannot overflow on up to 255 processes:
            // Open MPI 4.1's AVX byte sum saturates instead of wrapping
            // (open-mpi/ompi#8045).
            Op::Sum if bytes == 1 => mix(rank, index) % 2,
            Op::Prod if bytes == 1 => 1 + u64::from(mix(rank, index).is_multiple_of(61)),
            Op::Sum | Op::Prod => small(rank, index, op) as u64,
        },
    }
}

macro_rules! integer_element {
    ($t:ty) => {
        impl Element for $t {
            fn input(pattern: Pattern, rank: usize, index: usize) -> Self {
                integer_bits(pattern, rank, index, std::mem::size_of::<$t>()) as $t
            }

            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a.wrapping_add(b),
                    Op::Prod => a.wrapping_mul(b),
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                    Op::Band => a & b,
                    Op::Bor => a | b,
                    Op::Bxor => a ^ b,
                }
            }

            fn sentinel(expected: Self) -> Self {
                !expected
            }

            fn show(self) -> String {
                format!("{self} ({:#x})", self)
            }
        }
    };
}

integer_element!(u8);
integer_element!(i32);
integer_element!(i64);

macro_rules! float_element {
    ($t:ty, $bits:expr) => {
        impl Element for $t {
            /// Whole numbers of at most `$bits` bits, exact in the type.
            fn input(pattern: Pattern, rank: usize, index: usize) -> Self {
                let whole = |h: u64| ((h >> (64 - $bits)) as i64 - (1 << ($bits - 1))) as $t;
                match pattern {
                    // The rank in the high bits, a hash of the index below.
                    Pattern::Movement => {
                        let low = mix(0, index) & ((1 << ($bits - 9)) - 1);
                        ((((rank as u64) & 0xFF) << ($bits - 9)) | low) as $t
                    }
                    Pattern::Reduction { op, .. } => match op {
                        Op::Min | Op::Max => whole(mix(rank, index)),
                        _ => small(rank, index, op) as $t,
                    },
                }
            }

            fn combine(op: Op, a: Self, b: Self) -> Self {
                match op {
                    Op::Sum => a + b,
                    Op::Prod => a * b,
                    Op::Min => a.min(b),
                    Op::Max => a.max(b),
                    // MPI defines no bitwise operator on floating point.
                    Op::Band | Op::Bor | Op::Bxor => {
                        unreachable!("bitwise op on {}", stringify!($t))
                    }
                }
            }

            fn sentinel(expected: Self) -> Self {
                // Exact for the whole numbers inputs and results are.
                if expected.abs() < (1u64 << ($bits - 2)) as $t {
                    -expected - 1.0
                } else {
                    -expected
                }
            }

            fn show(self) -> String {
                format!("{self:?}")
            }
        }
    };
}

float_element!(f32, 22);
float_element!(f64, 50);

/// Calls `$body` with `$t` bound to the Rust type of `$datatype`.
#[macro_export]
macro_rules! with_element {
    ($datatype:expr, $t:ident => $body:expr) => {
        match $datatype {
            $crate::element::Datatype::Byte => {
                type $t = u8;
                $body
            }
            $crate::element::Datatype::Int32 => {
                type $t = i32;
                $body
            }
            $crate::element::Datatype::Int64 => {
                type $t = i64;
                $body
            }
            $crate::element::Datatype::Float32 => {
                type $t = f32;
                $body
            }
            $crate::element::Datatype::Float64 => {
                type $t = f64;
                $body
            }
        }
    };
}

#[cfg(test)]
mod sparse_tests {
    use super::*;

    #[test]
    fn bytes_below_tests_every_byte_as_a_loop_would() {
        for threshold in [1, 2, 41, 75, 127, 128] {
            for i in 0..20_000 {
                let h = mix(i, threshold as usize);
                let looped = (0..8)
                    .filter(|&b| (h >> (8 * b)) & 0xFF < threshold)
                    .fold(0, |bits, b| bits | 1 << b);
                assert_eq!(
                    bytes_below(h, threshold),
                    looped,
                    "{h:#x} below {threshold}"
                );
            }
        }
    }
}
