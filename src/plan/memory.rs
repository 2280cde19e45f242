//! What one process holds while a case runs, in bytes: the buffers the
//! candidates run on, verification's copies, the competitors' scratch and
//! an allowance for the library's temporaries; `--max-memory` bounds it.

use crate::collective::{Collective, Shape};
use crate::element::{Datatype, Op};
use crate::settings::MAX_BUFFER_SHIFT_BYTES;

/// The library's temporaries in one call, as a multiple of the larger of a
/// process's send and receive buffers. Measured on Open MPI 4.1.4, 4 ranks,
/// every collective at 4 and 16 MiB (peak resident set reset before one
/// call, read after it, largest rank): reduce_scatter_block 2.0×, reduce
/// and scan 1.0×, allreduce and reduce_scatter 0.5×, the data movers 0.
pub const LIBRARY_FACTOR: u64 = 2;

/// The bytes one process holds for a case, part by part (the busiest rank:
/// the root of a rooted collective).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// The send and receive buffers every candidate runs on, each in an
    /// allocation [`MAX_BUFFER_SHIFT_BYTES`] longer, where it moves every
    /// round.
    pub buffers: u64,
    /// Verification's copies: per check, the send buffer and the expected
    /// output (receive buffers get their sentinels from the expected
    /// output); a reduction whose operator could hide a wrong result is
    /// checked twice.
    pub verification: u64,
    /// The in-place verification of the library's call, beside the checks:
    /// the buffer it runs on, laid out from a check's send buffer and
    /// expected output, which it is compared with (`reference::in_place`).
    pub in_place: u64,
    /// The allowance for the library's temporaries ([`LIBRARY_FACTOR`]).
    pub library: u64,
    /// A bound on one competitor's scratch: a per-process collective's
    /// competitors may hold all p blocks once more, the others the vector
    /// twice; the few that hold more say so in [`large_scratch`].
    pub scratch_each: u64,
    /// The bytes of one process's block or vector (`count` elements).
    pub block: u64,
    /// The processes of the case, which [`large_scratch`] counts by.
    pub processes: usize,
    /// Whether verification prepares each competitor once more, for its
    /// second check, while the others are held.
    pub second_check: bool,
}

impl Footprint {
    /// The footprint of `collective` with `count` elements of `datatype`
    /// reduced with `op` on `processes` ranks, at `root`.
    pub fn of(
        collective: Collective,
        count: usize,
        datatype: Datatype,
        op: Op,
        processes: usize,
        root: usize,
    ) -> Footprint {
        let shape = Shape::new(collective, processes, root, root, count);
        let bytes = |elements: usize| (elements * datatype.size()) as u64;
        let (send, recv) = (shape.send_len(), shape.recv_len());
        let second_check = collective.is_reduction() && op.second_check(datatype).is_some();
        let checks = 1 + usize::from(second_check);
        let scratch_each = if collective.size_is_per_process() {
            bytes(processes * count)
        } else {
            bytes(2 * count)
        };
        Footprint {
            buffers: bytes(send + recv) + 2 * MAX_BUFFER_SHIFT_BYTES as u64,
            // Scan's and exscan's shared reference also holds, while it is
            // built, this rank's share of every rank's prefix: about count.
            verification: bytes(
                checks * (send + shape.defined_output().len())
                    + match crate::reference::sharing(&shape) {
                        Some(crate::reference::Sharing::Prefix) => {
                            processes * count.div_ceil(processes.max(1))
                        }
                        _ => 0,
                    },
            ),
            in_place: match collective.has_in_place() {
                true => bytes(shape.in_place_len()),
                false => 0,
            },
            library: LIBRARY_FACTOR * bytes(send.max(recv)),
            scratch_each,
            block: bytes(count),
            processes,
            second_check,
        }
    }

    /// What `default` alone needs.
    pub fn alone(&self) -> u64 {
        self.buffers + self.verification + self.in_place + self.library
    }

    /// One competitor's scratch: [`Footprint::scratch_each`], or what
    /// [`large_scratch`] says it holds.
    pub fn scratch_of(&self, name: &str) -> u64 {
        large_scratch(name, self.processes)
            .map_or(self.scratch_each, |blocks| blocks as u64 * self.block)
    }

    /// What the case needs with the competitors `names` prepared at once
    /// (and the largest of them once more for a second check).
    pub fn with(&self, names: &[&str]) -> u64 {
        let scratch = names.iter().map(|name| self.scratch_of(name));
        let again = match self.second_check {
            true => scratch.clone().max().unwrap_or(0),
            false => 0,
        };
        self.alone() + scratch.sum::<u64>() + again
    }
}

/// The blocks (of the case's `count` elements) of scratch the competitors
/// hold that [`Footprint::scratch_each`] does not bound, on `processes`
/// ranks: `scatter_as_allgather` receives every process's p blocks and
/// contributes p of its own (`mockups::scatter::AsAllgather`).
fn large_scratch(name: &str, processes: usize) -> Option<usize> {
    match name {
        "scatter_as_allgather" => Some(processes * processes + processes),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn allreduce_counts_buffers_both_checks_scratch_and_the_library() {
        // 64 MiB of bytes or'ed on 4 ranks: send and receive 64 MiB each;
        // two checks (bor, then bxor) of send and expected; the in-place
        // buffer; the library twice the vector; each competitor twice the
        // vector.
        let f = Footprint::of(
            Collective::Allreduce,
            64 << 20,
            Datatype::Byte,
            Op::Bor,
            4,
            0,
        );
        assert_eq!(f.buffers, 128 * MIB + 8192);
        assert_eq!(f.verification, 2 * 2 * 64 * MIB);
        assert_eq!(f.library, 128 * MIB);
        assert_eq!(f.scratch_each, 128 * MIB);
        assert_eq!(f.in_place, 64 * MIB);
        assert_eq!(f.alone(), (128 + 256 + 64 + 128) * MIB + 8192);
        // Four competitors and one prepared again for the second check.
        let four = ["a", "b", "c", "d"];
        assert_eq!(f.with(&four), f.alone() + 5 * 128 * MIB);
        assert_eq!(f.with(&[]), f.alone());
    }

    #[test]
    fn a_strong_operator_is_checked_once() {
        let f = Footprint::of(
            Collective::Allreduce,
            1 << 20,
            Datatype::Int32,
            Op::Sum,
            4,
            0,
        );
        assert_eq!(f.verification, 2 * 4 * MIB);
        assert_eq!(f.with(&["a", "b"]), f.alone() + 2 * f.scratch_each);
    }

    #[test]
    fn per_process_collectives_count_p_blocks_at_the_root() {
        // gather of 1 MiB per process on 4 ranks, at root 2: the root
        // receives 4 MiB, and only it has a defined output.
        let f = Footprint::of(Collective::Gather, 1 << 20, Datatype::Byte, Op::Bor, 4, 2);
        assert_eq!(f.buffers, 5 * MIB + 8192);
        assert_eq!(f.verification, (1 + 4) * MIB);
        assert_eq!(f.library, 8 * MIB);
        assert_eq!(f.scratch_each, 4 * MIB);
        assert!(!f.second_check);
    }

    #[test]
    fn scatter_as_allgather_counts_its_p_squared_blocks() {
        // 1 MiB per process on 8 ranks: the others hold p blocks each,
        // scatter_as_allgather 64 received and 8 contributed.
        let f = Footprint::of(Collective::Scatter, 1 << 20, Datatype::Byte, Op::Bor, 8, 0);
        assert_eq!(f.scratch_of("scatter_as_scatterv"), 8 * MIB);
        assert_eq!(f.scratch_of("scatter_as_allgather"), 72 * MIB);
        assert_eq!(
            f.with(&["scatter_as_scatterv", "scatter_as_allgather"]),
            f.alone() + 80 * MIB
        );
        // The name is a competitor's: a rename must come here too.
        let scatter = crate::candidates::find("scatter_as_allgather").expect("listed");
        assert_eq!(scatter.operation, Collective::Scatter.into());
    }

    #[test]
    fn reduce_scatter_block_sends_the_whole_vector() {
        // 1 MiB blocks on 4 ranks: 4 MiB sent, 1 MiB received and defined;
        // in place, the whole vector.
        let f = Footprint::of(
            Collective::ReduceScatterBlock,
            1 << 20,
            Datatype::Byte,
            Op::Sum,
            4,
            0,
        );
        assert_eq!(f.buffers, 5 * MIB + 8192);
        // Sums of bytes are checked again with bxor.
        assert_eq!(f.verification, 2 * (4 + 1) * MIB);
        assert_eq!(f.in_place, 4 * MIB);
        assert_eq!(f.library, 8 * MIB);
    }
}
