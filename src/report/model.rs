//! The report's format-neutral content, computed once and shown by every
//! format: the overview grid's marks, the per-collective rows (MPINPC's
//! Figure 2), the candidates ranked (its Figure 5), titles, verdict lines,
//! notes, and how numbers are written.

use crate::analyse::guidelines::Finding;
use crate::analyse::state::StateSplit;
use crate::analyse::{
    CandidateSummary, CaseKey, Conclusion, NoiseVerdict, Outcome, Results, Severity, Verdict,
};
use crate::analyse::{Correction, Test};
use crate::candidates::native::is_library_call;
use crate::meta::Meta;
use crate::operation::Operation;
use crate::stats::usual::Model;
use crate::stats::{describe, power};

/// Seconds in the unit that suits them: `12.34 µs`, `1.234 ms`.
pub fn seconds(s: f64) -> String {
    match s {
        s if s.is_nan() => "-".into(),
        s if s < 1e-3 => format!("{:.2} µs", s * 1e6),
        s if s < 1.0 => format!("{:.3} ms", s * 1e3),
        s => format!("{s:.3} s"),
    }
}

/// Who a failed verification is about: the library, or a competitor.
pub fn who_failed(candidate: &str) -> String {
    match candidate {
        name if is_library_call(name) => "the library's collective is wrong".into(),
        name => format!("{name} failed verification"),
    }
}

/// One side of a baseline comparison: `holds`, or `violated by NAME
/// (1.786×, medium-high)`, the name without its collective's prefix.
pub fn violation_side(side: &crate::analyse::baseline::Side, operation: Operation) -> String {
    match (&side.violated_by, side.slowdown) {
        (Some(by), Some(s)) => format!(
            "{} by {} ({s:.3}×, {})",
            side.verdict.label(),
            short_name(operation, by),
            side.severity.label()
        ),
        _ => side.verdict.label().into(),
    }
}

/// What a reader of the baseline section needs before its table: how
/// `default` was compared, why that may be weak, and the machine's shift.
pub fn baseline_notes(b: &crate::analyse::baseline::Comparison) -> Vec<String> {
    let mut notes = Vec::new();
    if !b.method.is_empty() {
        notes.push(format!("Compared {}.", b.method));
    }
    if let Some(warning) = &b.warning {
        notes.push(format!("Warning: {warning}."));
    }
    if let Some(shift) = b.shift {
        let moved = format!(
            "every candidate's median {:.2}× the baseline launches' (p = {:.2e})",
            shift.factor, shift.p_value
        );
        notes.push(match shift.significant {
            true => format!(
                "Shift of the whole machine: {moved}; a change of the machine's state or of \
                 the whole library, not of one collective, and taken out of each case's ratio."
            ),
            false => format!("No shift of the whole machine: {moved}."),
        });
    }
    if let Some(note) = detectable_note(b) {
        notes.push(note);
    }
    if let Some(state) = b.machine_state {
        let numbers = format!(
            "its calibration took {}, the baseline launches' {}–{}",
            seconds(state.calibration_s),
            seconds(state.baseline_low_s),
            seconds(state.baseline_high_s)
        );
        notes.push(match state.new {
            true => format!(
                "A machine state the baseline never had: {numbers}; a verdict or ratio that \
                 differs from theirs may be the state's, not the library's."
            ),
            false => format!("Machine state as in the baseline launches: {numbers}."),
        });
    }
    notes
}

/// How large a regression must be before the spread between the baseline
/// launches lets the gate show it: the median case and the worst.
fn detectable_note(b: &crate::analyse::baseline::Comparison) -> Option<String> {
    let detectable: Vec<(f64, &crate::analyse::baseline::Change)> = b
        .changes
        .iter()
        .filter_map(|c| Some((c.detectable?, c)))
        .collect();
    let (worst, case) = detectable.iter().max_by(|a, b| a.0.total_cmp(&b.0))?;
    let median = describe::median(&detectable.iter().map(|d| d.0).collect::<Vec<_>>());
    Some(format!(
        "Against the spread between the baseline launches, a regression shows from \
         {median:.2}× in the median case, from {worst:.2}× at {} (the worst); a smaller one \
         stays hidden there, whatever the budget.",
        title_of(&case.key)
    ))
}

/// A regression's ratio and p-value as the comparison decided them: after
/// the shift and corrected across cases where it had several launches.
pub fn regression_numbers(c: &crate::analyse::baseline::Change) -> (String, String) {
    (
        format!("{:.3}", c.judged_ratio()),
        format!("{:.2e}", c.p_adjusted.unwrap_or(c.p_value)),
    )
}

/// What still beats `default` in a case violated now: a library algorithm
/// (tuning can still help) or only a new algorithm.
pub fn violation_note(change: &crate::analyse::baseline::ViolationChange) -> String {
    let short = |name: &str| short_name(change.key.operation, name);
    match (
        &change.library_competitor,
        &change.new_algorithm_family,
        &change.now.violated_by,
    ) {
        (Some(library), _, _) => format!(
            "library algorithm {} still {:.3}× faster",
            short(library),
            change.library_slowdown.unwrap_or(f64::NAN)
        ),
        (None, Some(family), Some(by)) => {
            format!(
                "only a new algorithm beats the library: {} ({family})",
                short(by)
            )
        }
        _ => String::new(),
    }
}

/// What one cell of the grid shows. Ordered from least to most telling, so
/// that the worst of several checks in one cell is the maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// No check of this collective at this size.
    Blank,
    /// The severity of a violation; `Severity::Ok` where the guideline holds.
    Severity(Severity),
    /// Neither violated nor shown to hold.
    Inconclusive,
    /// Checked, but the default was never measured (interrupted or excluded).
    Unmeasured,
    /// The library's own collective failed verification.
    Wrong,
}

impl Mark {
    /// A check's mark, from its verdict.
    pub fn of(check: &Verdict) -> Mark {
        match check.conclusion {
            Conclusion::LibraryWrong => Mark::Wrong,
            Conclusion::Unmeasured => Mark::Unmeasured,
            Conclusion::Inconclusive => Mark::Inconclusive,
            Conclusion::Holds | Conclusion::Violated => Mark::Severity(check.severity),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Mark::Blank => "",
            Mark::Unmeasured => "n/a",
            Mark::Inconclusive => "inconclusive",
            Mark::Wrong => "WRONG",
            Mark::Severity(s) => s.label(),
        }
    }

    /// Position from least to most telling.
    fn weight(self) -> u8 {
        match self {
            Mark::Blank => 0,
            Mark::Severity(Severity::Ok) => 1,
            Mark::Inconclusive => 2,
            Mark::Unmeasured => 3,
            Mark::Severity(s) => 3 + s as u8,
            Mark::Wrong => 10,
        }
    }
}

impl Ord for Mark {
    fn cmp(&self, other: &Mark) -> std::cmp::Ordering {
        self.weight().cmp(&other.weight())
    }
}

impl PartialOrd for Mark {
    fn partial_cmp(&self, other: &Mark) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One row of the grid: a collective (and its root when a run checked
/// several roots of it), one mark per size of [`Overview::sizes`].
pub struct Row {
    pub label: String,
    pub marks: Vec<Mark>,
    /// Per size: the slowdown the mark stands for, the largest of the
    /// checks that carry it; None where they have none.
    pub slowdowns: Vec<Option<f64>>,
    /// Per size: a competitor failed verification there.
    pub wrong: Vec<bool>,
}

/// The grid's content, shared by the text, Markdown and SVG renderers.
pub struct Overview {
    /// Every size any check used, ascending.
    pub sizes: Vec<u64>,
    /// In `Operation::all` order, only the operations present.
    pub rows: Vec<Row>,
}

/// The grid of a run. A cell holding several checks (other datatypes or
/// operators) shows the worst of them.
pub fn overview(results: &Results) -> Overview {
    let mut sizes: Vec<u64> = results.checks.iter().map(|c| c.key.size_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for (collective, checks) in by_operation(results) {
        let root_of = |c: &Verdict| collective.is_rooted().then_some(c.key.root);
        let mut roots: Vec<Option<usize>> = checks.iter().map(|c| root_of(c)).collect();
        roots.sort_unstable();
        roots.dedup();
        let several_roots = roots.len() > 1;
        for root in roots {
            let label = match root {
                Some(r) if several_roots => format!("{} root {r}", collective.name()),
                _ => collective.name().to_string(),
            };
            let in_cell = |size: u64| {
                checks
                    .iter()
                    .filter(move |c| c.key.size_bytes == size && root_of(c) == root)
            };
            let marks: Vec<Mark> = sizes
                .iter()
                .map(|&size| {
                    in_cell(size)
                        .map(|c| Mark::of(c))
                        .fold(Mark::Blank, Mark::max)
                })
                .collect();
            let slowdowns = sizes
                .iter()
                .zip(&marks)
                .map(|(&size, &mark)| {
                    in_cell(size)
                        .filter(|c| Mark::of(c) == mark)
                        .filter_map(|c| c.slowdown)
                        .max_by(f64::total_cmp)
                })
                .collect();
            let wrong = sizes
                .iter()
                .map(|&size| {
                    in_cell(size).any(|c| {
                        c.candidates
                            .iter()
                            .any(|c| c.outcome.is_wrong() && !is_library_call(&c.name))
                    })
                })
                .collect();
            rows.push(Row {
                label,
                marks,
                slowdowns,
                wrong,
            });
        }
    }
    Overview { sizes, rows }
}

/// The checks of each operation present, in `Operation::all` order: one
/// table or grid row group each.
pub fn by_operation(results: &Results) -> Vec<(Operation, Vec<&Verdict>)> {
    Operation::all()
        .map(|operation| {
            let checks = results
                .checks
                .iter()
                .filter(|c| c.key.operation == operation)
                .collect();
            (operation, checks)
        })
        .filter(|(_, checks): &(Operation, Vec<&Verdict>)| !checks.is_empty())
        .collect()
}

/// A case's size as reports show it: `—` where its operation has none
/// (barrier), else [`size_label`].
pub fn case_size_label(key: &crate::case::CaseKey) -> String {
    match key.operation.collective.has_size() {
        true => size_label(key.size_bytes),
        false => "—".into(),
    }
}

/// A size as people write it: `8 B`, `1000 B`, `8 KiB`, `10 kB`, `1 MiB`.
/// Exact only: a size that is no whole multiple of a unit stays in bytes.
pub fn size_label(bytes: u64) -> String {
    // (unit, smallest size shown in it, name): 10 kB but 1000 B, because
    // small decimal sizes read better in bytes.
    const UNITS: [(u64, u64, &str); 6] = [
        (1 << 30, 1 << 30, "GiB"),
        (1_000_000_000, 1_000_000_000, "GB"),
        (1 << 20, 1 << 20, "MiB"),
        (1_000_000, 1_000_000, "MB"),
        (1 << 10, 1 << 10, "KiB"),
        (1000, 10_000, "kB"),
    ];
    UNITS
        .iter()
        .find(|&&(unit, smallest, _)| bytes >= smallest && bytes.is_multiple_of(unit))
        .map(|&(unit, _, name)| format!("{} {name}", bytes / unit))
        .unwrap_or_else(|| format!("{bytes} B"))
}

/// A candidate's name under its collective's heading: without the
/// collective's prefix (`reduce_bcast` under MPI_Allreduce). Machine
/// formats keep the whole name.
pub fn short_name(operation: Operation, name: &str) -> String {
    [operation.name(), operation.prefix()]
        .iter()
        .find_map(|prefix| name.strip_prefix(prefix.as_str())?.strip_prefix("_as_"))
        .unwrap_or(name)
        .to_string()
}

/// What the per-collective table's columns mean, under the settings.
pub const SLOWDOWN: &str = "slowdown = default's median / the competitor's (each the median of \
     its per-round medians, a round weighted alike for every candidate); with the paired test, \
     the median of the rounds' ratios; \
     verdict: violated · severity, holds, or inconclusive (≥ s×): this run could flag only \
     slowdowns of at least s×";

/// The verdict in one word and what qualifies it: `violated · medium-high`,
/// `holds`, `inconclusive (≥ 1.45×)` (the smallest slowdown this run could
/// have flagged), `inconclusive (powerless)`, `inconclusive (timer)`.
pub fn verdict_label(check: &Verdict) -> String {
    match check.conclusion {
        Conclusion::Violated => format!("violated · {}", check.severity.label()),
        Conclusion::Inconclusive if check.timer_bound => "inconclusive (timer)".into(),
        Conclusion::Inconclusive => match (check.sensitivity, check.powerless) {
            (Some(s), _) => format!("inconclusive (≥ {})", factor(s)),
            (None, true) => "inconclusive (powerless)".into(),
            (None, false) => "inconclusive".into(),
        },
        conclusion => conclusion.label().into(),
    }
}

/// A factor to three figures at least: `1.07×`, `23.4×`, `124×`.
fn factor(s: f64) -> String {
    match s {
        s if s < 10.0 => format!("{s:.2}×"),
        s if s < 100.0 => format!("{s:.1}×"),
        s => format!("{s:.0}×"),
    }
}

/// The smallest slowdown the case could have flagged: `1.07×`, or `none`
/// when the rounds could not give a significant result.
pub fn sensitivity(check: &Verdict) -> String {
    match (check.sensitivity, check.powerless) {
        (Some(s), _) => format!("{s:.2}×"),
        (None, true) => "none".into(),
        (None, false) => "-".into(),
    }
}

/// Nodes by processes per node: `1 node × 2 ppn`, `2 nodes × 4 ppn`.
pub fn node_layout(nodes: usize, ppn: usize) -> String {
    let s = if nodes == 1 { "" } else { "s" };
    format!("{nodes} node{s} × {ppn} ppn")
}

/// The library and its version from `MPI_Get_library_version`'s text:
/// its first line up to the first comma, without the word `Version:`.
/// `Open MPI v4.1.4, package: …` → `Open MPI v4.1.4`;
/// `MPICH Version:      4.0.2` → `MPICH 4.0.2`.
pub fn library_name(version: &str) -> String {
    let first = version.lines().next().unwrap_or("");
    let first = first.split(',').next().unwrap_or("");
    let words: Vec<&str> = first
        .split_whitespace()
        .filter(|w| !w.eq_ignore_ascii_case("version:"))
        .collect();
    match words.is_empty() {
        true => "MPI".into(),
        false => words.join(" "),
    }
}

/// What a note on a case is about; the compact terminal report keeps the
/// first two kinds case by case and summarises the others once per run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum NoteKind {
    /// A candidate failed verification.
    Wrong,
    /// The case has no verdict: `default` was not measured.
    Unmeasured,
    /// Competitors left out for `--max-memory`.
    Memory,
    /// Late starts discarded more than [`LATE_WARNING`].
    Late,
    /// Rounds set aside as disturbed.
    Disturbed,
    /// One state of the machine reverses the verdict.
    State,
    /// What would decide an inconclusive case.
    Inconclusive,
}

/// One note on one case.
#[derive(Clone, Debug, PartialEq)]
pub struct Note {
    pub kind: NoteKind,
    pub text: String,
}

/// The notes under a collective's table, a line per case and kind: every
/// candidate that failed verification, every case without a verdict,
/// late starts above [`LATE_WARNING`] with what to do, the rounds set
/// aside as disturbed, and what would decide an inconclusive case.
pub fn notes(meta: &Meta, checks: &[&Verdict]) -> Vec<String> {
    checks
        .iter()
        .flat_map(|check| case_notes(meta, check))
        .map(|note| note.text)
        .collect()
}

/// [`notes`] of one case, each with its kind.
pub fn case_notes(meta: &Meta, check: &Verdict) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut note = |kind, text| notes.push(Note { kind, text });
    let case = format!("{} B", check.key.size_bytes);
    let collective = check.key.operation;
    for c in check.candidates.iter().filter(|c| c.outcome.is_wrong()) {
        let (who, why) = (who_failed(&c.name), c.outcome.reason());
        note(
            NoteKind::Wrong,
            format!("! {case}: {who}: {}", why.unwrap_or("")),
        );
    }
    if let Some(skipped) = skipped_for_memory(check) {
        note(NoteKind::Memory, format!("{case}: skipped: {skipped}"));
    }
    let late: Vec<String> = check
        .candidates
        .iter()
        .filter(|c| c.invalid_share() > LATE_WARNING)
        .map(|c| {
            format!(
                "{} {:.0} %",
                short_name(collective, &c.name),
                100.0 * c.invalid_share()
            )
        })
        .collect();
    if !late.is_empty() {
        note(
            NoteKind::Late,
            format!(
                "{case}: {} ({}), {}",
                late_starts_words(),
                late.join(", "),
                late_consequence(meta)
            ),
        );
    }
    if let Some(disturbed) = &check.disturbed {
        note(
            NoteKind::Disturbed,
            format!("{case}: disturbed, set aside: {}", disturbed.describe()),
        );
    }
    if let Some(split) = &check.state {
        note(
            NoteKind::State,
            format!(
                "{case}: the verdict depends on the machine's state: {}",
                state_slowdowns(collective, split)
            ),
        );
    }
    if check.conclusion == Conclusion::Unmeasured {
        note(
            NoteKind::Unmeasured,
            format!(
                "! {case}: no verdict, default not measured: {}",
                check.reason.as_deref().unwrap_or("")
            ),
        );
    }
    if check.conclusion == Conclusion::Inconclusive {
        note(
            NoteKind::Inconclusive,
            format!("{case}: inconclusive: {}", to_decide(meta, check)),
        );
    }
    notes
}

/// `slowdown 1.30 against reduce_bcast in its 14 rounds in the slow state
/// (…), 0.80 in its 26 in the fast state (…); …`: a state-dependent case
/// in each state.
pub fn state_slowdowns(operation: Operation, split: &StateSplit) -> String {
    format!(
        "slowdown {:.2} against {} in its {} rounds in the slow state (a control-plane barrier \
         of {}), {:.2} in its {} in the fast state ({}; p = {:.1e}); the verdict is this run's \
         mix of the two",
        split.slow.slowdown,
        short_name(operation, &split.competitor),
        split.slow.rounds,
        seconds(split.slow.calibration_s),
        split.fast.slowdown,
        split.fast.rounds,
        seconds(split.fast.calibration_s),
        split.p_value,
    )
}

/// The competitors left out for memory and why (otherwise only the
/// details and report.md said why a competitor is missing from the
/// table); None where there are none or the case has no verdict.
fn skipped_for_memory(check: &Verdict) -> Option<String> {
    let for_memory: Vec<(String, &str)> = check
        .candidates
        .iter()
        .filter_map(|c| match &c.outcome {
            Outcome::Skipped(why) if why.contains("--max-memory") => {
                Some((short_name(check.key.operation, &c.name), why.as_str()))
            }
            _ => None,
        })
        .collect();
    let (_, why) = for_memory.first()?;
    let names: Vec<&str> = for_memory.iter().map(|(name, _)| name.as_str()).collect();
    (check.conclusion != Conclusion::Unmeasured).then(|| format!("{}: {why}", names.join(", ")))
}

/// What a late-start note says happened.
pub fn late_starts_words() -> String {
    format!(
        "late starts discarded more than {:.0} % of the observations",
        100.0 * LATE_WARNING
    )
}

/// What follows from late starts, and what lowers them.
pub fn late_consequence(meta: &Meta) -> String {
    format!(
        "which may favour calls that started on time: {}",
        late_advice(meta)
    )
}

/// Above this share of late starts a candidate's case gets a note: its
/// sample may be biased towards calls that happened to start on time. The
/// roundtime slots are sized to stay below it.
pub const LATE_WARNING: f64 = crate::settings::LATE_CAP;

/// What lowers late starts on this run's machine.
fn late_advice(meta: &Meta) -> String {
    let mut advice = Vec::new();
    if meta.placement.oversubscribed() {
        advice.push(format!(
            "fewer ranks per core ({} ranks share {} CPUs)",
            meta.placement.most_ranks_on_a_node, meta.placement.cpus_on_that_node
        ));
    } else {
        advice.push("a quieter machine".to_string());
    }
    if meta.sync == "roundtime" {
        advice.push(
            "--sync barrier (no late starts, but it flatters one-way collectives)".to_string(),
        );
    }
    advice.join(", or ")
}

/// What would decide an inconclusive case, predicted from its
/// competitors' sensitivities.
///
/// A competitor is undecided when neither its test of "more than the
/// margin m faster" nor that of "less than m faster" is significant. Its
/// sensitivity S is the smallest slowdown its test would have flagged;
/// for the rank tests on per-round medians (`rounds`, `paired`, `sign`)
/// the detectable distance ln(S/m) shrinks like 1/√rounds when each round
/// keeps its time (its median keeps its spread). Its observed slowdown s
/// is then decided at about rounds × (ln(S/m) / |ln(s/m)|)², with the
/// budget grown alike. The case is violated as soon as one competitor with
/// s > m is decided, and holds once every one is.
pub fn to_decide(meta: &Meta, check: &Verdict) -> String {
    if check.timer_bound {
        return check
            .reason
            .clone()
            .unwrap_or_else(|| "the medians are too few timer ticks apart".into());
    }
    let m = meta.margin;
    let undecided = undecided(meta, check);
    if undecided.iter().any(|c| c.sensitivity.is_none()) {
        return too_few_rounds(meta, check);
    }
    let Some((rounds, shown)) = deciding(meta, &undecided) else {
        return "not every competitor was measured".into();
    };
    let at = format!(
        "{} at {:.3}× against the margin {m}",
        short_name(check.key.operation, &shown.name),
        shown.slowdown.unwrap_or(f64::NAN)
    );
    if !rounds.is_finite() || rounds > power::MAX_ROUNDS as f64 {
        return format!(
            "{at}: too close to the margin to decide within {} rounds",
            power::MAX_ROUNDS
        );
    }
    more_rounds(meta, &at, rounds)
}

/// The competitors neither test decided.
fn undecided<'a>(meta: &Meta, check: &'a Verdict) -> Vec<&'a CandidateSummary> {
    check
        .measured_competitors()
        .filter(|c| c.p_value.is_some() && !c.significant)
        .filter(|c| !c.p_equivalence.is_some_and(|p| p < meta.alpha))
        .collect()
}

/// The rounds that would decide an inconclusive case, as [`to_decide`]
/// predicts them; None where more rounds would not (a coarse timer, a
/// competitor without sensitivity, a slowdown too close to the margin).
pub fn rounds_to_decide(meta: &Meta, check: &Verdict) -> Option<usize> {
    let undecided = undecided(meta, check);
    if check.timer_bound || undecided.iter().any(|c| c.sensitivity.is_none()) {
        return None;
    }
    let (rounds, _) = deciding(meta, &undecided)?;
    (rounds.is_finite() && rounds <= power::MAX_ROUNDS as f64)
        .then(|| (rounds.ceil() as usize).max(meta.rounds + 1))
}

/// Where no slowdown could be flagged at all: the rounds the test and
/// correction need for their smallest p-value to pass, when they can.
fn too_few_rounds(meta: &Meta, check: &Verdict) -> String {
    let needed = <Test as clap::ValueEnum>::from_str(&meta.test, true)
        .ok()
        .zip(<Correction as clap::ValueEnum>::from_str(&meta.correction, true).ok())
        .and_then(|(test, correction)| {
            let competitors = check.measured_competitors().count().max(1);
            let threshold = correction.first_threshold(meta.alpha, competitors);
            test.min_p(1)?;
            power::rounds_needed(|r| test.min_p(r).unwrap_or(1.0), threshold)
        });
    match needed {
        Some(r) => format!(
            "no slowdown could be flagged with {} rounds; the test needs at least {r} (--rounds {r})",
            meta.rounds
        ),
        None => format!("no slowdown could be flagged with {} rounds", meta.rounds),
    }
}

/// The competitor that would decide the case and the rounds it needs:
/// the first to violate (s > m), else the last to hold; None when none
/// has a sensitivity and a slowdown.
fn deciding<'a>(
    meta: &Meta,
    undecided: &[&'a CandidateSummary],
) -> Option<(f64, &'a CandidateSummary)> {
    let m = meta.margin;
    let needs: Vec<(f64, bool, &CandidateSummary)> = undecided
        .iter()
        .filter_map(|c| Some((c.sensitivity?, c.slowdown?, *c)))
        .map(|(sensitivity, slowdown, c)| {
            let detectable = (sensitivity / m).ln().max(0.0);
            let distance = (slowdown / m).ln().abs();
            let scale = (detectable / distance).powi(2);
            (meta.rounds as f64 * scale, slowdown > m, c)
        })
        .collect();
    let by_rounds = |a: &&(f64, bool, &CandidateSummary), b: &&(f64, bool, &CandidateSummary)| {
        a.0.total_cmp(&b.0)
    };
    let deciding = match needs.iter().filter(|n| n.1).min_by(by_rounds) {
        Some(first) => Some(first),
        None => needs.iter().max_by(by_rounds),
    };
    deciding.map(|&(rounds, _, shown)| (rounds, shown))
}

/// `at`, and the rounds (for the tests on per-round medians) or the
/// budget that would decide it.
fn more_rounds(meta: &Meta, at: &str, rounds: f64) -> String {
    let rounds = (rounds.ceil() as usize).max(meta.rounds + 1);
    let factor = rounds as f64 / meta.rounds as f64;
    let options = options_for(meta, rounds);
    match round_test(meta) {
        true => format!(
            "{at}; about {rounds} rounds would decide it ({options}: \
             the sensitivity's distance to the margin shrinks like 1/√rounds)"
        ),
        false => {
            format!("{at}; about {factor:.1} times the observations would decide it ({options})")
        }
    }
}

/// Whether the run's test compares per-round medians (more rounds, more
/// power) rather than observations (a longer budget).
fn round_test(meta: &Meta) -> bool {
    matches!(
        <Test as clap::ValueEnum>::from_str(&meta.test, true),
        Ok(Test::Rounds | Test::Paired | Test::Sign)
    )
}

/// The options that give a run `rounds` rounds of this run's length:
/// `--rounds 22 --budget 220ms`, or `--budget 220ms` for tests that pool
/// observations.
pub fn options_for(meta: &Meta, rounds: usize) -> String {
    let budget = budget(meta.budget_s * rounds as f64 / meta.rounds as f64);
    match round_test(meta) {
        true => format!("--rounds {rounds} --budget {budget}"),
        false => format!("--budget {budget}"),
    }
}

/// A budget as `--budget` takes it: `240ms`, `1.5s`.
fn budget(s: f64) -> String {
    match s < 1.0 {
        // Rounded up, but not for the last bits of a product.
        true => format!("{:.0}ms", (s * 1e3 - 1e-6).ceil()),
        false => format!("{:.1}s", (s * 10.0 - 1e-6).ceil() / 10.0),
    }
}

/// A check's candidates: the measured ones fastest first, then the ones
/// without observations (wrong, skipped, or never measured).
pub struct Ranked<'a> {
    pub measured: Vec<&'a CandidateSummary>,
    pub unmeasured: Vec<&'a CandidateSummary>,
}

/// Ranked by the median of the per-round medians, which slowdowns
/// compare, so that a faster rank is never labelled slower.
pub fn ranked(check: &Verdict) -> Ranked<'_> {
    let (mut measured, unmeasured): (Vec<_>, Vec<_>) =
        check.candidates.iter().partition(|c| median(c).is_some());
    // Stable, so that equal medians keep the order the run listed them in.
    measured.sort_by(|a, b| {
        median(a)
            .partial_cmp(&median(b))
            .expect("medians are numbers")
    });
    Ranked {
        measured,
        unmeasured,
    }
}

/// The median a candidate is ranked and shown by: of its per-round
/// medians; of all observations only in results without them.
pub fn median(candidate: &CandidateSummary) -> Option<f64> {
    candidate.round_median_s.or(candidate.median_s)
}

/// The status and reason of a candidate without observations.
pub fn why_unmeasured(candidate: &CandidateSummary) -> String {
    let status = match candidate.outcome {
        Outcome::Measured => "not measured",
        ref outcome => outcome.label(),
    };
    match candidate.outcome.reason() {
        Some(reason) => format!("{status}: {reason}"),
        None => status.to_string(),
    }
}

/// What a check is: `MPI_Bcast, 8 KiB (8192 × byte), root 0`.
pub fn title(check: &Verdict) -> String {
    title_of(&check.key)
}

/// What a case is: `MPI_Gather, 8 B per process (8 × byte), root 0`.
pub fn title_of(key: &CaseKey) -> String {
    let collective = key.operation;
    let mut title = format!(
        "{}, {}{} ({} × {}",
        collective.mpi_name(),
        size_label(key.size_bytes),
        if collective.size_is_per_process() {
            " per process"
        } else {
            ""
        },
        key.count,
        key.datatype.name(),
    );
    if collective.is_reduction() {
        title += &format!(", {}", key.op.name());
    }
    title.push(')');
    if collective.is_rooted() {
        title += &format!(", root {}", key.root);
    }
    title
}

/// The verdict in words: `violated · medium-high (set by …), sensitivity
/// 1.20×`, `inconclusive (≥ 1.45×)`.
pub fn verdict_line(check: &Verdict) -> String {
    if check.default_candidate().and_then(median).is_none() {
        return "no verdict: default not measured".into();
    }
    let mut line = verdict_label(check);
    if let Some(by) = &check.violated_by {
        line += &format!(" (set by {})", short_name(check.key.operation, by));
    }
    if check.conclusion != Conclusion::Inconclusive {
        line += &format!(", sensitivity {}", sensitivity(check));
    }
    line
}

/// Whether any candidate of the check lost observations to late starts:
/// only then the `invalid` column.
pub fn has_invalid(check: &Verdict) -> bool {
    check.candidates.iter().any(|c| c.invalid > 0)
}

/// The columns of [`row`], fastest first: the order is the rank.
pub fn header(invalid: bool) -> Vec<&'static str> {
    let mut header = vec!["candidate", "median", "q1–q3", "n", "min/round"];
    if invalid {
        header.push("invalid");
    }
    header.extend(["slowdown", "p-value"]);
    header
}

/// Columns right-aligned in [`row`]: everything numeric.
pub fn is_numeric(column: &str) -> bool {
    column != "candidate"
}

/// One measured candidate: its median (of its per-round medians), the
/// quartiles of its observations, n, the fewest in a round, late starts,
/// slowdown with its marks, and the p-value the verdict used (corrected
/// within the case when it was).
pub fn row(candidate: &CandidateSummary, invalid: bool) -> Vec<String> {
    let time = |s: Option<f64>| s.map_or("-".into(), seconds);
    let quartiles = match (candidate.q1_s, candidate.q3_s) {
        (Some(q1), Some(q3)) => {
            // One unit for both, the third quartile's.
            let q3_text = seconds(q3);
            let unit = q3_text.rsplit(' ').next().unwrap_or("");
            let scale = match unit {
                "µs" => 1e6,
                "ms" => 1e3,
                _ => 1.0,
            };
            let decimals = q3_text
                .split(' ')
                .next()
                .and_then(|n| n.split('.').nth(1))
                .map_or(0, str::len);
            format!("{:.*}–{q3_text}", decimals, q1 * scale)
        }
        _ => "-".into(),
    };
    let mut row = vec![
        candidate.name.clone(),
        time(median(candidate)),
        quartiles,
        candidate.n.to_string(),
        candidate.min_round_n.to_string(),
    ];
    if invalid {
        row.push(format!("{:.1} %", 100.0 * candidate.invalid_share()));
    }
    let marks = marks(candidate);
    row.push(match (candidate.slowdown, marks.is_empty()) {
        (Some(s), true) => format!("{s:.3}"),
        (Some(s), false) => format!("{s:.3} {marks}"),
        (None, _) => "-".into(),
    });
    row.push(
        candidate
            .p_adjusted
            .or(candidate.p_value)
            .map_or("-".into(), |p| format!("{p:.2e}")),
    );
    row
}

/// `*` significantly faster than the default, `~` within the noise floor.
fn marks(candidate: &CandidateSummary) -> String {
    let mut marks = String::new();
    if candidate.significant {
        marks.push('*');
    }
    if candidate.below_noise && candidate.name != crate::candidates::native::DEFAULT {
        marks.push('~');
    }
    marks
}

/// What the marks and the slowdown mean, printed under the tables.
pub const LEGEND: &str =
    "fastest first by median: of the candidate's per-round medians; q1–q3: quartiles of all its observations; \
     min/round: the fewest observations of a round; \
     slowdown = default's median / the candidate's (paired: the median of the rounds' ratios): \
     above 1 the candidate is faster; \
     * significantly faster than default; ~ differs from default by less than the noise floor; \
     p-value: corrected within the case when the run corrected; \
     invalid: observations discarded for a late start";

/// Which universal guideline a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Universal {
    Monotony,
    SplitRobustness,
}

/// The columns of a universal-guideline finding (see [`finding_row`]).
pub const FINDING_COLUMNS: [&str; 10] = [
    "guideline",
    "collective",
    "size [B]",
    "compared with",
    "rounds",
    "default",
    "bound",
    "ratio",
    "p-value",
    "severity",
];

/// What the `rounds` column of the universal guidelines means.
pub const FINDING_ROUNDS: &str = "rounds: shared = both sizes timed in the same rounds \
     (counts for --fail-on); apart = from cases measured at different times (reported only)";

/// The universal guidelines' violations (monotony with a severity, every
/// split-robustness finding), and how many pairs of sizes monotony compared.
pub fn universal_findings(results: &Results) -> (usize, Vec<(Universal, &Finding)>) {
    let g = &results.guidelines;
    let findings = g
        .monotony
        .iter()
        .filter(|f| f.severity != Severity::Ok)
        .map(|f| (Universal::Monotony, f))
        .chain(
            g.split_robustness
                .iter()
                .map(|f| (Universal::SplitRobustness, f)),
        )
        .collect();
    (g.monotony.len(), findings)
}

/// One finding's cells after the guideline's name, up to the severity:
/// collective, size, compared with, rounds, default, bound, ratio, p-value.
pub fn finding_row(f: &Finding) -> [String; 8] {
    [
        f.key.operation.name().to_string(),
        f.key.size_bytes.to_string(),
        match f.k {
            Some(k) => format!("{k} × {} B", f.other_size_bytes),
            None => format!("{} B", f.other_size_bytes),
        },
        match f.shared_rounds {
            true => "shared".to_string(),
            false => "apart".to_string(),
        },
        seconds(f.median_s),
        seconds(f.bound_s),
        format!("{:.3}", f.ratio),
        format!("{:.2e}", f.p_value),
    ]
}

/// The noise verdict as the first lines of a report say it: a warning when
/// the run was noisy, a remark when quiet; None without a verdict.
pub fn noise_line(results: &Results) -> Option<(NoiseVerdict, String)> {
    let noise = results.meta.noise.as_ref()?;
    let line = match noise.verdict {
        NoiseVerdict::Noisy => format!("noisy run: {}", noise.reason),
        NoiseVerdict::Quiet => format!("noise: quiet: {}", noise.reason),
    };
    Some((noise.verdict, line))
}

/// The columns of [`usual_row`].
pub const USUAL_COLUMNS: [&str; 11] = [
    "candidate",
    "model",
    "λ",
    "fit p",
    "window",
    "t_min",
    "mean error",
    "t_max",
    "empirical",
    "above t_max",
    "overhead",
];

/// What the usual-time table shows, under its title.
pub fn usual_title(results: &Results) -> String {
    format!(
        "usual times (Kluge et al. 2005, q_max {}): t_max = t_min + the fitted error law's q_max quantile; empirical: the plain q_max quantile; overhead = Σ max(0, t − t_max) / Σ t",
        results.meta.qmax
    )
}

/// A candidate's usual time as a row of [`USUAL_COLUMNS`]; None without one.
/// λ: mean error in windows (Poisson), rate per second (exponential).
pub fn usual_row(candidate: &CandidateSummary) -> Option<Vec<String>> {
    let u = &candidate.usual.as_ref()?.fit;
    let lambda = match u.model {
        Model::Poisson => format!("{:.3}", u.lambda),
        Model::Exponential => format!("{:.3e}/s", u.lambda),
    };
    Some(vec![
        candidate.name.clone(),
        model_name(u.model).into(),
        lambda,
        u.fit_p.map_or("-".into(), |p| format!("{p:.2e}")),
        fine_seconds(u.window_s),
        seconds(u.tmin_s),
        fine_seconds(u.mean_error_s),
        seconds(u.tmax_s),
        seconds(u.empirical_tmax_s),
        format!("{} of {}", u.above_tmax, u.n),
        format!("{:.1} %", 100.0 * u.overhead_share),
    ])
}

pub fn model_name(model: Model) -> &'static str {
    match model {
        Model::Poisson => "poisson",
        Model::Exponential => "exponential",
    }
}

/// Seconds as [`seconds`] does, but nanoseconds below 1 µs (windows and
/// errors can be a few timer ticks).
pub fn fine_seconds(s: f64) -> String {
    match s {
        s if s.is_finite() && s < 1e-6 => format!("{:.1} ns", s * 1e9),
        s => seconds(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collective::Collective;
    use crate::report::fixture;

    #[test]
    fn a_machine_state_the_baseline_never_had_is_named() {
        use crate::analyse::baseline::{Comparison, StateAgainst};
        let with = |now: f64| Comparison {
            machine_state: StateAgainst::of(Some(now), &[Some(0.5e-6), Some(0.55e-6)]),
            ..Comparison::default()
        };
        assert_eq!(
            baseline_notes(&with(0.9e-6)),
            ["A machine state the baseline never had: its calibration took 0.90 µs, the baseline \
              launches' 0.50 µs–0.55 µs; a verdict or ratio that differs from theirs may be the \
              state's, not the library's."]
        );
        assert_eq!(
            baseline_notes(&with(0.52e-6)),
            [
                "Machine state as in the baseline launches: its calibration took 0.52 µs, the \
              baseline launches' 0.50 µs–0.55 µs."
            ]
        );
        assert!(baseline_notes(&Comparison::default()).is_empty());
    }

    /// The fixture's 8 KiB allreduce made inconclusive: its fastest
    /// competitor 1.1× faster, sensitivity `sensitivity`, neither test
    /// significant.
    fn inconclusive(sensitivity: Option<f64>) -> (Meta, Verdict) {
        let results = fixture::results();
        let mut meta = results.meta.clone();
        meta.test = "rounds".into();
        meta.margin = 1.05;
        let mut check = results.checks[1].clone();
        check.conclusion = Conclusion::Inconclusive;
        check.severity = Severity::Ok;
        check.violated_by = None;
        check.sensitivity = sensitivity;
        check.powerless = sensitivity.is_none();
        for c in &mut check.candidates {
            c.significant = false;
            c.p_equivalence = Some(0.5);
            c.sensitivity = sensitivity;
        }
        let fast = check
            .candidates
            .iter_mut()
            .find(|c| c.name == "allreduce_as_reducescatter_allgather")
            .unwrap();
        fast.slowdown = Some(1.1);
        check.competitor = Some(fast.name.clone());
        (meta, check)
    }

    #[test]
    fn one_verdict_column_says_verdict_and_what_qualifies_it() {
        let results = fixture::results();
        let labels: Vec<String> = results.checks.iter().map(verdict_label).collect();
        assert_eq!(
            labels,
            [
                "holds",
                "violated · medium-high",
                "violated · very-high",
                "unmeasured"
            ]
        );
        let (_, check) = inconclusive(Some(1.449));
        assert_eq!(verdict_label(&check), "inconclusive (≥ 1.45×)");
        let (_, check) = inconclusive(None);
        assert_eq!(verdict_label(&check), "inconclusive (powerless)");
        let mut timer = check.clone();
        timer.timer_bound = true;
        assert_eq!(verdict_label(&timer), "inconclusive (timer)");
        // No `ok` beside an inconclusive verdict, in the cell nor the line.
        let (_, check) = inconclusive(Some(1.2));
        let cell = crate::report::sections::figure2_row(&check)
            .last()
            .unwrap()
            .words();
        assert_eq!(cell, "inconclusive (≥ 1.20×) !");
        assert!(
            !verdict_line(&check).contains("ok"),
            "{}",
            verdict_line(&check)
        );
    }

    #[test]
    fn late_starts_get_one_line_per_case_above_five_percent() {
        let results = fixture::results();
        let mut meta = results.meta.clone();
        meta.sync = "roundtime".into();
        let mut check = results.checks[1].clone();
        let lost = |check: &mut Verdict, name: &str, invalid: usize| {
            let c = check
                .candidates
                .iter_mut()
                .find(|c| c.name == name)
                .unwrap();
            c.invalid = invalid;
        };
        // 5 of 105 (4.8 %): no line.
        lost(&mut check, "default", 5);
        let late = |meta: &Meta, check: &Verdict| {
            notes(meta, &[check])
                .into_iter()
                .filter(|n| n.contains("late starts"))
                .collect::<Vec<_>>()
        };
        assert!(late(&meta, &check).is_empty());
        // 6 of 106 and 30 of 130: one line for the case, both named.
        lost(&mut check, "default", 6);
        lost(&mut check, "allreduce_as_reduce_bcast", 30);
        let lines = late(&meta, &check);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("8192 B: late starts discarded more than 5 % of the observations (default 6 %, reduce_bcast 23 %)"),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains("--sync barrier"), "{}", lines[0]);
        meta.placement.most_ranks_on_a_node = 8;
        meta.placement.cpus_on_that_node = 2;
        assert!(
            late(&meta, &check)[0].contains("fewer ranks per core (8 ranks share 2 CPUs)"),
            "{:?}",
            late(&meta, &check)
        );
    }

    /// 10 rounds, margin 1.05, sensitivity 1.2, slowdown 1.1: the rounds
    /// that bring ln(S/m) down to ln(s/m), 10 × (ln(1.2/1.05) /
    /// ln(1.1/1.05))² = 82.4.
    #[test]
    fn an_inconclusive_case_says_what_would_decide_it() {
        let (meta, check) = inconclusive(Some(1.2));
        let advice = to_decide(&meta, &check);
        assert!(
            advice.starts_with("reducescatter_allgather at 1.100× against the margin 1.05; about 83 rounds would decide it (--rounds 83 --budget 8.3s"),
            "{advice}"
        );
        let notes = notes(&meta, &[&check]);
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("8192 B: inconclusive: ")),
            "{notes:?}"
        );
        // Closer to the margin, more rounds; too close, none suffice.
        let mut closer = check.clone();
        for c in &mut closer.candidates {
            if c.slowdown == Some(1.1) {
                c.slowdown = Some(1.07);
            }
        }
        let rounds = |advice: String| -> usize {
            advice
                .split("about ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap()
        };
        assert!(rounds(to_decide(&meta, &closer)) > 83);
        for c in &mut closer.candidates {
            if c.slowdown == Some(1.07) {
                c.slowdown = Some(1.0501);
            }
        }
        assert!(to_decide(&meta, &closer).contains("too close to the margin"));
        // Without a sensitivity: the rounds the test needs at all.
        let (meta, check) = inconclusive(None);
        let advice = to_decide(&meta, &check);
        assert!(
            advice.starts_with(
                "no slowdown could be flagged with 10 rounds; the test needs at least"
            ),
            "{advice}"
        );
        // Tests on all observations: more observations, not rounds.
        let (mut meta, check) = inconclusive(Some(1.2));
        meta.test = "mwu".into();
        assert!(
            to_decide(&meta, &check)
                .contains("about 8.3 times the observations would decide it (--budget 8.3s)"),
            "{}",
            to_decide(&meta, &check)
        );
    }

    #[test]
    fn names_lose_their_collective_s_prefix_only() {
        assert_eq!(
            short_name(Collective::Allreduce.into(), "allreduce_as_reduce_bcast"),
            "reduce_bcast"
        );
        assert_eq!(
            short_name(Collective::Allreduce.into(), "default"),
            "default"
        );
        assert_eq!(
            short_name(Collective::Bcast.into(), "allreduce_as_x"),
            "allreduce_as_x"
        );
    }
}
