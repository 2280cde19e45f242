//! The per-collective tables (MPINPC's Figure 2).

use super::{seconds, Results};
use crate::analyse::{Conclusion, Verdict};
use crate::collective::Collective;
use comfy_table::{presets, Cell, CellAlignment, Table};

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
            let (who, why) = (super::who_failed(&c.name), c.outcome.reason());
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
/// sample may be biased towards calls that happened to start on time.
pub const INVALID_WARNING: f64 = 0.05;

/// One table per collective: size, count, nodes, ppn, n, default median,
/// slowdown, fastest competitor, its median, p-value, severity.
pub fn render(results: &Results) -> String {
    let m = &results.meta;
    let mut out = String::new();
    for warning in &m.warnings {
        out += &format!("WARNING: {warning}\n");
    }
    out += &format!(
        "{} processes ({} × {}), sync {}, {} test, {} correction, α = {}, margin {}; noise floor (barrier median) {}: slowdowns marked ~ differ by less\n",
        m.processes,
        m.nodes,
        m.ppn,
        m.sync,
        m.test,
        m.correction,
        m.alpha,
        m.margin,
        seconds(m.noise_floor_s)
    );
    out += "slowdown = median of default's per-round medians / the competitor's; sensitivity: the smallest slowdown this run could have flagged\n";
    if !results.complete {
        out += "INCOMPLETE: the run was interrupted; these are the checks it finished\n";
    }
    for collective in Collective::ALL {
        let checks: Vec<_> = results
            .checks
            .iter()
            .filter(|c| c.key.collective == collective)
            .collect();
        if checks.is_empty() {
            continue;
        }
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
    let plain = std::env::var_os("NO_COLOR").is_some() || !super::interactive(&std::io::stdout());
    table.load_preset(if plain {
        presets::ASCII_BORDERS_ONLY_CONDENSED
    } else {
        presets::UTF8_BORDERS_ONLY
    });
}

/// PGMPI's universal guidelines: monotony violations and split-robustness
/// violations, or a line saying there are none.
pub fn render_guidelines(results: &Results) -> String {
    let g = &results.guidelines;
    let violated: Vec<_> = g
        .monotony
        .iter()
        .filter(|f| f.severity != crate::analyse::Severity::Ok)
        .collect();
    let mut out = String::new();
    if violated.is_empty() && g.split_robustness.is_empty() {
        if !g.monotony.is_empty() {
            out += &format!(
                "\nUniversal guidelines (PGMPI): monotony holds for all {} pairs of consecutive sizes; split-robustness holds.\n",
                g.monotony.len()
            );
        }
        return out;
    }
    let mut table = Table::new();
    style(&mut table);
    table.set_header(vec![
        "guideline",
        "collective",
        "size [B]",
        "compared with",
        "default",
        "bound",
        "ratio",
        "p-value",
        "severity",
    ]);
    let right = |text: String| Cell::new(text).set_alignment(CellAlignment::Right);
    for (name, f) in violated
        .iter()
        .map(|f| ("monotony", *f))
        .chain(g.split_robustness.iter().map(|f| ("split-robust", f)))
    {
        let with = match f.k {
            Some(k) => format!("{k} × {} B", f.other_size_bytes),
            None => format!("{} B", f.other_size_bytes),
        };
        table.add_row(vec![
            Cell::new(name),
            Cell::new(f.key.collective.name()),
            right(f.key.size_bytes.to_string()),
            right(with),
            right(seconds(f.median_s)),
            right(seconds(f.bound_s)),
            right(format!("{:.3}", f.ratio)),
            right(format!("{:.2e}", f.p_value)),
            Cell::new(f.severity.label()),
        ]);
    }
    out += &format!("\nUniversal guidelines (PGMPI) violated by default\n{table}\n");
    out
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
            table.add_row(vec![
                Cell::new(c.key.collective.name()),
                right(c.key.size_bytes.to_string()),
                right(c.key.root.to_string()),
                right(seconds(c.baseline_median_s)),
                right(seconds(c.median_s)),
                right(format!("{:.3}", c.ratio)),
                right(format!("{:.2e}", c.p_value)),
            ]);
        }
        out += &format!("{table}\n");
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{
        self, CaseData, CaseKey, Correction, Options, Outcome, Outliers, Sample, Test,
    };
    use crate::candidates::native::DEFAULT;
    use crate::element::{Datatype, Op};

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
            invalid: 0,
        }
    }

    fn case(size_bytes: u64, samples: Vec<Sample>) -> CaseData {
        CaseData {
            key: CaseKey {
                collective: Collective::Allreduce,
                size_bytes,
                count: size_bytes as usize,
                datatype: Datatype::Byte,
                op: Op::Bor,
                root: 0,
            },
            samples,
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
        };
        let results = Results {
            meta: crate::meta::Meta::default(),
            complete: true,
            checks: analyse::verdicts(&cases, &options),
            guidelines: Default::default(),
            baseline: None,
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
        let lines = super::super::failures(&results);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with("the library's collective is wrong: MPI_Allreduce 64 B"));
    }
}
