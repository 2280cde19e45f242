//! The terminal report's answer: the notes of all cases summarised once
//! per run, and the last block — what the verdicts mean, whether the
//! set-up limits them, and the one command to run next. A note per case
//! stays in report.md and under `--details`.

use super::document::{Block, Line};
use super::model::{self, NoteKind};
use crate::analyse::baseline::Transition;
use crate::analyse::{Conclusion, NoiseVerdict, Results, Severity, Verdict};
use crate::case::{cases, first_few};
use crate::operation::Form;

/// `allreduce`, or `bcast root 0`.
pub fn collective_label(check: &Verdict) -> String {
    let collective = check.key.operation;
    match collective.is_rooted() {
        true => format!("{} root {}", collective.name(), check.key.root),
        false => collective.name().to_string(),
    }
}

/// `allreduce 8 B`, `bcast root 0 8 KiB`.
fn case_label(check: &Verdict) -> String {
    format!(
        "{} {}",
        collective_label(check),
        model::case_size_label(&check.key)
    )
}

/// The notes of every case, once per run: wrong results, cases without a
/// verdict and competitors skipped for memory case by case, late starts
/// and disturbed rounds a line each naming their cases.
/// Inconclusive cases are the answer's.
pub fn summarised_notes(results: &Results) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut grouped: Vec<(NoteKind, Vec<String>)> = Vec::new();
    for (_, checks) in model::by_operation(results) {
        for check in checks {
            for note in model::case_notes(&results.meta, check) {
                match note.kind {
                    NoteKind::Wrong | NoteKind::Unmeasured => lines.push(Line::plain(format!(
                        "! {} {}",
                        collective_label(check),
                        note.text.trim_start_matches("! ")
                    ))),
                    NoteKind::Memory => lines.push(Line::plain(format!(
                        "{} {}",
                        collective_label(check),
                        note.text
                    ))),
                    // Both are the answer's.
                    NoteKind::Inconclusive | NoteKind::State => {}
                    kind => match grouped.iter_mut().find(|(k, _)| *k == kind) {
                        Some((_, labels)) => labels.push(case_label(check)),
                        None => grouped.push((kind, vec![case_label(check)])),
                    },
                }
            }
        }
    }
    grouped.sort_by_key(|(kind, _)| *kind);
    for (kind, labels) in grouped {
        let at = format!("in {} ({})", cases(labels.len()), first_few(labels));
        lines.push(Line::plain(match kind {
            NoteKind::Late => format!(
                "{} {at}, {}",
                model::late_starts_words(),
                model::late_consequence(&results.meta)
            ),
            _ => format!("disturbed rounds (every candidate far slower) set aside {at}"),
        }));
    }
    if !lines.is_empty() {
        lines.push(Line::plain("each case's notes: report.md, or --details"));
    }
    lines
}

/// The last block: the verdicts in a sentence, what in the set-up limits
/// them (the run's warnings, said once, here), and the command to run next.
pub fn answer(results: &Results) -> Vec<Block> {
    let mut blocks = vec![
        Block::Heading(3, "What this means".into()),
        Block::Paragraph(Line::plain(verdicts(results))),
    ];
    let limits = limits(results);
    // The quiet verdict's gist; its reason is in the details' settings.
    let quiet = match &results.meta.noise {
        Some(n) if n.verdict == NoiseVerdict::Quiet => match n.sensitivity_median {
            Some(s) => format!(" (a quiet run: median case sensitivity {s:.3}×)"),
            None => " (a quiet run)".into(),
        },
        _ => String::new(),
    };
    match limits.is_empty() {
        true => blocks.push(Block::Paragraph(Line::plain(format!(
            "Nothing in the set-up limits these verdicts{quiet}."
        )))),
        false => {
            blocks.push(Block::Paragraph("The set-up limits these verdicts:".into()));
            blocks.extend(limits.into_iter().map(|l| Block::Warning(Line::plain(l))));
        }
    }
    blocks.push(Block::Paragraph(Line::plain("Next: ").and(next(results))));
    blocks
}

/// The verdicts in a sentence: wrong results, then the violations named
/// with their competitors, then how many cases hold and could not tell.
fn verdicts(results: &Results) -> String {
    let library = model::library_name(&results.meta.mpi_library);
    let with = |pred: &dyn Fn(&Verdict) -> bool| -> Vec<&Verdict> {
        results.checks.iter().filter(|c| pred(c)).collect()
    };
    let wrong = with(&|c| c.conclusion == Conclusion::LibraryWrong);
    let violated = with(&|c| c.gated_severity() > Severity::Ok);
    let mut sentence = match (wrong.len(), violated.len()) {
        (0, 0) => format!(
            "{library} violates no guideline in the {} measured",
            cases(results.checks.len())
        ),
        (0, n) => format!(
            "{library} violates a guideline in {} of {}: {}",
            cases(n),
            results.checks.len(),
            first_few(violated.iter().map(|c| violation(c)))
        ),
        (n, _) => format!(
            "{library} computed a wrong result in {}: {} (its times there mean nothing)",
            cases(n),
            first_few(wrong.iter().map(|c| case_label(c)))
        ),
    };
    let wrong_competitors = wrong_competitors(results);
    if !wrong_competitors.is_empty() {
        sentence += &format!(
            "; a competitor computed a wrong result and was left out of {}: {} (the library's \
             calls it is built from, or pgcheck, are wrong)",
            cases(wrong_competitors.len()),
            first_few(wrong_competitors.iter().cloned())
        );
    }
    let within_floor = with(&|c| c.violated_within_noise_floor()).len();
    if within_floor > 0 {
        sentence += &format!(
            "; {} violated by less than the noise floor (~, not counted)",
            cases(within_floor)
        );
    }
    let tally = [
        (results.count(Conclusion::Holds), "hold"),
        (
            results.count(Conclusion::Inconclusive),
            "inconclusive (this run could not tell)",
        ),
        (results.count(Conclusion::Unmeasured), "without a verdict"),
    ];
    let tally: Vec<String> = tally
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    match tally.is_empty() {
        true => format!("{sentence}."),
        false => format!("{sentence}; {}.", tally.join(", ")),
    }
}

/// `reduce_bcast at allreduce 8 B`, once per case whose competitors (not
/// the library's own call) failed verification.
fn wrong_competitors(results: &Results) -> Vec<String> {
    results
        .checks
        .iter()
        .filter(|check| check.conclusion != Conclusion::LibraryWrong)
        .filter_map(|check| {
            let wrong: Vec<String> = check
                .candidates
                .iter()
                .filter(|c| c.outcome.is_wrong())
                .map(|c| model::short_name(check.key.operation, &c.name))
                .collect();
            (!wrong.is_empty()).then(|| format!("{} at {}", wrong.join(", "), case_label(check)))
        })
        .collect()
}

/// `allreduce 8 B (reduce_bcast 1.65× faster, medium-high)`.
fn violation(check: &Verdict) -> String {
    let competitor = check
        .competitor
        .as_deref()
        .map(|name| model::short_name(check.key.operation, name))
        .unwrap_or_default();
    format!(
        "{} ({competitor} {:.2}× faster, {})",
        case_label(check),
        check.slowdown.unwrap_or(f64::NAN),
        check.gated_severity().label()
    )
}

/// What in the set-up limits the verdicts: the run's warnings and a
/// noisy run, whose numbers are said once: here, or on the exit status's
/// line where that gives them.
fn limits(results: &Results) -> Vec<String> {
    let mut limits = results.meta.warnings.clone();
    let reversed: Vec<&Verdict> = results
        .checks
        .iter()
        .filter(|c| c.state.is_some())
        .collect();
    if let Some(first) = reversed.first() {
        let split = first.state.as_ref().expect("filtered");
        limits.push(format!(
            "the machine changed state during the run, and one state reverses the verdict of {} \
             ({}): {} {}; each case's states in report.md",
            cases(reversed.len()),
            first_few(reversed.iter().map(|c| case_label(c))),
            case_label(first),
            model::state_slowdowns(first.key.operation, split)
        ));
    }
    if let Some((NoiseVerdict::Noisy, line)) = model::noise_line(results) {
        let on_exit_line = results.exit.as_ref().zip(results.meta.noise.as_ref());
        limits.push(match on_exit_line {
            Some((exit, noise)) if exit.reason.contains(&noise.reason) => {
                "noisy run: too noisy for the slowdowns asked about (the exit status's line \
                 says by how much)"
                    .into()
            }
            _ => line,
        });
    }
    limits
}

fn noisy(results: &Results) -> bool {
    matches!(model::noise_line(results), Some((NoiseVerdict::Noisy, _)))
}

/// The one command to run next, for what most limits this run: a wrong
/// result, ranks sharing CPUs or unbound ([`fix_first`]), a new violation
/// in a state the baseline never had, a verdict a state reverses, noise,
/// inconclusive cases, violations, else nothing found.
fn next(results: &Results) -> String {
    if let Some(fix) = fix_first(results) {
        return fix;
    }
    let meta = &results.meta;
    if let Some(state) = results.baseline.as_ref().and_then(|b| {
        b.state_changed()
            .filter(|_| b.violations_of(Transition::New).next().is_some())
    }) {
        return format!(
            "this launch ran in a state the baseline launches never had ({state}), so its new \
             violations may be the machine's: gate again, or add launches made in this state to \
             the baseline."
        );
    }
    let reversed = results.checks.iter().filter(|c| c.state.is_some()).count();
    if reversed > 0 {
        return format!(
            "more rounds do not settle the verdict of the {} that a state of the machine \
             reverses: run where it keeps one state (a fixed CPU frequency, nothing else \
             running), or gate against a baseline of launches made in both states \
             (`--baseline`).",
            cases(reversed)
        );
    }
    let quieter = match noisy(results) {
        true => "with nothing else running on the machine, ",
        false => "",
    };
    let inconclusive: Vec<&Verdict> = results
        .checks
        .iter()
        .filter(|c| c.conclusion == Conclusion::Inconclusive)
        .collect();
    if !inconclusive.is_empty() {
        return format!("{quieter}{}", more_rounds(results, &inconclusive));
    }
    if noisy(results) {
        return "run again with nothing else running on the machine.".into();
    }
    let violated: Vec<&Verdict> = results
        .checks
        .iter()
        .filter(|c| c.gated_severity() > Severity::Ok)
        .collect();
    if !violated.is_empty() {
        // `tune` selects the library's algorithms for its blocking calls.
        let tunable = violated
            .iter()
            .any(|c| c.key.operation.form == Form::Blocking);
        return match (tunable, meta.library_algorithms.is_empty()) {
            (false, _) => "every candidate of the violated cases is in report.md (or \
                           `--details`)."
                .into(),
            (true, true) => "every candidate of the violated cases is in report.md (or \
                             `--details`); `competitors: library` in the input also measures \
                             the library's own algorithms, which `pgcheck tune` turns into its \
                             settings."
                .into(),
            (true, false) => "`pgcheck tune DIR --output FILE` writes the library settings \
                              that select its faster algorithms (DIR: this run's files)."
                .into(),
        };
    }
    "keep this run's files as a baseline: later runs given `--baseline DIR` name what changed."
        .into()
}

/// What undoes every verdict until fixed: a wrong result, ranks sharing
/// CPUs or unbound.
fn fix_first(results: &Results) -> Option<String> {
    let meta = &results.meta;
    let placement = &meta.placement;
    if results.count(Conclusion::LibraryWrong) > 0 {
        return Some(
            "send the wrong-result lines above to the library's developers; `pgcheck verify` \
             under the same mpirun checks every candidate's result again without timing."
                .into(),
        );
    }
    if !wrong_competitors(results).is_empty() {
        return Some(
            "`pgcheck verify` under the same mpirun checks every candidate's result again \
             without timing; `pgcheck list` names the MPI calls each competitor is built from, \
             and one of them, or pgcheck, computed the wrong result."
                .into(),
        );
    }
    if placement.oversubscribed() {
        let cpus = placement.cpus_on_that_node * meta.nodes;
        return Some(format!(
            "one rank per CPU, bound: `mpirun -np {cpus} --bind-to core pgcheck run` (and the \
             same input and options)."
        ));
    }
    if placement.unbound_ranks > 0 {
        return Some(
            "bind the ranks to cores (`mpirun --bind-to core …`, `srun --cpu-bind=cores …`) and \
             run again."
                .into(),
        );
    }
    None
}

/// The options that decide at least half of the inconclusive cases, and
/// the time they take; or why more rounds would not.
fn more_rounds(results: &Results, inconclusive: &[&Verdict]) -> String {
    let meta = &results.meta;
    let mut needed: Vec<usize> = inconclusive
        .iter()
        .filter_map(|c| model::rounds_to_decide(meta, c))
        .collect();
    needed.sort_unstable();
    let half = inconclusive.len().div_ceil(2);
    // A run's own meta always has rounds; results put together by hand
    // may not.
    match needed
        .get(half.saturating_sub(1))
        .filter(|_| meta.rounds > 0)
    {
        Some(&rounds) => {
            let decided = needed.iter().filter(|&&r| r <= rounds).count();
            let plan = meta.plan_s * rounds as f64 / meta.rounds as f64;
            let which = match (inconclusive.len(), decided) {
                (1, _) => "the inconclusive case".to_string(),
                (n, d) if d == n => format!("all {n} inconclusive cases"),
                (n, d) => format!("about {d} of the {n} inconclusive cases"),
            };
            format!(
                "the same command with `{}` would decide {which} (about {}).",
                model::options_for(meta, rounds),
                match plan < 10.0 {
                    true => format!("{plan:.1} s"),
                    false => format!("{plan:.0} s"),
                }
            )
        }
        None => format!(
            "more rounds would not decide most of the {} inconclusive (too close to the \
             margin, or too few timer ticks apart): each case's note in report.md says why.",
            cases(inconclusive.len())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::Results;
    use crate::collective::Collective;
    use crate::report::fixture;

    fn next_of(results: &Results) -> String {
        next(results)
    }

    /// Every check holds, nothing limits the run.
    fn all_hold() -> Results {
        let mut results = fixture::results();
        results.checks = vec![
            fixture::check(
                Collective::Allreduce,
                8,
                0,
                10.0,
                &[("a", 11.0, 0.9)],
                vec![],
            ),
            fixture::check(Collective::Bcast, 8, 0, 5.0, &[("b", 6.0, 0.9)], vec![]),
        ];
        results.meta.warnings.clear();
        results.meta.noise = None;
        results
    }

    #[test]
    fn the_verdicts_name_the_violations_with_their_competitors() {
        let results = fixture::results();
        let said = verdicts(&results);
        assert!(
            said.contains("violates a guideline in 2 cases of 4: allreduce 8 KiB (")
                && said.contains("bcast root 2 8 B (")
                && said.contains("× faster, very-high)"),
            "{said}"
        );
        assert!(said.contains("1 without a verdict"), "{said}");
        let said = verdicts(&all_hold());
        assert!(
            said.ends_with("violates no guideline in the 2 cases measured; 2 hold."),
            "{said}"
        );
    }

    /// A competitor's wrong result is said in the verdicts and decides the
    /// next command, though the case still holds on the others.
    #[test]
    fn a_competitor_s_wrong_result_is_the_answer_s_first_concern() {
        let mut results = all_hold();
        assert!(!verdicts(&results).contains("wrong"));
        results.checks[0].candidates.push(fixture::excluded(
            "allreduce_as_reduce_bcast",
            "wrong",
            "rank 1: element 0 is 1, expected 2",
        ));
        let said = verdicts(&results);
        assert!(
            said.contains(
                "a competitor computed a wrong result and was left out of 1 case: \
                 reduce_bcast at allreduce 8 B"
            ) && said.contains("2 hold."),
            "{said}"
        );
        assert!(
            next_of(&results).starts_with("`pgcheck verify`"),
            "{}",
            next_of(&results)
        );
    }

    /// A verdict one state of the machine reverses limits the run's
    /// verdicts: the answer says so with both states' slowdowns, once.
    #[test]
    fn a_verdict_that_depends_on_the_machine_s_state_is_a_limit() {
        use crate::analyse::state::{InState, StateSplit};
        let mut results = all_hold();
        assert!(limits(&results).is_empty());
        results.checks[0].state = Some(StateSplit {
            competitor: "allreduce_as_reduce_bcast".into(),
            fast: InState {
                rounds: 26,
                calibration_s: 0.5e-6,
                slowdown: 0.8,
            },
            slow: InState {
                rounds: 14,
                calibration_s: 0.85e-6,
                slowdown: 1.3,
            },
            p_value: 1e-4,
        });
        let said = limits(&results).join("\n");
        assert!(
            said.contains("one state reverses the verdict of 1 case (allreduce 8 B): allreduce 8 B slowdown 1.30 against reduce_bcast in its 14 rounds in the slow state")
                && said.contains("0.80 in its 26 in the fast state"),
            "{said}"
        );
        assert!(
            next_of(&results).starts_with("more rounds do not settle the verdict of the 1 case")
        );
        let notes = model::case_notes(&results.meta, &results.checks[0]);
        assert!(notes.iter().any(|n| n.kind == NoteKind::State), "{notes:?}");
        assert!(
            summarised_notes(&results).is_empty(),
            "said once, in the answer"
        );
    }

    /// One command, for what most limits the run: ranks sharing CPUs
    /// before unbound ones, before noise and inconclusive cases, before
    /// violations; a run that found nothing keeps its files as a baseline.
    #[test]
    fn the_next_command_answers_what_most_limits_the_run() {
        let mut results = all_hold();
        assert!(
            next_of(&results).contains("--baseline DIR"),
            "{}",
            next_of(&results)
        );
        results.checks.push(fixture::check(
            Collective::Gather,
            8,
            0,
            20.0,
            &[("c", 10.0, 1e-6)],
            vec![],
        ));
        assert!(
            next_of(&results).contains("report.md"),
            "{}",
            next_of(&results)
        );
        results
            .meta
            .library_algorithms
            .push(crate::meta::LibraryAlgorithm {
                name: "gather_as_library_linear".into(),
                library: "open_mpi".into(),
                collective: "gather".into(),
                variable: "coll_tuned_gather_algorithm".into(),
                value: 2,
                item: "linear".into(),
            });
        assert!(next_of(&results).contains("pgcheck tune"));
        // `tune` selects algorithms of the blocking calls only.
        let blocking = results.checks[2].key.operation;
        results.checks[2].key.operation =
            crate::operation::Operation::persistent(Collective::Gather);
        assert!(!next_of(&results).contains("tune"), "{}", next_of(&results));
        results.checks[2].key.operation = blocking;
        // A violation new in a state the baseline never had.
        let violation = results.checks[2].clone();
        let side = crate::analyse::baseline::Side {
            verdict: violation.conclusion,
            severity: violation.severity,
            violated_by: None,
            slowdown: None,
        };
        results.baseline = Some(crate::analyse::baseline::Comparison {
            shift: Some(crate::analyse::baseline::Shift {
                factor: 1.95,
                p_value: 1e-4,
                significant: true,
            }),
            violations: vec![crate::analyse::baseline::ViolationChange {
                key: violation.key.clone(),
                transition: Transition::New,
                baseline: side.clone(),
                now: side,
                baseline_violated: 0,
                baseline_launches: 5,
                p_value: None,
                p_adjusted: None,
                library_competitor: None,
                library_slowdown: None,
                new_algorithm_family: None,
            }],
            ..Default::default()
        });
        assert!(
            next_of(&results).starts_with(
                "this launch ran in a state the baseline launches never had (every candidate \
                 1.95× the baseline launches)"
            ),
            "{}",
            next_of(&results)
        );
        results.baseline = None;
        results.checks[0].conclusion = Conclusion::Inconclusive;
        let inconclusive = next_of(&results);
        assert!(
            inconclusive.contains("inconclusive") && !inconclusive.contains("report.md:"),
            "{inconclusive}"
        );
        results.meta.placement.unbound_ranks = 2;
        assert!(next_of(&results).contains("--bind-to core"));
        results.meta.placement.most_ranks_on_a_node = 4;
        results.meta.placement.cpus_on_that_node = 2;
        results.meta.nodes = 1;
        assert!(
            next_of(&results).contains("`mpirun -np 2 --bind-to core pgcheck run`"),
            "{}",
            next_of(&results)
        );
    }

    /// Late starts in several cases are one line naming them; a skip for
    /// memory and a wrong result stay case by case.
    #[test]
    fn notes_that_repeat_per_case_are_said_once() {
        let mut results = all_hold();
        for check in &mut results.checks {
            for c in &mut check.candidates {
                c.invalid = c.n;
            }
        }
        let notes: Vec<String> = summarised_notes(&results).iter().map(Line::words).collect();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with(
                "late starts discarded more than 5 % of the observations in 2 cases (allreduce 8 B, bcast root 0 8 B), which may favour"
            ),
            "{notes:?}"
        );
        assert_eq!(notes[1], "each case's notes: report.md, or --details");
        assert!(summarised_notes(&all_hold()).is_empty());
    }
}
