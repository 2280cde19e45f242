//! The per-collective tables (MPINPC's Figure 2).

use crate::analyse::{NoiseVerdict, Results};
use crate::report::model::*;
use comfy_table::{presets, Cell, CellAlignment, Table};

/// One table per collective: size, count, nodes, ppn, n, default median,
/// slowdown, fastest competitor, its median, p-value, severity.
pub fn render(results: &Results) -> String {
    let m = &results.meta;
    let mut out = String::new();
    for warning in &m.warnings {
        out += &format!("WARNING: {warning}\n");
    }
    let noise = noise_line(results);
    if let Some((NoiseVerdict::Noisy, line)) = &noise {
        out += &format!("WARNING: {line}\n");
    }
    out += &format!(
        "{} processes ({} × {}), sync {}, {} test, {} correction, α = {}, margin {}; noise floor (barrier median) {}: slowdowns marked ~ differ by less\n",
        m.processes,
        m.nodes,
        m.ppn,
        m.sync_text(),
        m.test,
        m.correction,
        m.alpha,
        m.margin,
        seconds(m.noise_floor_s)
    );
    out += "slowdown = median of default's per-round medians / the competitor's; sensitivity: the smallest slowdown this run could have flagged\n";
    if let Some((NoiseVerdict::Quiet, line)) = &noise {
        out += &format!("{line}\n");
    }
    if !results.complete {
        out += "INCOMPLETE: the run ended before its last check (interrupted, or stopped at a wrong result); these are the checks it finished\n";
    }
    for (collective, checks) in by_collective(results) {
        let mut table = Table::new();
        style(&mut table);
        table.set_header(FIGURE2.to_vec());
        for check in &checks {
            table.add_row(figure2_row(results, check).into_iter().zip(FIGURE2).map(
                |(text, column)| match column {
                    "competitor" | "severity" | "verdict" => Cell::new(text),
                    _ => Cell::new(text).set_alignment(CellAlignment::Right),
                },
            ));
        }
        let notes = notes(&checks);
        let root = results
            .checks
            .iter()
            .find(|c| c.key.collective == collective)
            .filter(|_| collective.is_rooted())
            .map(|c| format!(", root {}", c.key.root))
            .unwrap_or_default();
        out += &format!("\n{}{root}\n{table}\n{notes}", collective.mpi_name());
    }
    out
}

/// The look of every table: ASCII borders when output is not a terminal or
/// `NO_COLOR` is set, so that logs and CI summaries stay plain.
pub fn style(table: &mut Table) {
    let plain =
        std::env::var_os("NO_COLOR").is_some() || !crate::report::interactive(&std::io::stdout());
    table.load_preset(if plain {
        presets::ASCII_BORDERS_ONLY_CONDENSED
    } else {
        presets::UTF8_BORDERS_ONLY
    });
}

/// PGMPI's universal guidelines: monotony violations and split-robustness
/// violations, or a line saying there are none.
pub fn render_guidelines(results: &Results) -> String {
    let (pairs, findings) = universal_findings(results);
    if findings.is_empty() {
        return match pairs {
            0 => String::new(),
            n => format!(
                "\nUniversal guidelines (PGMPI): monotony holds for all {n} pairs of consecutive sizes; split-robustness holds.\n"
            ),
        };
    }
    let mut table = Table::new();
    style(&mut table);
    table.set_header(FINDING_COLUMNS.to_vec());
    for (guideline, f) in findings {
        let name = match guideline {
            Universal::Monotony => "monotony",
            Universal::SplitRobustness => "split-robust",
        };
        let [collective, cells @ ..] = finding_row(f);
        let mut row = vec![Cell::new(name), Cell::new(collective)];
        row.extend(
            cells
                .into_iter()
                .map(|text| Cell::new(text).set_alignment(CellAlignment::Right)),
        );
        row.push(Cell::new(f.severity.label()));
        table.add_row(row);
    }
    format!("\nUniversal guidelines (PGMPI) violated by default\n{table}\n{FINDING_ROUNDS}\n")
}

/// The comparison with the baseline run: regressions, and the cases only
/// one of the two runs has.
pub fn render_baseline(results: &Results) -> String {
    let Some(b) = &results.baseline else {
        return String::new();
    };
    let mut out = format!(
        "\nBaseline {}: {} cases compared, tolerance {:.1} %\n",
        b.baseline,
        b.changes.len(),
        b.tolerance * 100.0
    );
    for note in crate::report::model::baseline_notes(b) {
        out += &format!("{note}\n");
    }
    let regressions: Vec<_> = b.regressions().collect();
    if regressions.is_empty() {
        out += "no regression of the library's own collectives\n";
    } else {
        let mut table = Table::new();
        style(&mut table);
        table.set_header(vec![
            "regression",
            "size [B]",
            "root",
            "baseline",
            "now",
            "ratio",
            "p-value",
        ]);
        let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
        for c in regressions {
            let (ratio, p_value) = crate::report::model::regression_numbers(c);
            table.add_row(vec![
                Cell::new(c.key.collective.name()),
                right(c.key.size_bytes.to_string()),
                right(c.key.root.to_string()),
                right(seconds(c.baseline_median_s)),
                right(seconds(c.median_s)),
                right(ratio),
                right(p_value),
            ]);
        }
        out += &format!("{table}\n");
    }
    out += &render_violation_changes(b);
    let list = |keys: &[crate::analyse::CaseKey]| {
        keys.iter()
            .map(|k| format!("{} {} B", k.collective, k.size_bytes))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !b.only_in_baseline.is_empty() {
        out += &format!("only in the baseline: {}\n", list(&b.only_in_baseline));
    }
    if !b.only_in_current.is_empty() {
        out += &format!("only in this run: {}\n", list(&b.only_in_current));
    }
    out
}

/// The violations the baseline had and this run removed, those that
/// remain (and what still beats `default`), and new ones.
fn render_violation_changes(b: &crate::analyse::baseline::Comparison) -> String {
    use crate::analyse::baseline::Transition;
    use crate::report::model::{violation_note, violation_side};
    let count = |kind| b.violations_of(kind).count();
    let out = format!(
        "violations: {} removed, {} remaining, {} new\n",
        count(Transition::Removed),
        count(Transition::Remaining),
        count(Transition::New)
    );
    if b.violations.is_empty() {
        return out;
    }
    let mut table = Table::new();
    style(&mut table);
    table.set_header(vec![
        "violation",
        "case",
        "baseline",
        "now",
        "what beats default now",
    ]);
    for kind in Transition::ALL {
        for v in b.violations_of(kind) {
            table.add_row(vec![
                Cell::new(kind.label()),
                Cell::new(v.key.label()),
                Cell::new(violation_side(&v.baseline)),
                Cell::new(violation_side(&v.now)),
                Cell::new(violation_note(v)),
            ]);
        }
    }
    out + &format!("{table}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{
        self, CaseData, CaseKey, Correction, Options, Outcome, Outliers, Sample, Test,
    };
    use crate::candidates::native::DEFAULT;

    /// Ten rounds of three observations around `center` seconds.
    fn sample(name: &str, center: f64, outcome: Outcome) -> Sample {
        let (mut seconds, mut rounds) = (Vec::new(), Vec::new());
        if outcome == Outcome::Measured {
            for round in 0..10u32 {
                for k in 0..3 {
                    let wobble = 1.0 + 0.01 * f64::from((round * 7 + k * 3) % 5);
                    seconds.push(center * wobble);
                    rounds.push(round);
                }
            }
        }
        Sample {
            name: name.into(),
            outcome,
            seconds,
            rounds,
            invalid_rounds: Vec::new(),
        }
    }

    fn case(size_bytes: u64, samples: Vec<Sample>) -> CaseData {
        CaseData {
            key: CaseKey::allreduce_bytes(size_bytes),
            samples,
            smaller: None,
        }
    }

    /// The report of what the analysis found, not of a hand-made verdict.
    #[test]
    fn rows_and_notes_say_what_the_analysis_found() {
        let wrong = |why: &str| Outcome::Wrong(why.into());
        let cases = vec![
            case(
                8,
                vec![
                    sample(DEFAULT, 20e-6, Outcome::Measured),
                    sample("fast", 10e-6, Outcome::Measured),
                ],
            ),
            case(
                64,
                vec![
                    sample(DEFAULT, 0.0, wrong("rank 3, element 8: expected 1, got 0")),
                    sample("fast", 10e-6, Outcome::Measured),
                ],
            ),
            case(
                512,
                vec![
                    sample(DEFAULT, 10e-6, Outcome::Measured),
                    sample("broken", 0.0, wrong("rank 1, element 0: expected 5, got 4")),
                    sample("same", 10e-6, Outcome::Measured),
                ],
            ),
        ];
        let options = Options {
            alpha: 0.05,
            test: Test::Paired,
            correction: Correction::Holm,
            outliers: Outliers::None,
            noise_floor_s: 0.0,
            margin: analyse::DEFAULT_MARGIN,
            qmax: analyse::DEFAULT_QMAX,
            timer_resolution_s: 0.0,
            fail_on: None,
        };
        let results = Results {
            meta: crate::meta::Meta::default(),
            complete: true,
            checks: analyse::verdicts(&cases, &options),
            guidelines: Default::default(),
            baseline: None,
            failure: None,
            exit: None,
        };
        let text = render(&results);
        let row = |size: &str| {
            text.lines()
                .find(|l| l.trim_start_matches('|').trim_start().starts_with(size))
                .unwrap_or_else(|| panic!("no row {size}:\n{text}"))
        };
        assert!(
            row("8 ").contains("violated") && row("8 ").contains("medium-high"),
            "{text}"
        );
        assert!(
            row("8 ").contains("2.000") && row("8 ").contains("fast"),
            "{text}"
        );
        assert!(
            row("64 ").contains("WRONG") && row("64 ").contains("library wrong"),
            "{text}"
        );
        assert!(row("512 ").contains("holds !"), "{text}");
        assert!(
            text.contains("! 64 B: the library's collective is wrong: rank 3, element 8"),
            "{text}"
        );
        assert!(
            text.contains("! 512 B: broken failed verification"),
            "{text}"
        );
        let lines = crate::report::failures(&results);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("the library's collective is wrong: MPI_Allreduce 64 B"));
    }

    #[test]
    fn the_baseline_shows_violations_removed_remaining_and_new() {
        let text = render_baseline(&crate::report::fixture::results());
        assert!(
            text.contains("violations: 1 removed, 1 remaining, 0 new"),
            "{text}"
        );
        for part in [
            "removed",
            "violated by allreduce_as_library_ring (1.500×, medium)",
            "only a new algorithm beats the library: bcast_as_scatter_allgather (mockup)",
        ] {
            assert!(text.contains(part), "{part} missing in\n{text}");
        }
        // The removed case comes first.
        assert!(text.find("allreduce_as_library_ring") < text.find("bcast_as_library_binomial"));
    }

    #[test]
    fn the_noise_verdict_heads_the_report() {
        use crate::analyse::NoiseVerdict;
        use crate::report::fixture;
        assert!(!render(&fixture::results()).contains("noise:"));
        let mut results = fixture::results_with_usual();
        let text = render(&results);
        let first = text.lines().next().unwrap();
        assert!(
            first.starts_with("WARNING: noisy run: median case sensitivity 1.200× > 1.1× asked about (twice the --margin's excess), 3 of 3 cases above; median overhead share "),
            "{text}"
        );
        let noise = results.meta.noise.as_mut().unwrap();
        noise.verdict = NoiseVerdict::Quiet;
        noise.reason = "median case sensitivity 1.010× ≤ 1.05×".into();
        let text = render(&results);
        assert!(!text.contains("WARNING"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("slowdown = "), "{text}");
        assert_eq!(
            lines[2],
            "noise: quiet: median case sensitivity 1.010× ≤ 1.05×"
        );
    }
}
