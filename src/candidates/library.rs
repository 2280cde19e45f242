//! Family `library`: the library's own internal algorithms, found at run
//! time through the MPI tools interface ([`crate::mpit`]) and forced one at
//! a time, so that the library's choice (`default`) meets its alternatives
//! in the same interleaved rounds.
//!
//! - Open MPI: `coll_tuned_<collective>_algorithm`, an enumeration
//!   (`0 = ignore`, `4 = ring`, …). The tuned component reads it when a
//!   communicator is created and only with dynamic rules on: the candidate
//!   writes it, duplicates the check's communicator, restores it, and calls
//!   the library on the duplicate. Open MPI 5 lets MPI_T switch
//!   `coll_tuned_use_dynamic_rules` on; 4.1 does not, and needs the run
//!   started with `OMPI_MCA_coll_tuned_use_dynamic_rules=1`.
//! - MPICH: `MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM`, read at every call:
//!   the candidate writes it, calls the library, and writes the previous
//!   value back. MPICH 4 gives no enumeration; the values are the order of
//!   the items its description lists ([`mpich_items`]).
//!
//! The item that lets the library decide (`ignore`, `auto`, `default`) is
//! `default` itself and is left out.
//!
//! Intel MPI has none pgcheck can force: it reads its selection
//! (`I_MPI_ADJUST_<COLLECTIVE>`, in MPI_T `MPIR_CVAR_USE_<COLLECTIVE>`)
//! once, at MPI_Init, and a value written later changes nothing, also on a
//! communicator duplicated or an MPI session opened after the write
//! (measured: docs/libraries.md). A run that asks for its algorithms is
//! refused with [`INTEL_MPI_SELECTS_AT_INIT`]; its presets are measured
//! in launches of their own and compared across them by `tune`
//! (`tuning::presets`).

use super::{native, Call, Competitor, Family, Hooks, NotApplicable, Setup};
use crate::collective::Collective;
use crate::element::Element;
use crate::mpit::{Handle, Item, Session, Variable};
use mpi::traits::*;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::OnceLock;

/// Whose tuning variables these are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Library {
    OpenMpi,
    Mpich,
}

impl Library {
    /// The variable that selects `collective`'s algorithm.
    pub fn variable(self, collective: Collective) -> String {
        match self {
            Library::OpenMpi => format!("coll_tuned_{}_algorithm", collective.name()),
            Library::Mpich => format!(
                "MPIR_CVAR_{}_INTRA_ALGORITHM",
                collective.name().to_uppercase()
            ),
        }
    }

    /// The library whose tuning variables `variables` holds.
    fn of(variables: &[Variable]) -> Option<Library> {
        let has = |name: &str| variables.iter().any(|v| v.name == name);
        if has("coll_tuned_use_dynamic_rules") {
            Some(Library::OpenMpi)
        } else if has("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM") {
            Some(Library::Mpich)
        } else {
            None
        }
    }
}

/// Why a run cannot measure Intel MPI's algorithms against `default`.
pub const INTEL_MPI_SELECTS_AT_INIT: &str = "Intel MPI reads its algorithm selection \
     (I_MPI_ADJUST_<COLLECTIVE>, in MPI_T MPIR_CVAR_USE_<COLLECTIVE>) once, at MPI_Init: a value \
     written later changes nothing, also on a duplicated communicator or in a new MPI session, so \
     its algorithms cannot meet `default` within one launch; measure each preset in launches of \
     its own (I_MPI_ADJUST_ALLREDUCE=<preset>, 3 launches or more, and as many without) and \
     decide with `pgcheck tune <the launches' directories>`, which ci/tune-presets runs";

/// Why `variables` offer no algorithm pgcheck can force, when they offer
/// none ([`algorithms_in`] is empty).
pub fn none_in(variables: &[Variable]) -> Option<String> {
    algorithms_in(variables)
        .is_empty()
        .then(|| why_none(variables))
}

/// Why a library whose `variables` offer no algorithm has none.
fn why_none(variables: &[Variable]) -> String {
    match variables
        .iter()
        .any(|v| v.name == "MPIR_CVAR_USE_ALLREDUCE")
    {
        true => INTEL_MPI_SELECTS_AT_INIT.into(),
        false => "this library's tools interface has no algorithm variable pgcheck knows \
                  (Open MPI's coll_tuned_<collective>_algorithm, MPICH's \
                  MPIR_CVAR_<COLLECTIVE>_INTRA_ALGORITHM)"
            .into(),
    }
}

/// Open MPI's switch without which coll_tuned ignores forced algorithms.
pub const DYNAMIC_RULES: &str = "coll_tuned_use_dynamic_rules";

/// Why Open MPI 4.1's library candidates cannot run in this mpirun.
pub const NEEDS_DYNAMIC_RULES: &str = "Open MPI uses an algorithm forced through MPI_T only with \
     coll_tuned_use_dynamic_rules on, which this Open MPI does not let MPI_T switch on: start the \
     run with OMPI_MCA_coll_tuned_use_dynamic_rules=1";

/// One algorithm of the library, as found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Algorithm {
    pub library: Library,
    pub collective: Collective,
    /// The control variable that selects it, and its value.
    pub variable: String,
    pub value: i32,
    /// The item's name as the library spells it (`in-order_binary`).
    pub item: String,
}

impl Algorithm {
    /// `<collective>_as_library_<item>`, e.g. `allreduce_as_library_ring`.
    pub fn name(&self) -> String {
        format!(
            "{}_as_library_{}",
            self.collective.name().replace('_', ""),
            self.item.replace(['-', ' '], "_")
        )
    }
}

impl Library {
    /// As `results.json` names it.
    pub fn name(self) -> &'static str {
        match self {
            Library::OpenMpi => "open_mpi",
            Library::Mpich => "mpich",
        }
    }
}

impl Algorithm {
    /// As `results.json` keeps it (`meta.library_algorithms`).
    pub fn record(&self) -> crate::meta::LibraryAlgorithm {
        crate::meta::LibraryAlgorithm {
            name: self.name(),
            library: self.library.name().into(),
            collective: self.collective.name().into(),
            variable: self.variable.clone(),
            value: self.value,
            item: self.item.clone(),
        }
    }
}

/// The items that mean "let the library decide".
fn is_library_choice(item: &str) -> bool {
    matches!(item, "ignore" | "auto" | "default")
}

/// Every algorithm `variables` offers for pgcheck's collectives.
pub fn algorithms_in(variables: &[Variable]) -> Vec<Algorithm> {
    let Some(library) = Library::of(variables) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for collective in Collective::ALL {
        let name = library.variable(collective);
        let Some(variable) = variables.iter().find(|v| v.name == name) else {
            continue;
        };
        let items = match (&variable.items, library) {
            (Some(items), _) => items.clone(),
            (None, Library::Mpich) => mpich_items(&variable.description),
            (None, Library::OpenMpi) => Vec::new(),
        };
        found.extend(
            items
                .into_iter()
                .filter(|item| !is_library_choice(&item.name))
                .map(|item| Algorithm {
                    library,
                    collective,
                    variable: name.clone(),
                    value: item.value,
                    item: item.name,
                }),
        );
    }
    found
}

/// MPICH 4's algorithm items from the variable's description, which lists
/// them one a line (`name<padding> - what it does`), in the order of their
/// values, after a heading; MPI_T returns it with the line breaks removed:
/// `Variable to select allreduce algorithmauto - Internal algorithm
/// selection (…)nb                       - Force nonblocking algorithmsmp …`.
///
/// Each piece between two ` - ` is the previous item's text, then the next
/// item's name, then padding to the width of the longest name. Where that
/// text ends in `algorithm` or punctuation, the name is plain; it gives the
/// width, and the width gives the names glued to a capitalised word
/// (`Force Binomial Treenb`).
pub fn mpich_items(description: &str) -> Vec<Item> {
    let pieces: Vec<&str> = description.split(" - ").collect();
    if pieces.len() < 2 || !pieces[0].starts_with("Variable to select") {
        return Vec::new();
    }
    // (lower-case run before the padding, padding, whether the run is the name)
    let fields: Vec<(String, usize, bool)> = pieces[..pieces.len() - 1]
        .iter()
        .map(|piece| {
            let text = piece.trim_end_matches(' ');
            let padding = piece.len() - text.len();
            let start = text
                .rfind(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
                .map_or(0, |i| i + 1);
            let run = &text[start..];
            let before = text[..start].chars().last();
            match run.strip_prefix("algorithm").filter(|n| !n.is_empty()) {
                Some(name) => (name.to_string(), padding, true),
                None => {
                    let plain = before.is_none_or(|c| !c.is_alphabetic());
                    (run.to_string(), padding, plain)
                }
            }
        })
        .collect();
    // The first item follows the heading unpadded; the others share a width.
    let width = fields
        .iter()
        .skip(1)
        .find(|(_, _, plain)| *plain)
        .map(|(name, padding, _)| name.len() + padding);
    fields
        .into_iter()
        .enumerate()
        .map(|(i, (run, padding, plain))| {
            let name = match (plain, width) {
                (false, Some(w)) if i > 0 && w > padding && w - padding <= run.len() => {
                    run[run.len() - (w - padding)..].to_string()
                }
                _ => run,
            };
            Item {
                value: i as i32,
                name,
            }
        })
        .filter(|item| !item.name.is_empty())
        .collect()
}

/// The algorithms found by [`discover`], with their registry entries.
#[derive(Default)]
struct Discovered {
    algorithms: Vec<Algorithm>,
    competitors: Vec<Competitor>,
    /// Why there are none, when there are none.
    none: Option<String>,
}

static DISCOVERED: OnceLock<Discovered> = OnceLock::new();

thread_local! {
    /// The session that keeps MPI_T up from the discovery to [`end`]
    /// (MPI is used from the main thread alone).
    static SESSION: std::cell::RefCell<Option<Session>> = const { std::cell::RefCell::new(None) };
    /// Whether the family may be discovered here: between [`enable`] and
    /// [`end`], in the commands that run MPI.
    static ENABLED: Cell<bool> = const { Cell::new(false) };
}

/// Lets the family be discovered when first asked for. Starting MPI_T
/// costs Open MPI 4 about 0.2 s (it registers every component's
/// variables), so a run whose input names none of the library's
/// algorithms never starts it.
pub fn enable() {
    ENABLED.with(|e| e.set(true));
}

/// Ends the discovery's MPI_T session: before MPI_Finalize (Open MPI 4.1
/// crashes in an MPI_T_finalize after it).
pub fn end() {
    ENABLED.with(|e| e.set(false));
    SESSION.with(|s| s.borrow_mut().take());
}

/// The algorithms found, discovering them on first use once enabled;
/// where MPI_T is not up or the library has none, the family is empty.
fn discovered() -> Option<&'static Discovered> {
    if let Some(d) = DISCOVERED.get() {
        return Some(d);
    }
    if !ENABLED.with(Cell::get) {
        return None;
    }
    match Session::start() {
        Ok(session) => {
            discover(&session);
            SESSION.with(|s| *s.borrow_mut() = Some(session));
        }
        // Once: a library without MPI_T has no algorithms of its own here.
        Err(e) => {
            DISCOVERED.get_or_init(|| Discovered {
                none: Some(format!("its tools interface (MPI_T) does not start: {e}")),
                ..Discovered::default()
            });
        }
    }
    DISCOVERED.get()
}

/// Finds the running library's algorithms (once per process).
fn discover(session: &Session) {
    DISCOVERED.get_or_init(|| {
        let variables = session.variables();
        let algorithms = algorithms_in(&variables);
        let none = algorithms.is_empty().then(|| why_none(&variables));
        // Registry entries are 'static like the built-in ones; these are
        // made once per process.
        let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
        let competitors = algorithms
            .iter()
            .map(|a| Competitor {
                name: leak(a.name()),
                operation: a.collective.into(),
                family: Family::Library,
                guideline: leak(format!(
                    "the library's choice ⪯ its own {} algorithm",
                    a.item
                )),
                description: leak(format!("{} = {} ({})", a.variable, a.value, a.item)),
            })
            .collect();
        Discovered {
            algorithms,
            competitors,
            none,
        }
    });
}

/// The family's registry entries: the running library's algorithms.
pub fn competitors() -> &'static [Competitor] {
    discovered().map_or(&[], |d| &d.competitors)
}

/// Why the running library offers no algorithm pgcheck can force, when
/// it offers none (discovering them).
pub fn none_here() -> Option<String> {
    discovered().and_then(|d| d.none.clone())
}

/// The algorithms found so far, without discovering them: what the run's
/// record keeps (none when its input named none).
pub fn algorithms() -> &'static [Algorithm] {
    DISCOVERED.get().map_or(&[], |d| &d.algorithms)
}

/// The algorithm behind a registry entry.
pub fn algorithm(name: &str) -> Option<&'static Algorithm> {
    discovered()?.algorithms.iter().find(|a| a.name() == name)
}

/// Prepares the library algorithm `name` for `setup.shape`.
pub fn prepare<T: Element>(name: &str, setup: &Setup) -> Result<Call<T>, NotApplicable> {
    prepare_switched(name, setup).map(|(call, _)| call)
}

/// MPICH's algorithm variable, forced for a chunk of calls.
struct MpichSwitch {
    // Fields drop in order: the handle before its session.
    handle: Handle,
    _session: Session,
    value: i32,
    previous: i32,
    entered: Cell<bool>,
}

impl MpichSwitch {
    fn write(&self, value: i32) {
        if self.handle.write(value).is_err() {
            panic!("cannot set {} to {value}", self.handle.name);
        }
    }
}

impl Hooks for MpichSwitch {
    fn enter(&self) {
        self.write(self.value);
        self.entered.set(true);
    }

    fn leave(&self) {
        self.write(self.previous);
        self.entered.set(false);
    }
}

/// [`prepare`], with MPICH's variable as [`Hooks`]: the harness writes it
/// around a chunk of timed calls rather than each call around itself.
#[allow(clippy::type_complexity)]
pub fn prepare_switched<T: Element>(
    name: &str,
    setup: &Setup,
) -> Result<(Call<T>, Option<Rc<dyn Hooks>>), NotApplicable> {
    let algorithm = algorithm(name)
        .ok_or_else(|| NotApplicable(format!("{name} is not an algorithm of this library")))?;
    if let Some(why) = restriction(algorithm, &setup.shape) {
        return Err(NotApplicable(why));
    }
    let no = |e: crate::mpit::Error| NotApplicable(format!("{}: {e}", algorithm.variable));
    // Nested in the run's own session; keeps MPI_T up while the call lives.
    let session = Session::start().map_err(no)?;
    match algorithm.library {
        Library::OpenMpi => {
            let comm = open_mpi_communicator(&session, algorithm, setup)?;
            let call = native::prepare(&Setup {
                comm: Rc::new(comm),
                ..setup.clone()
            });
            Ok((call, None))
        }
        Library::Mpich => {
            let handle = session
                .variable(&algorithm.variable)
                .and_then(|v| v.handle(&session))
                .map_err(no)?;
            // Writing must work now, or the call would measure `default`.
            let check = handle
                .set(algorithm.value)
                .map_err(no)
                .and_then(|o| o.restore().map_err(NotApplicable));
            agree(setup, check)?;
            let previous = handle.read().map_err(no)?;
            let mut call = native::prepare::<T>(setup);
            let switch = Rc::new(MpichSwitch {
                handle,
                _session: session,
                value: algorithm.value,
                previous,
                entered: Cell::new(false),
            });
            let of_call = switch.clone();
            let run: Call<T> = Box::new(move |send, recv| {
                if of_call.entered.get() {
                    call(send, recv);
                } else {
                    of_call.enter();
                    call(send, recv);
                    of_call.leave();
                }
            });
            Ok((run, Some(switch as Rc<dyn Hooks>)))
        }
    }
}

/// Why `algorithm` cannot run on `shape`, where the library answers with
/// an error or a failed assertion (fatal either way) rather than falling
/// back to another algorithm.
fn restriction(algorithm: &Algorithm, shape: &crate::collective::Shape) -> Option<String> {
    let p = shape.size;
    let uneven = shape.counts.windows(2).any(|w| w[0] != w[1]);
    match (
        algorithm.library,
        algorithm.collective,
        algorithm.item.as_str(),
    ) {
        (Library::OpenMpi, _, "two_proc") if p != 2 => Some(format!(
            "Open MPI's two_proc algorithm runs on 2 processes only, not {p}"
        )),
        (
            Library::Mpich,
            Collective::ReduceScatter | Collective::ReduceScatterBlock,
            "noncommutative",
        ) if !p.is_power_of_two() || uneven => Some(format!(
            "MPICH's noncommutative algorithm needs a power-of-two number of processes \
                 (not {p}) and equal blocks"
        )),
        _ => None,
    }
}

/// A duplicate of the check's communicator that Open MPI's tuned component
/// set up with `algorithm` forced; every variable is back as it was.
fn open_mpi_communicator(
    session: &Session,
    algorithm: &Algorithm,
    setup: &Setup,
) -> Result<mpi::topology::SimpleCommunicator, NotApplicable> {
    let no = |e: crate::mpit::Error| NotApplicable(format!("{}: {e}", algorithm.variable));
    let dynamic = session
        .variable(DYNAMIC_RULES)
        .and_then(|v| v.handle(session))
        .map_err(no)?;
    let forced = session
        .variable(&algorithm.variable)
        .and_then(|v| v.handle(session))
        .map_err(no)?;
    // Dynamic rules on (already, or switched on here: Open MPI 5), then the
    // algorithm; every rank must agree before the collective duplicate.
    let dynamic_on = match dynamic.read().map_err(no)? {
        0 => dynamic
            .set(1)
            .map(Some)
            .map_err(|_| NotApplicable(NEEDS_DYNAMIC_RULES.into())),
        _ => Ok(None),
    };
    let dynamic_on = agree(setup, dynamic_on)?;
    let forcing = agree(setup, forced.set(algorithm.value).map_err(no))?;
    let comm = setup.comm.duplicate();
    let restored = forcing
        .restore()
        .and_then(|()| dynamic_on.map_or(Ok(()), |o| o.restore()));
    agree(setup, restored.map_err(NotApplicable))?;
    Ok(comm)
}

/// `local` if every rank of the check succeeded, else the first failure
/// (this rank's, or a word that another failed): preparing a candidate is
/// collective, so all ranks must take the same way.
fn agree<V>(setup: &Setup, local: Result<V, NotApplicable>) -> Result<V, NotApplicable> {
    // Over point-to-point trees: the library's allreduce may be under test.
    let mut all = [local.is_ok() as i32];
    algorithms::tree::all_reduce(&setup.comm, &mut all, &mut [0], |a, b| {
        a[0] = a[0].min(b[0])
    });
    match (local, all[0]) {
        (Ok(v), 1) => Ok(v),
        (Ok(_), _) => Err(NotApplicable(
            "another rank could not switch the algorithm".into(),
        )),
        (Err(e), _) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn variable(name: &str, description: &str, items: Option<&[(i32, &str)]>) -> Variable {
        Variable {
            index: 0,
            name: name.into(),
            description: description.into(),
            items: items.map(|items| {
                items
                    .iter()
                    .map(|&(value, name)| Item {
                        value,
                        name: name.into(),
                    })
                    .collect()
            }),
        }
    }

    fn names(items: &[Item]) -> Vec<(i32, &str)> {
        items.iter().map(|i| (i.value, i.name.as_str())).collect()
    }

    #[test]
    fn intel_mpi_is_told_apart_from_a_library_without_known_variables() {
        // Intel MPI 2021.19's variable (impi_info -v I_MPI_ADJUST_ALLREDUCE).
        let intel = [variable(
            "MPIR_CVAR_USE_ALLREDUCE",
            "Control selection of MPI_Allreduce algorithm presets. Arguments <presetid> - \
             Preset identifier range: 0-32 @Alias:# I_MPI_ADJUST_ALLREDUCE @Default:# -1",
            None,
        )];
        assert_eq!(none_in(&intel).as_deref(), Some(INTEL_MPI_SELECTS_AT_INIT));
        let unknown = [variable("btl_tcp_if_include", "", None)];
        assert!(none_in(&unknown)
            .unwrap()
            .contains("no algorithm variable pgcheck knows"));
        let open_mpi = [
            variable(DYNAMIC_RULES, "", None),
            variable(
                "coll_tuned_allreduce_algorithm",
                "",
                Some(&[(0, "ignore"), (4, "ring")]),
            ),
        ];
        assert_eq!(none_in(&open_mpi), None);
    }

    const JSON: &str = "Internal algorithm selection (can be overridden with \
                        MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)";

    #[test]
    fn mpich_items_come_from_the_description_as_mpich_4_gives_it() {
        // MPICH 4.0.2's descriptions, as MPI_T_cvar_get_info returns them.
        let allreduce = format!(
            "Variable to select allreduce algorithmauto - {JSON}nb                       - Force \
             nonblocking algorithmsmp                      - Force smp algorithmrecursive_doubling \
                   - Force recursive doubling algorithmreduce_scatter_allgather - Force reduce \
             scatter allgather algorithm"
        );
        assert_eq!(
            names(&mpich_items(&allreduce)),
            [
                (0, "auto"),
                (1, "nb"),
                (2, "smp"),
                (3, "recursive_doubling"),
                (4, "reduce_scatter_allgather")
            ]
        );
        let bcast = format!(
            "Variable to select bcast algorithmauto - {JSON}binomial                                \
             - Force Binomial Treenb                                      - Force nonblocking \
             algorithmsmp                                     - Force smp \
             algorithmscatter_recursive_doubling_allgather    - Force Scatter Recursive-Doubling \
             Allgatherscatter_ring_allgather                  - Force Scatter Ring"
        );
        assert_eq!(
            names(&mpich_items(&bcast)),
            [
                (0, "auto"),
                (1, "binomial"),
                (2, "nb"),
                (3, "smp"),
                (4, "scatter_recursive_doubling_allgather"),
                (5, "scatter_ring_allgather")
            ]
        );
        let gather = format!(
            "Variable to select gather algorithmauto - {JSON}binomial - Force binomial algorithmnb \
                   - Force nonblocking algorithm"
        );
        assert_eq!(
            names(&mpich_items(&gather)),
            [(0, "auto"), (1, "binomial"), (2, "nb")]
        );
        assert!(mpich_items("Some other variable - with a dash").is_empty());
    }

    #[test]
    fn open_mpi_algorithms_come_from_the_enumerations_without_ignore() {
        let variables = [
            variable(DYNAMIC_RULES, "", Some(&[(0, "false"), (1, "true")])),
            variable(
                "coll_tuned_allreduce_algorithm",
                "",
                Some(&[(0, "ignore"), (3, "recursive_doubling"), (4, "ring")]),
            ),
            variable(
                "coll_tuned_reduce_algorithm",
                "",
                Some(&[(0, "ignore"), (6, "in-order_binary")]),
            ),
            variable(
                "coll_tuned_alltoallv_algorithm",
                "",
                Some(&[(1, "basic_linear")]),
            ),
        ];
        let found = algorithms_in(&variables);
        let names: Vec<(String, i32)> = found.iter().map(|a| (a.name(), a.value)).collect();
        assert_eq!(
            names,
            [
                ("allreduce_as_library_recursive_doubling".to_string(), 3),
                ("allreduce_as_library_ring".to_string(), 4),
                ("reduce_as_library_in_order_binary".to_string(), 6),
            ]
        );
        assert!(found.iter().all(|a| a.library == Library::OpenMpi));
        assert_eq!(found[0].variable, "coll_tuned_allreduce_algorithm");
    }

    #[test]
    fn mpich_algorithms_are_named_after_the_collective_without_auto() {
        let description = format!(
            "Variable to select reduce_scatter_block algorithmauto - {JSON}noncommutative     - \
             Force noncommutative algorithmpairwise           - Force pairwise algorithm"
        );
        let variables = [
            variable("MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM", "", None),
            variable(
                "MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM",
                &description,
                None,
            ),
        ];
        let found = algorithms_in(&variables);
        let names: Vec<(String, i32)> = found.iter().map(|a| (a.name(), a.value)).collect();
        assert_eq!(
            names,
            [
                (
                    "reducescatterblock_as_library_noncommutative".to_string(),
                    1
                ),
                ("reducescatterblock_as_library_pairwise".to_string(), 2),
            ]
        );
        assert_eq!(found[0].library, Library::Mpich);
    }

    #[test]
    fn a_library_without_tuning_variables_has_no_algorithms() {
        let variables = [variable(
            "coll_tuned_allreduce_algorithm",
            "",
            Some(&[(4, "ring")]),
        )];
        assert!(algorithms_in(&variables).is_empty());
    }
}
