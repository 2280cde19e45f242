//! Candidates: the ways to perform one operation (a collective, blocking,
//! nonblocking or persistent). `default` is the library's own call;
//! competitors are mock-ups built from other collectives, lane,
//! hierarchical and circulant algorithms, minimal implementations from
//! point-to-point calls, the collective on another communicator, the
//! blocking call against a nonblocking or persistent one, and the
//! library's own internal algorithms (found at run time, [`library`]).
//!
//! A candidate is prepared once per (operation, size) outside the timed
//! region and returns a [`Call`]: a closure that performs the collective on
//! the harness's `send` and `recv` buffers (laid out as [`Shape`] says) and
//! allocates nothing.

/// Declares the competitors of one family, each once: the entry `pgcheck
/// list` shows and the code that prepares it. Generates the family's
/// `COMPETITORS` table and its `prepare`, which matches the same names, so
/// a name cannot be listed without its code nor coded without its entry.
///
/// `prepare<T>(name, setup) { … }` is the start of the generated
/// `prepare<T: Element>(name: &str, setup: &Setup)`, shared by the family
/// (it may return `Err(NotApplicable)` early); each entry's `call` is then
/// an expression of type [`Call<T>`] that sees its bindings. Entries are
/// of the block's `form:` (blocking when it names none), or of their own:
/// `"iallreduce_as_x" for Allreduce (Nonblocking) { … }`.
///
/// ```text
/// competitors! {
///     family: Mockup,
///     prepare<T>(name, setup) {
///         let (comm, m, op) = (&*setup.comm, setup.shape.count, setup.op);
///     }
///     "allreduce_as_reduce_bcast" for Allreduce {
///         guideline: "GL12: Allreduce ⪯ Reduce + Bcast",
///         description: "MPI_Reduce to rank 0, then MPI_Bcast",
///         call: call!(setup.comm, allreduce::ReduceBcast::new(comm, m), op),
///     }
/// }
/// ```
macro_rules! competitors {
    (family: $family:ident, prepare $($rest:tt)*) => {
        competitors! { family: $family, form: Blocking, prepare $($rest)* }
    };
    (
        family: $family:ident,
        form: $form:ident,
        prepare<$T:ident>($name:ident, $setup:ident) { $($start:tt)* }
        $(
            $competitor:literal for $collective:ident $(($entry_form:ident))? {
                guideline: $guideline:literal,
                description: $description:literal,
                call: $call:expr $(,)?
            }
        )*
    ) => {
        /// The family's competitors, in `pgcheck list` order.
        pub const COMPETITORS: &[$crate::candidates::Competitor] = &[$(
            $crate::candidates::Competitor {
                name: $competitor,
                operation: $crate::operation::Operation {
                    collective: $crate::collective::Collective::$collective,
                    form: form_of!($form $(, $entry_form)?),
                },
                family: $crate::candidates::Family::$family,
                guideline: $guideline,
                description: $description,
            },
        )*];

        /// Prepares the competitor `name` of this family for `setup.shape`.
        pub fn prepare<$T: $crate::element::Element>(
            $name: &str,
            $setup: &$crate::candidates::Setup,
        ) -> Result<$crate::candidates::Call<$T>, $crate::candidates::NotApplicable> {
            $($start)*
            let call: $crate::candidates::Call<$T> = match $name {
                $($competitor => $call,)*
                _ => {
                    return Err($crate::candidates::NotApplicable(format!(
                        "{} is not a {} competitor",
                        $name,
                        stringify!($family)
                    )))
                }
            };
            Ok(call)
        }
    };
}

/// An entry's form in a `competitors!` block: its own (`for Allreduce
/// (Nonblocking)`), else the block's.
macro_rules! form_of {
    ($block:ident) => {
        $crate::operation::Form::$block
    };
    ($block:ident, $entry:ident) => {
        $crate::operation::Form::$entry
    };
}

/// A [`Call`] of a prepared algorithm whose `run` takes `context` (an `Rc`
/// of the communicator or the topology) first, then `(send, recv)`; with
/// an operator `op` also `op`; with `recv_only` just the buffer (bcast).
macro_rules! call {
    ($context:expr, $algorithm:expr) => {{
        let (context, mut algorithm) = (::std::rc::Rc::clone(&$context), $algorithm);
        Box::new(move |send, recv| algorithm.run(&*context, send, recv))
    }};
    ($context:expr, $algorithm:expr, recv_only) => {{
        let (context, mut algorithm) = (::std::rc::Rc::clone(&$context), $algorithm);
        Box::new(move |_, recv| algorithm.run(&*context, recv))
    }};
    ($context:expr, $algorithm:expr, $op:expr) => {{
        let (context, mut algorithm, op) = (::std::rc::Rc::clone(&$context), $algorithm, $op);
        Box::new(move |send, recv| algorithm.run(&*context, send, recv, op))
    }};
}

pub mod circulant;
pub mod communicator;
pub mod hier;
pub mod lane;
pub mod library;
pub mod mockups;
pub mod native;
pub mod nonblocking;
pub mod p2p;
pub mod persistent;
pub mod persistent_request;
#[cfg(feature = "testing")]
pub mod testing;
pub mod transfer;

use crate::collective::Shape;
use crate::element::Element;
use crate::operation::{Form, Operation};
use algorithms::topology::Topology;
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use std::rc::Rc;

/// A prepared candidate, ready to be called: `call(send, recv)`.
pub type Call<T> = Box<dyn FnMut(&[T], &mut [T])>;

/// Where a competitor comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// The same semantics from other MPI collectives.
    Mockup,
    /// Lane decomposition (Träff & Hunold 2020).
    Lane,
    /// Hierarchical, leader-based decomposition.
    Hier,
    /// Circulant-graph algorithm (Träff et al. 2023).
    Circulant,
    /// Nonblocking collectives' competitors: the blocking call, and mock-ups
    /// from other nonblocking collectives.
    Nonblocking,
    /// The library's own call on a permuted or duplicated communicator.
    Communicator,
    /// Minimal implementation from point-to-point calls (Träff et al. 2007, (19)).
    P2p,
    /// Persistent collectives' competitors: the blocking and the
    /// nonblocking call.
    Persistent,
    /// The library's own internal algorithms, forced through MPI_T.
    Library,
    /// The point-to-point and one-sided guidelines' replacements of a
    /// send, put or get (Träff, Gropp & Thakur 2010).
    Transfer,
    /// Test-only competitors (see [`testing`]).
    #[cfg(feature = "testing")]
    Testing,
}

/// A competitor's identity, as `pgcheck list` shows it; declared with its
/// code by `competitors!` in its family's module.
#[derive(Clone, Copy, Debug)]
pub struct Competitor {
    /// `<operation>_as_<how>`, e.g. `allreduce_as_reduce_bcast`.
    pub name: &'static str,
    pub operation: Operation,
    pub family: Family,
    /// The guideline it checks, e.g. `GL12: Allreduce ⪯ Reduce + Bcast`.
    pub guideline: &'static str,
    /// One line on how it works.
    pub description: &'static str,
}

impl Competitor {
    /// Whether it calls the library's own function for its operation: on
    /// another communicator, through a forced algorithm, with a user-defined
    /// operator, or on the sub-communicators of a lane or hierarchical
    /// decomposition. A regression of that function moves it with
    /// `default`, so the gate does not take it as a reference.
    pub fn calls_own_function(&self) -> bool {
        match self.family {
            Family::Library | Family::Communicator => true,
            Family::Circulant | Family::P2p => false,
            // `<operation>_as_<operation>_<how>`: the same call, otherwise.
            _ => self
                .name
                .split_once("_as_")
                .is_some_and(|(operation, how)| how.split('_').next() == Some(operation)),
        }
    }
}

/// Extra knobs some competitors read from the input.
#[derive(Clone, Debug, Default)]
pub struct Tuning {
    /// Blocks of the n-block circulant broadcast; `None` chooses from the size.
    pub nblock_blocks: Option<usize>,
    /// `default` is timed in place (`in_place: true`).
    pub default_in_place: bool,
}

/// What a candidate is prepared with.
#[derive(Clone)]
pub struct Setup {
    /// The communicator of the check (a duplicate of the world).
    pub comm: Rc<SimpleCommunicator>,
    /// The node/lane topology, or why lane and hier candidates cannot run.
    pub topology: Result<Rc<Topology>, String>,
    pub shape: Shape,
    /// How `default` calls the collective of `shape`.
    pub form: Form,
    pub op: SystemOperation,
    /// Whether `op` is commutative (circulant reductions require it).
    pub commutative: bool,
    pub tuning: Tuning,
}

/// What a candidate does outside its timed calls, where it needs to:
/// MPICH's algorithm variable written once before a chunk of timed calls
/// (`enter`) and restored once after it (`leave`) instead of around every
/// call (a call outside a chunk, in verification or warm-up, sets and
/// restores it itself); a persistent request initialised again where the
/// harness moved the buffers (`moved`, on every rank alike).
pub trait Hooks {
    fn enter(&self) {}
    fn leave(&self) {}
    fn moved(&self, _send: *const std::ffi::c_void, _recv: *mut std::ffi::c_void) {}
}

impl Setup {
    /// The operation the candidates perform.
    pub fn operation(&self) -> Operation {
        Operation {
            collective: self.shape.collective,
            form: self.form,
        }
    }
}

/// Why a candidate is not measured in a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotApplicable(pub String);

/// Every competitor of every family, `default`s excluded.
pub fn competitors() -> impl Iterator<Item = &'static Competitor> + Clone {
    let all = mockups::COMPETITORS
        .iter()
        .chain(lane::COMPETITORS)
        .chain(hier::COMPETITORS)
        .chain(circulant::COMPETITORS)
        .chain(nonblocking::COMPETITORS)
        .chain(communicator::COMPETITORS)
        .chain(p2p::COMPETITORS)
        .chain(persistent::COMPETITORS)
        .chain(transfer::COMPETITORS)
        // Last and lazily: a name found before it needs no discovery.
        .chain(std::iter::once(()).flat_map(|()| library::competitors()));
    #[cfg(feature = "testing")]
    let all = all.chain(testing::COMPETITORS);
    all
}

/// The competitors of one operation.
pub fn competitors_of(operation: Operation) -> impl Iterator<Item = &'static Competitor> + Clone {
    competitors().filter(move |c| c.operation == operation)
}

/// What `competitors: all` (or no list) means for `operation`: its
/// built-in competitors; the library's own algorithms (`library`) and the
/// test-only ones run only when asked for. The point-to-point family is
/// built in: its minimal implementations cost no more than a call each and
/// no scratch beyond one vector, and they are rule (19)'s floor: a
/// collective slower than its obvious implementation from sends and
/// receives is the plainest finding there is.
pub fn all_of(operation: Operation) -> impl Iterator<Item = &'static Competitor> + Clone {
    let all = competitors_of(operation).filter(|c| c.family != Family::Library);
    #[cfg(feature = "testing")]
    let all = all.filter(|c| c.family != Family::Testing);
    all
}

/// What a competitor list may hold besides names: `all` (see [`all_of`])
/// and `library` (every algorithm of the running library).
pub const SELECTORS: [&str; 2] = ["all", "library"];

/// The competitors of `operation` a list of names and [`SELECTORS`]
/// means, each once, in the list's order.
pub fn select(operation: Operation, list: &[String]) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = Vec::new();
    for entry in list {
        let found: Vec<&'static str> = match entry.as_str() {
            "all" => all_of(operation).map(|c| c.name).collect(),
            "library" => competitors_of(operation)
                .filter(|c| c.family == Family::Library)
                .map(|c| c.name)
                .collect(),
            name => find(name).map(|c| c.name).into_iter().collect(),
        };
        for name in found {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Whether `name` is a competitor that does not call the library's own
/// function for its operation, a reference the gate may judge `default`
/// by: not `default_in_place`, nor the library's algorithms (found at run
/// time, never in [`find`]).
pub fn independent_of_default(name: &str) -> bool {
    find(name).is_some_and(|c| !c.calls_own_function())
}

/// Looks up a competitor by name.
pub fn find(name: &str) -> Option<&'static Competitor> {
    competitors().find(|c| c.name == name)
}

/// Prepares a candidate: `default` (in the form the case times), `default_in_place`
/// or a competitor of `setup.operation()`.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Call<T>, NotApplicable> {
    let operation = setup.operation();
    if name == native::DEFAULT_IN_PLACE {
        return match operation.has_in_place() {
            true => Ok(native::prepare_in_place_timed(setup)),
            false => Err(NotApplicable(format!("{operation} has no in-place form"))),
        };
    }
    if name == native::DEFAULT {
        return Ok(library_call(setup).0);
    }
    let competitor = find(name)
        .filter(|c| c.operation == operation)
        .ok_or_else(|| NotApplicable(format!("{name} is not a competitor of {operation}")))?;
    match competitor.family {
        Family::Mockup => mockups::prepare(name, setup),
        Family::Lane => lane::prepare(name, setup),
        Family::Hier => hier::prepare(name, setup),
        Family::Circulant => circulant::prepare(name, setup),
        Family::Nonblocking => nonblocking::prepare(name, setup),
        Family::Communicator => communicator::prepare(name, setup),
        Family::P2p => p2p::prepare(name, setup),
        Family::Persistent => persistent::prepare(name, setup),
        Family::Library => library::prepare(name, setup),
        Family::Transfer => transfer::prepare(name, setup),
        #[cfg(feature = "testing")]
        Family::Testing => testing::prepare(name, setup),
    }
}

/// [`prepare`], and the candidate's [`Hooks`] if it has them.
#[allow(clippy::type_complexity)]
pub fn prepare_hooked<T: Element>(
    name: &str,
    setup: &Setup,
) -> Result<(Call<T>, Option<Rc<dyn Hooks>>), NotApplicable> {
    if name == native::DEFAULT {
        return Ok(library_call(setup));
    }
    // `default_in_place` is no competitor: looking it up would search the
    // library's.
    let competitor = match name {
        native::DEFAULT_IN_PLACE => None,
        name => find(name),
    };
    match competitor {
        Some(c) if c.family == Family::Library && c.operation == setup.operation() => {
            library::prepare_switched(name, setup)
        }
        Some(c) if c.family == Family::Transfer && c.operation == setup.operation() => {
            transfer::prepare_hooked(name, setup)
        }
        _ => prepare(name, setup).map(|call| (call, None)),
    }
}

/// `default`: the library's call in the form the case times, slowed where
/// a test asks for it (`PGCHECK_TEST_SLOW_DEFAULT`), with its hooks.
#[allow(clippy::type_complexity)]
pub fn library_call<T: Element>(setup: &Setup) -> (Call<T>, Option<Rc<dyn Hooks>>) {
    let (run, hooks) = native::prepare_timed_hooked(setup);
    #[cfg(feature = "testing")]
    let size_bytes = setup.shape.count * std::mem::size_of::<T>();
    #[cfg(feature = "testing")]
    let run = match testing::default_slowdown(setup.operation(), size_bytes) {
        Some(factor) => testing::slowed(run, factor),
        None => run,
    };
    (run, hooks)
}

/// The topology of the setup, or why lane/hier candidates do not apply.
pub fn topology(setup: &Setup) -> Result<Rc<Topology>, NotApplicable> {
    setup.topology.clone().map_err(NotApplicable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn competitors_that_call_the_operation_s_own_function_are_known() {
        for name in [
            "default_in_place",
            "allreduce_as_allreduce_user_op",
            "allreduce_as_allreduce_lane",
            "allreduce_as_allreduce_hier",
            "allreduce_as_dup_comm",
            "allreduce_as_permuted_comm",
            "allreduce_as_library_ring",
            "bcast_as_bcast_lane",
        ] {
            assert!(!independent_of_default(name), "{name}");
        }
        for name in [
            "allreduce_as_reduce_bcast",
            "allreduce_as_reducescatterblock_allgather",
            "allreduce_as_allreduce_circulant",
            "allgather_as_allgatherv",
            "bcast_as_binomial_p2p",
            "iallreduce_as_allreduce",
        ] {
            assert!(independent_of_default(name), "{name}");
        }
    }
}
