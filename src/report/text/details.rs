//! Every candidate of every check, fastest first (MPINPC's Figure 5).

use super::style;
use crate::analyse::{CandidateSummary, Results};
use crate::report::model::*;
use comfy_table::{Cell, CellAlignment, Table};

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
        out += &usual_table(results, &ranked.measured);
    }
    if !out.is_empty() {
        out += &format!("\n{LEGEND}\n");
    }
    out
}

/// The usual times of the candidates that have one, in the order shown
/// above; empty when none has.
fn usual_table(results: &Results, candidates: &[&CandidateSummary]) -> String {
    let rows: Vec<Vec<String>> = candidates.iter().filter_map(|c| usual_row(c)).collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut table = Table::new();
    style(&mut table);
    table.set_header(USUAL_COLUMNS.to_vec());
    for row in rows {
        table.add_row(
            row.into_iter()
                .zip(USUAL_COLUMNS)
                .map(|(text, column)| match column {
                    "candidate" | "model" => Cell::new(text),
                    _ => Cell::new(text).set_alignment(CellAlignment::Right),
                }),
        );
    }
    format!("{}\n{table}\n", usual_title(results))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture;

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

    #[test]
    fn usual_times_follow_each_check_s_candidates() {
        assert!(!render(&fixture::results()).contains("usual times"));
        let results = fixture::results_with_usual();
        let text = render(&results);
        assert_eq!(
            text.matches("usual times (Kluge et al. 2005, q_max 0.95)")
                .count(),
            3,
            "{text}"
        );
        let check = &text[position(&text, "MPI_Allreduce, 8 KiB")..position(&text, "MPI_Bcast")];
        let usual = &check[position(check, "usual times")..];
        for name in [
            "default",
            "allreduce_as_reduce_bcast",
            "allreduce_as_reducescatter_allgather",
        ] {
            let row = usual
                .lines()
                .find(|l| l.contains(&format!(" {name} ")))
                .unwrap();
            let u = &results.checks[1]
                .candidates
                .iter()
                .find(|c| c.name == name)
                .unwrap()
                .usual
                .as_ref()
                .unwrap()
                .fit;
            assert!(row.contains(model_name(u.model)), "{row}");
            assert!(row.contains(&seconds(u.tmax_s)), "{row}");
            assert!(row.contains(&format!("{} of 200", u.above_tmax)), "{row}");
        }
        assert!(
            !usual.contains("allreduce_as_allreduce_lane"),
            "no usual time when wrong"
        );
    }
}
