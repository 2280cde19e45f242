//! Datatypes and reduction operators, and the rank-dependent data that
//! verification feeds to candidates.

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

/// An element type candidates run on.
pub trait Element: Equivalence + Copy + Default + PartialEq + Debug + 'static {
    /// Input element `index` of process `rank` for operator `op`. The values
    /// keep every reduction exact in any order of evaluation (small integers
    /// for sums, ±1 and 2 for products), so candidates can be compared with
    /// the library bit for bit.
    fn input(rank: usize, index: usize, op: Op) -> Self;
}

/// A well-mixed 64-bit value of (rank, index).
fn mix(rank: usize, index: usize) -> u64 {
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

macro_rules! integer_element {
    ($t:ty) => {
        impl Element for $t {
            fn input(rank: usize, index: usize, op: Op) -> Self {
                if op.is_bitwise() || matches!(op, Op::Min | Op::Max) {
                    mix(rank, index) as $t
                } else {
                    small(rank, index, op) as $t
                }
            }
        }
    };
}

integer_element!(i32);
integer_element!(i64);

impl Element for u8 {
    fn input(rank: usize, index: usize, op: Op) -> Self {
        match op {
            // Sums and products that cannot overflow a byte on up to 255
            // processes: Open MPI 4.1's AVX byte sum saturates instead of
            // wrapping (open-mpi/ompi#8045), so an overflowing sum would
            // depend on how a collective splits the vector.
            Op::Sum => (mix(rank, index) % 2) as u8,
            Op::Prod => 1 + u8::from(mix(rank, index).is_multiple_of(61)),
            _ => mix(rank, index) as u8,
        }
    }
}

impl Element for f32 {
    fn input(rank: usize, index: usize, op: Op) -> Self {
        small(rank, index, op) as f32
    }
}

impl Element for f64 {
    fn input(rank: usize, index: usize, op: Op) -> Self {
        small(rank, index, op) as f64
    }
}

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
