//! The twelve collectives pgcheck checks, the six point-to-point and
//! one-sided transfers (a ping-pong or a halo of `MPI_Send`, `MPI_Put`,
//! `MPI_Get`), and the shape of their buffers.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A blocking MPI collective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Collective {
    Allgather,
    Allreduce,
    Alltoall,
    Bcast,
    Gather,
    Reduce,
    ReduceScatterBlock,
    ReduceScatter,
    Scan,
    Exscan,
    Scatter,
    /// Moves no data: a barrier case has no size ([`Collective::has_size`]).
    Barrier,
    /// A ping-pong of `MPI_Send` and `MPI_Recv` between the first and the
    /// last process.
    Send,
    /// A halo exchange of `MPI_Send` and `MPI_Recv` on a ring of all
    /// processes.
    SendHalo,
    /// A ping-pong of `MPI_Put`, fence-synchronised.
    Put,
    /// A halo exchange of `MPI_Put`, fence-synchronised.
    PutHalo,
    /// A ping-pong of `MPI_Get`, fence-synchronised.
    Get,
    /// A halo exchange of `MPI_Get`, fence-synchronised.
    GetHalo,
}

/// The transfers, as a pattern of `match` arms: `transfers!() => …`.
macro_rules! transfers {
    () => {
        $crate::collective::Collective::Send
            | $crate::collective::Collective::SendHalo
            | $crate::collective::Collective::Put
            | $crate::collective::Collective::PutHalo
            | $crate::collective::Collective::Get
            | $crate::collective::Collective::GetHalo
    };
}
pub(crate) use transfers;

/// How a point-to-point or one-sided operation moves its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transfer {
    Send,
    Put,
    Get,
}

impl Collective {
    /// All collectives and transfers, in the order reports list them.
    pub const ALL: [Collective; 18] = [
        Collective::Allgather,
        Collective::Allreduce,
        Collective::Alltoall,
        Collective::Bcast,
        Collective::Gather,
        Collective::Reduce,
        Collective::ReduceScatterBlock,
        Collective::ReduceScatter,
        Collective::Scan,
        Collective::Exscan,
        Collective::Scatter,
        Collective::Barrier,
        Collective::Send,
        Collective::SendHalo,
        Collective::Put,
        Collective::PutHalo,
        Collective::Get,
        Collective::GetHalo,
    ];

    /// The name used in inputs and reports (`reduce_scatter_block`).
    pub fn name(self) -> &'static str {
        match self {
            Collective::Allgather => "allgather",
            Collective::Allreduce => "allreduce",
            Collective::Alltoall => "alltoall",
            Collective::Bcast => "bcast",
            Collective::Gather => "gather",
            Collective::Reduce => "reduce",
            Collective::ReduceScatterBlock => "reduce_scatter_block",
            Collective::ReduceScatter => "reduce_scatter",
            Collective::Scan => "scan",
            Collective::Exscan => "exscan",
            Collective::Scatter => "scatter",
            Collective::Barrier => "barrier",
            Collective::Send => "send",
            Collective::SendHalo => "send_halo",
            Collective::Put => "put",
            Collective::PutHalo => "put_halo",
            Collective::Get => "get",
            Collective::GetHalo => "get_halo",
        }
    }

    /// How a point-to-point or one-sided operation moves its data; `None`
    /// for a collective.
    pub fn transfer(self) -> Option<Transfer> {
        match self {
            Collective::Send | Collective::SendHalo => Some(Transfer::Send),
            Collective::Put | Collective::PutHalo => Some(Transfer::Put),
            Collective::Get | Collective::GetHalo => Some(Transfer::Get),
            _ => None,
        }
    }

    /// Whether it is a point-to-point or one-sided transfer (which needs
    /// two processes or more).
    pub fn is_transfer(self) -> bool {
        self.transfer().is_some()
    }

    /// Whether a transfer is a halo exchange (else a ping-pong).
    pub fn is_halo(self) -> bool {
        matches!(
            self,
            Collective::SendHalo | Collective::PutHalo | Collective::GetHalo
        )
    }

    /// The prefix of competitor names (`reducescatterblock_as_…`).
    pub fn prefix(self) -> String {
        self.name().replace('_', "")
    }

    /// The MPI function (`MPI_Reduce_scatter_block`); a transfer's, with
    /// its pattern (`MPI_Put halo`).
    pub fn mpi_name(self) -> String {
        if let Some(transfer) = self.transfer() {
            let call = match transfer {
                Transfer::Send => "MPI_Send",
                Transfer::Put => "MPI_Put",
                Transfer::Get => "MPI_Get",
            };
            let pattern = if self.is_halo() { "halo" } else { "ping-pong" };
            return format!("{call} {pattern}");
        }
        let mut name = String::from("MPI_");
        let mut chars = self.name().chars();
        if let Some(first) = chars.next() {
            name.push(first.to_ascii_uppercase());
        }
        name.extend(chars);
        name
    }

    pub fn from_name(name: &str) -> Option<Collective> {
        Collective::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether a size is the block per process (MPINPC's convention) rather
    /// than the whole vector.
    pub fn size_is_per_process(self) -> bool {
        matches!(
            self,
            Collective::Allgather
                | Collective::Alltoall
                | Collective::Gather
                | Collective::Scatter
                | Collective::ReduceScatterBlock
        )
    }

    /// Whether the collective has a root.
    pub fn is_rooted(self) -> bool {
        matches!(
            self,
            Collective::Bcast | Collective::Gather | Collective::Reduce | Collective::Scatter
        )
    }

    /// Whether MPI defines an in-place form (`MPI_IN_PLACE`): every
    /// collective here but bcast, which works in one buffer anyway, and
    /// barrier, which has none.
    pub fn has_in_place(self) -> bool {
        !matches!(self, Collective::Bcast | Collective::Barrier) && !self.is_transfer()
    }

    /// Whether its cases have a size: every collective's but barrier's,
    /// which is checked once whatever sizes a check names.
    pub fn has_size(self) -> bool {
        self != Collective::Barrier
    }

    /// The sizes (or counts) of its cases for a check's `sizes`: those,
    /// or a barrier's one case at 0.
    pub fn sizes_of<S: Copy + Default>(self, sizes: &[S]) -> Vec<S> {
        match self.has_size() {
            true => sizes.to_vec(),
            false => vec![S::default()],
        }
    }

    /// Whether the collective combines data with a reduction operator.
    pub fn is_reduction(self) -> bool {
        matches!(
            self,
            Collective::Allreduce
                | Collective::Reduce
                | Collective::ReduceScatterBlock
                | Collective::ReduceScatter
                | Collective::Scan
                | Collective::Exscan
        )
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The buffers of one collective call on one process, in elements.
///
/// `count` is the size in elements: the block per process for the
/// per-process collectives, the whole vector for the others. Conventions
/// every candidate follows:
/// - `send` holds this process's input, `recv` receives its output;
/// - `bcast` works in `recv` only: the root's `recv` holds the data before
///   the call, every process's `recv` holds it after;
/// - `reduce_scatter` gives process i `counts[i]` elements of the vector;
/// - a transfer sends `send` (one message of `count` elements) and
///   receives each message into a slot of `count` elements of `recv`
///   ([`Shape::pattern`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    pub collective: Collective,
    /// Number of processes.
    pub size: usize,
    /// This process's rank.
    pub rank: usize,
    /// The root of rooted collectives (0 for the others).
    pub root: usize,
    /// Elements per block or per vector, as above.
    pub count: usize,
    /// `reduce_scatter`'s per-process counts: the vector split as evenly as
    /// possible, the first `count % size` processes one element more.
    pub counts: Vec<usize>,
}

impl Shape {
    pub fn new(
        collective: Collective,
        size: usize,
        rank: usize,
        root: usize,
        count: usize,
    ) -> Shape {
        let counts = (0..size)
            .map(|i| count / size + usize::from(i < count % size))
            .collect();
        Shape {
            collective,
            size,
            rank,
            root,
            count,
            counts,
        }
    }

    /// Length of the send buffer on this process.
    pub fn send_len(&self) -> usize {
        let (p, m) = (self.size, self.count);
        match self.collective {
            Collective::Alltoall | Collective::Scatter | Collective::ReduceScatterBlock => p * m,
            Collective::Barrier => 0,
            _ => m,
        }
    }

    /// A transfer's pattern: a ping-pong between the first and the last
    /// process, or a halo on the ring.
    ///
    /// # Panics
    /// For a collective.
    pub fn pattern(&self) -> mockups::pattern::Pattern {
        assert!(self.collective.is_transfer(), "a collective has no pattern");
        match self.collective.is_halo() {
            true => mockups::pattern::Pattern::Halo,
            false => mockups::pattern::Pattern::PingPong {
                first: 0,
                last: self.size.saturating_sub(1),
            },
        }
    }

    /// Length of the receive buffer on this process.
    pub fn recv_len(&self) -> usize {
        let (p, m) = (self.size, self.count);
        match self.collective {
            Collective::Allgather | Collective::Alltoall | Collective::Gather => p * m,
            Collective::Scatter | Collective::ReduceScatterBlock => m,
            Collective::ReduceScatter => self.counts[self.rank],
            Collective::Barrier => 0,
            c if c.is_transfer() => self.pattern().slots(self.rank) * m,
            _ => m,
        }
    }

    /// Length of the one buffer of the in-place form on this process: the
    /// receive buffer, which also holds the input (the whole vector for
    /// reduce_scatter and reduce_scatter_block); the send buffer at the
    /// root of scatter; the usual send or receive buffer where the process
    /// calls the usual form (reduce, gather, scatter off their root).
    pub fn in_place_len(&self) -> usize {
        let (p, m) = (self.size, self.count);
        match self.collective {
            Collective::ReduceScatterBlock => p * m,
            Collective::ReduceScatter => m,
            Collective::Gather if !self.is_root() => m,
            Collective::Scatter if self.is_root() => p * m,
            _ => self.recv_len(),
        }
    }

    /// The part of `recv` that MPI defines on this process after the call.
    pub fn defined_output(&self) -> std::ops::Range<usize> {
        let defined = match self.collective {
            Collective::Gather | Collective::Reduce => self.rank == self.root,
            Collective::Exscan => self.rank != 0,
            _ => true,
        };
        if defined {
            0..self.recv_len()
        } else {
            0..0
        }
    }

    /// Whether this process is the root.
    pub fn is_root(&self) -> bool {
        self.rank == self.root
    }
}
