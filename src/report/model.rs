//! The report's format-neutral content, computed once and shown by every
//! format: the overview grid's marks, the per-collective rows (MPINPC's
//! Figure 2), the candidates ranked (its Figure 5), titles, verdict lines,
//! notes, and how numbers are written.

use crate::analyse::guidelines::Finding;
use crate::analyse::{
    CandidateSummary, CaseKey, Conclusion, NoiseVerdict, Outcome, Results, Severity, Verdict,
};
use crate::candidates::native::is_library_call;
use crate::collective::Collective;
use crate::stats::usual::Model;

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
/// (1.786×, medium-high)`.
pub fn violation_side(side: &crate::analyse::baseline::Side) -> String {
    match (&side.violated_by, side.slowdown) {
        (Some(by), Some(s)) => format!(
            "{} by {by} ({s:.3}×, {})",
            side.verdict.label(),
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
    notes
}

/// A regression's ratio and p-value as the comparison decided them: after
/// the shift and corrected across cases where it had several launches.
pub fn regression_numbers(c: &crate::analyse::baseline::Change) -> (String, String) {
    (
        format!("{:.3}", c.normalised_ratio.unwrap_or(c.ratio)),
        format!("{:.2e}", c.p_adjusted.unwrap_or(c.p_value)),
    )
}

/// What still beats `default` in a case violated now: a library algorithm
/// (tuning can still help) or only a new algorithm.
pub fn violation_note(change: &crate::analyse::baseline::ViolationChange) -> String {
    match (
        &change.library_competitor,
        &change.new_algorithm_family,
        &change.now.violated_by,
    ) {
        (Some(library), _, _) => format!(
            "library algorithm {library} still {:.3}× faster",
            change.library_slowdown.unwrap_or(f64::NAN)
        ),
        (None, Some(family), Some(by)) => {
            format!("only a new algorithm beats the library: {by} ({family})")
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
    /// Per size: a competitor failed verification there.
    pub wrong: Vec<bool>,
}

/// The grid's content, shared by the text, Markdown and SVG renderers.
pub struct Overview {
    /// Every size any check used, ascending.
    pub sizes: Vec<u64>,
    /// In `Collective::ALL` order, only the collectives present.
    pub rows: Vec<Row>,
}

/// The grid of a run. A cell holding several checks (other datatypes or
/// operators) shows the worst of them.
pub fn overview(results: &Results) -> Overview {
    let mut sizes: Vec<u64> = results.checks.iter().map(|c| c.key.size_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for (collective, checks) in by_collective(results) {
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
            let marks = sizes
                .iter()
                .map(|&size| {
                    in_cell(size)
                        .map(|c| Mark::of(c))
                        .fold(Mark::Blank, Mark::max)
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
                wrong,
            });
        }
    }
    Overview { sizes, rows }
}

/// The checks of each collective present, in `Collective::ALL` order: one
/// table or grid row group each.
pub fn by_collective(results: &Results) -> Vec<(Collective, Vec<&Verdict>)> {
    Collective::ALL
        .into_iter()
        .map(|collective| {
            let checks = results
                .checks
                .iter()
                .filter(|c| c.key.collective == collective)
                .collect();
            (collective, checks)
        })
        .filter(|(_, checks): &(Collective, Vec<&Verdict>)| !checks.is_empty())
        .collect()
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

/// The columns of the per-collective table (MPINPC's Figure 2, with the
/// verdict and the sensitivity behind it).
pub const FIGURE2: [&str; 13] = [
    "size [B]",
    "count",
    "N",
    "ppn",
    "n",
    "default",
    "slowdown",
    "competitor",
    "its median",
    "p-value",
    "severity",
    "verdict",
    "sensitivity",
];

/// One check as a row of the per-collective table: the competitor that
/// sets the severity, else the fastest. A slowdown marked `~`: the medians
/// differ by less than the synchronisation's own cost. A candidate that
/// failed verification marks the row with `!`.
pub fn figure2_row(results: &Results, check: &Verdict) -> Vec<String> {
    let default = check.default_candidate();
    let below_noise = check
        .candidates
        .iter()
        .any(|c| Some(&c.name) == check.competitor.as_ref() && c.below_noise);
    let wrong = check.candidates.iter().any(|c| c.outcome.is_wrong());
    let default_median = match check.conclusion {
        Conclusion::LibraryWrong => "WRONG".into(),
        _ => default
            .and_then(|d| d.round_median_s)
            .map_or("-".into(), seconds),
    };
    vec![
        check.key.size_bytes.to_string(),
        check.key.count.to_string(),
        results.meta.nodes.to_string(),
        results.meta.ppn.to_string(),
        default.map_or(0, |d| d.n).to_string(),
        default_median,
        check.slowdown.map_or("-".into(), |s| {
            format!("{s:.3}{}", if below_noise { "~" } else { "" })
        }),
        check.competitor.clone().unwrap_or_else(|| "-".into()),
        check.competitor_median_s.map_or("-".into(), seconds),
        check.p_value.map_or("-".into(), |p| format!("{p:.2e}")),
        match check.conclusion {
            Conclusion::LibraryWrong | Conclusion::Unmeasured => "-".into(),
            _ => check.severity.label().into(),
        },
        format!(
            "{}{}",
            check.conclusion.label(),
            if wrong { " !" } else { "" }
        ),
        sensitivity(check),
    ]
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

/// The lines under a table: every candidate that failed verification, every
/// case without a verdict, and candidates with many invalid observations.
pub fn notes(checks: &[&Verdict]) -> String {
    let mut out = String::new();
    for check in checks {
        let case = format!("{} B", check.key.size_bytes);
        for c in check.candidates.iter().filter(|c| c.outcome.is_wrong()) {
            let (who, why) = (who_failed(&c.name), c.outcome.reason());
            out += &format!("! {case}: {who}: {}\n", why.unwrap_or(""));
        }
        let lost: Vec<String> = check
            .candidates
            .iter()
            .filter(|c| c.invalid_share() > INVALID_WARNING)
            .map(|c| format!("{} {:.0} %", c.name, 100.0 * c.invalid_share()))
            .collect();
        if !lost.is_empty() {
            out += &format!(
                "  {case}: observations lost to late starts: {}\n",
                lost.join(", ")
            );
        }
        if check.conclusion == Conclusion::Unmeasured {
            out += &format!(
                "! {case}: no verdict, default not measured: {}\n",
                check.reason.as_deref().unwrap_or("")
            );
        }
    }
    out
}

/// Above this share of invalid observations a candidate is mentioned: its
/// sample may be biased towards calls that happened to start on time. The
/// roundtime slots are sized to stay below it.
pub const INVALID_WARNING: f64 = crate::measure::LATE_CAP;

/// A check's candidates: the measured ones fastest first, then the ones
/// without observations (wrong, skipped, or never measured).
pub struct Ranked<'a> {
    pub measured: Vec<&'a CandidateSummary>,
    pub unmeasured: Vec<&'a CandidateSummary>,
}

pub fn ranked(check: &Verdict) -> Ranked<'_> {
    let (mut measured, unmeasured): (Vec<_>, Vec<_>) =
        check.candidates.iter().partition(|c| c.median_s.is_some());
    // Stable, so that equal medians keep the order the run listed them in.
    measured.sort_by(|a, b| {
        a.median_s
            .partial_cmp(&b.median_s)
            .expect("medians are numbers")
    });
    Ranked {
        measured,
        unmeasured,
    }
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
    let collective = key.collective;
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

/// The verdict in words: `severity medium-high (by allreduce_as_…)`.
pub fn verdict_line(check: &Verdict) -> String {
    if check.default_candidate().and_then(|d| d.median_s).is_none() {
        return "no verdict: default not measured".into();
    }
    match &check.violated_by {
        Some(by) => format!(
            "{}, severity {} (set by {by}), sensitivity {}",
            check.conclusion.label(),
            check.severity.label(),
            sensitivity(check)
        ),
        None => format!(
            "{}, severity {}, sensitivity {}",
            check.conclusion.label(),
            check.severity.label(),
            sensitivity(check)
        ),
    }
}

/// Whether any candidate of the check carries a corrected p-value.
pub fn has_adjusted(check: &Verdict) -> bool {
    check.candidates.iter().any(|c| c.p_adjusted.is_some())
}

/// The columns of [`row`].
pub fn header(adjusted: bool) -> Vec<&'static str> {
    let mut header = vec![
        "rank",
        "candidate",
        "median",
        "q1",
        "q3",
        "n",
        "min/round",
        "invalid",
        "slowdown",
        "p-value",
    ];
    if adjusted {
        header.push("p adjusted");
    }
    header.push("marks");
    header
}

/// Columns right-aligned in [`row`]: everything numeric.
pub fn is_numeric(column: &str) -> bool {
    !matches!(column, "candidate" | "marks")
}

/// One measured candidate at `rank` (1 = fastest).
pub fn row(candidate: &CandidateSummary, rank: usize, adjusted: bool) -> Vec<String> {
    let time = |s: Option<f64>| s.map_or("-".into(), seconds);
    let p = |p: Option<f64>| p.map_or("-".into(), |p| format!("{p:.2e}"));
    let mut row = vec![
        rank.to_string(),
        candidate.name.clone(),
        time(candidate.median_s),
        time(candidate.q1_s),
        time(candidate.q3_s),
        candidate.n.to_string(),
        candidate.min_round_n.to_string(),
        format!("{:.1} %", 100.0 * candidate.invalid_share()),
        candidate.slowdown.map_or("-".into(), |s| format!("{s:.3}")),
        p(candidate.p_value),
    ];
    if adjusted {
        row.push(p(candidate.p_adjusted));
    }
    row.push(marks(candidate));
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
    "slowdown = median of default's per-round medians / the candidate's: above 1 the candidate is faster; \
     * significantly faster than default; ~ differs from default by less than the noise floor; \
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
        f.key.collective.name().to_string(),
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

/// The slowdown each cell of [`overview`]'s grid stands for, row by row
/// and size by size as its marks: the largest of the checks that carry
/// the cell's mark, None where they have none.
pub fn overview_slowdowns(results: &Results) -> Vec<Vec<Option<f64>>> {
    let mut sizes: Vec<u64> = results.checks.iter().map(|c| c.key.size_bytes).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let mut rows = Vec::new();
    for (collective, checks) in by_collective(results) {
        let root_of = |c: &Verdict| collective.is_rooted().then_some(c.key.root);
        let mut roots: Vec<Option<usize>> = checks.iter().map(|c| root_of(c)).collect();
        roots.sort_unstable();
        roots.dedup();
        for root in roots {
            let cells = sizes
                .iter()
                .map(|&size| {
                    let in_cell: Vec<&Verdict> = checks
                        .iter()
                        .copied()
                        .filter(|c| c.key.size_bytes == size && root_of(c) == root)
                        .collect();
                    let mark = in_cell.iter().map(|c| Mark::of(c)).max()?;
                    in_cell
                        .iter()
                        .filter(|c| Mark::of(c) == mark)
                        .filter_map(|c| c.slowdown)
                        .max_by(f64::total_cmp)
                })
                .collect();
            rows.push(cells);
        }
    }
    rows
}
