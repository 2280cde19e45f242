//! Every candidate of every check, fastest first (MPINPC's Figure 5).

use super::grid::size_label;
use super::table::style;
use super::{seconds, Results};
use crate::analyse::{CandidateSummary, CaseKey, Outcome, Verdict};
use comfy_table::{Cell, CellAlignment, Table};

/// A check's candidates: the measured ones fastest first, then the ones
/// without observations (wrong, skipped, or never measured).
pub(crate) struct Ranked<'a> {
    pub measured: Vec<&'a CandidateSummary>,
    pub unmeasured: Vec<&'a CandidateSummary>,
}

pub(crate) fn ranked(check: &Verdict) -> Ranked<'_> {
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
pub(crate) fn why_unmeasured(candidate: &CandidateSummary) -> String {
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
pub(crate) fn title(check: &Verdict) -> String {
    title_of(&check.key)
}

/// What a case is: `MPI_Gather, 8 B per process (8 × byte), root 0`.
pub(crate) fn title_of(key: &CaseKey) -> String {
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
pub(crate) fn verdict_line(check: &Verdict) -> String {
    if check.default_candidate().and_then(|d| d.median_s).is_none() {
        return "no verdict: default not measured".into();
    }
    match &check.violated_by {
        Some(by) => format!(
            "{}, severity {} (set by {by}), sensitivity {}",
            check.conclusion.label(),
            check.severity.label(),
            super::table::sensitivity(check)
        ),
        None => format!(
            "{}, severity {}, sensitivity {}",
            check.conclusion.label(),
            check.severity.label(),
            super::table::sensitivity(check)
        ),
    }
}

/// Whether any candidate of the check carries a corrected p-value.
pub(crate) fn has_adjusted(check: &Verdict) -> bool {
    check.candidates.iter().any(|c| c.p_adjusted.is_some())
}

/// The columns of [`row`].
pub(crate) fn header(adjusted: bool) -> Vec<&'static str> {
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
pub(crate) fn is_numeric(column: &str) -> bool {
    !matches!(column, "candidate" | "marks")
}

/// One measured candidate at `rank` (1 = fastest).
pub(crate) fn row(candidate: &CandidateSummary, rank: usize, adjusted: bool) -> Vec<String> {
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
pub(crate) const LEGEND: &str =
    "slowdown = median of default's per-round medians / the candidate's: above 1 the candidate is faster; \
     * significantly faster than default; ~ differs from default by less than the noise floor; \
     invalid: observations discarded for a late start";

/// Every check's candidates: median, quartiles, n, slowdown, p-values,
/// rank; the candidates without observations after, with their reason.
pub fn render(results: &Results) -> String {
    let mut out = String::new();
    for check in &results.checks {
        let adjusted = has_adjusted(check);
        let header = header(adjusted);
        let ranked = ranked(check);
        out += &format!("\n{}: {}\n", title(check), verdict_line(check));
        if !ranked.measured.is_empty() {
            let mut table = Table::new();
            style(&mut table);
            table.set_header(header.clone());
            for (i, candidate) in ranked.measured.iter().enumerate() {
                table.add_row(
                    row(candidate, i + 1, adjusted)
                        .into_iter()
                        .zip(&header)
                        .map(|(text, column)| {
                            let cell = Cell::new(text);
                            if is_numeric(column) {
                                cell.set_alignment(CellAlignment::Right)
                            } else {
                                cell
                            }
                        }),
                );
            }
            out += &format!("{table}\n");
        }
        for candidate in &ranked.unmeasured {
            out += &format!("  {} — {}\n", candidate.name, why_unmeasured(candidate));
        }
    }
    if !out.is_empty() {
        out += &format!("\n{LEGEND}\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::grid::fixture;
    use super::*;

    fn position(text: &str, word: &str) -> usize {
        text.find(word)
            .unwrap_or_else(|| panic!("{word} missing in\n{text}"))
    }

    #[test]
    fn fastest_first_then_the_unmeasured_with_reasons() {
        let text = render(&fixture::results());
        let check = &text[position(&text, "MPI_Allreduce, 8 KiB")..position(&text, "MPI_Bcast")];
        let order = [
            "allreduce_as_reducescatter_allgather",
            "default",
            "allreduce_as_reduce_bcast",
            "allreduce_as_allreduce_lane — wrong: rank 3: element 17 is 4, expected 5",
            "allreduce_as_allreduce_hier — skipped: needs a commutative operator",
        ];
        let positions: Vec<usize> = order.iter().map(|w| position(check, w)).collect();
        assert!(
            positions.windows(2).all(|w| w[0] < w[1]),
            "order wrong in\n{check}"
        );
        let row = |name: &str| {
            check
                .lines()
                .find(|l| l.contains(name) && !l.contains("severity"))
                .unwrap()
        };
        let fastest = row("allreduce_as_reducescatter_allgather");
        assert!(
            fastest.contains(" 1 ") && fastest.contains('*'),
            "{fastest}"
        );
        assert!(
            fastest.contains("55.00 µs") && fastest.contains("1.818"),
            "{fastest}"
        );
        let default = row("default");
        assert!(
            default.contains(" 2 ") && default.contains("1.000"),
            "{default}"
        );
        assert!(check.contains("p adjusted") && check.contains("3.00e-6"));
        assert!(
            check.contains("severity medium-high (set by allreduce_as_reducescatter_allgather)")
        );
    }

    #[test]
    fn titles_name_size_type_op_and_root() {
        let results = fixture::results();
        assert_eq!(
            title(&results.checks[1]),
            "MPI_Allreduce, 8 KiB (8192 × byte, bor)"
        );
        assert_eq!(
            title(&results.checks[2]),
            "MPI_Bcast, 8 B (8 × byte), root 2"
        );
        assert_eq!(
            title(&results.checks[3]),
            "MPI_Scatter, 1 MiB per process (1048576 × byte), root 0"
        );
    }

    #[test]
    fn marks_noise_and_a_default_never_measured() {
        let text = render(&fixture::results());
        let close = text
            .lines()
            .find(|l| l.contains("allreduce_as_reducescatter_allgather") && l.contains("10.20 µs"));
        assert!(
            close.is_some_and(|l| l.contains('~') && !l.contains('*')),
            "{text}"
        );
        assert!(text.contains("default — skipped: interrupted"));
        assert!(text.contains("root 0: no verdict: default not measured"));
        assert!(text.contains(LEGEND));
    }

    #[test]
    fn no_adjusted_column_without_correction() {
        let mut results = fixture::results();
        for check in &mut results.checks {
            for candidate in &mut check.candidates {
                candidate.p_adjusted = None;
            }
        }
        assert!(!render(&results).contains("p adjusted"));
    }
}
