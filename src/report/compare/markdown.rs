//! The comparison as GitHub-flavoured Markdown: a row per case, a column
//! per run with its `default` median (the row's fastest in bold) and
//! severity, the runs listed under it.

use super::Comparison;
use crate::report::markdown::{mark_cell, table, text, Align};

pub fn render(comparison: &Comparison) -> String {
    let mut header = vec!["case".to_string()];
    header.extend(comparison.runs.iter().map(|r| r.name.clone()));
    let rows: Vec<Vec<String>> = comparison
        .rows
        .iter()
        .map(|row| {
            let mut cells = vec![text(&comparison.label(row))];
            cells.extend(row.cells.iter().map(|cell| match cell {
                None => "—".into(),
                Some(cell) => {
                    let median = text(&cell.median_label());
                    let median = match cell.best {
                        true => format!("**{median}**"),
                        false => median,
                    };
                    format!("{median} {}", mark_cell(cell.mark))
                }
            }));
            cells
        })
        .collect();
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut align = vec![Align::Right; header.len()];
    align[0] = Align::Left;
    let elements = comparison
        .elements()
        .map(|e| format!(", every case {}", text(&e)))
        .unwrap_or_default();
    let mut out = format!(
        "Median of `default`'s per-round medians and the severity of the worst competitor significantly faster by more than the margin; **bold**: the fastest median of the row (separate runs: no test across them); —: not in that run{elements}.\n\n"
    );
    out += &table(&header, &align, &rows);
    out += "\n";
    for run in &comparison.runs {
        out += &format!(
            "- **{}**: `{}`, {}{}{}; {}\n",
            text(&run.name),
            run.source.replace('`', "'"),
            text(&run.layout()),
            run.noise
                .map(|n| format!(", {} run", n.label()))
                .unwrap_or_default(),
            if run.complete {
                ""
            } else {
                ", ⚠️ incomplete"
            },
            run.tally()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixture::run;
    use super::*;

    #[test]
    fn a_column_per_run_with_the_fastest_median_in_bold() {
        let mut a = run("Open MPI v4.1.4, package: x", "vm", 10.0, true, 5.0);
        a.checks.remove(2);
        let b = run("MPICH Version: 4.0.2", "vm", 12.0, false, 4.0);
        let md = render(&Comparison::of(&[("a".into(), a), ("b".into(), b)]).unwrap());
        for part in [
            "| case | Open MPI v4.1.4 on vm | MPICH 4.0.2 on vm |\n| --- | ---: | ---: |\n",
            "| allreduce 8 B | **10.00 µs** 🟠 **medium-high** | 12.00 µs ✅ ok |\n",
            "| allreduce 8 KiB | **40.00 µs** ✅ ok | **40.00 µs** ✅ ok |\n",
            "| bcast 8 B root 0 | — | **4.00 µs** ✅ ok |\n",
            "every case byte bor.",
            "- **Open MPI v4.1.4 on vm**: `a`, 8 processes = 2 node(s) × 4 ppn",
            "; 1 violated, 1 hold, 0 inconclusive, 1 missing\n",
        ] {
            assert!(md.contains(part), "{part:?} missing in\n{md}");
        }
    }
}
