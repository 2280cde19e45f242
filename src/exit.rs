//! Exit statuses, identical on every rank, and the gate that chooses one
//! from a finished analysis.

use crate::analyse::baseline::{Comparison, Transition, ViolationChange};
use crate::analyse::{Conclusion, ExitStatus, Results, Severity};
use crate::case::{cases, first_few};
use crate::watchdog::Failure;
use clap::ValueEnum;

/// Why pgcheck ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Every case decided, nothing the gate fails on.
    Pass = 0,
    /// A guideline violation the gate fails on (`--fail-on`, by default any
    /// violated case), or a regression against the baseline.
    Violation = 1,
    /// A usage or input error, found before measuring.
    Input = 2,
    /// A candidate, the library's own call included, failed verification.
    Verification = 3,
    /// An MPI, I/O or internal error.
    Internal = 4,
    /// Interrupted by a signal; the files hold what was measured.
    Interrupted = 5,
    /// A case has no verdict: the library's own call was not measured
    /// (skipped by --max-memory, every observation invalid).
    Unmeasured = 6,
    /// A call of the library, or a wait for the other ranks, outlived its
    /// bound (`--timeout`); the watchdog ended the job.
    Hang = 7,
    /// A rank exited, aborted or crashed while MPI ran.
    LostRank = 8,
    /// The run could not decide: noisy, or more than half of its cases
    /// inconclusive or powerless (`--allow-undecided` passes it).
    Undecided = 9,
}

impl Exit {
    pub const ALL: [Exit; 10] = [
        Exit::Pass,
        Exit::Violation,
        Exit::Input,
        Exit::Verification,
        Exit::Internal,
        Exit::Interrupted,
        Exit::Unmeasured,
        Exit::Hang,
        Exit::LostRank,
        Exit::Undecided,
    ];

    pub fn code(self) -> i32 {
        self as i32
    }

    /// The status of a job the watchdog ends.
    pub fn of_failure(failure: Failure) -> Exit {
        match failure {
            Failure::Hang => Exit::Hang,
            Failure::LostRank => Exit::LostRank,
        }
    }

    /// The status of `code` (as another rank sent it); unknown codes are
    /// internal errors.
    pub fn from_code(code: i32) -> Exit {
        Exit::ALL
            .into_iter()
            .find(|e| e.code() == code)
            .unwrap_or(Exit::Internal)
    }

    /// What the status means, in a few words (the help and the README list
    /// them with their codes).
    pub fn meaning(self) -> &'static str {
        match self {
            Exit::Pass => "pass",
            Exit::Violation => "guideline violation or regression",
            Exit::Input => "usage or input error",
            Exit::Verification => "wrong result",
            Exit::Internal => "MPI, I/O or internal error",
            Exit::Interrupted => "interrupted",
            Exit::Unmeasured => "a case without verdict",
            Exit::Hang => "hang",
            Exit::LostRank => "lost rank",
            Exit::Undecided => "undecided",
        }
    }
}

/// How a command ended, as plain data: the commands say what happened,
/// [`status`] alone says which exit status that is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The command did what it was asked; nothing to gate (`list`,
    /// `clocks`, `compare`, `history`, `tune`, `--help`, `--version`).
    Done,
    /// The command line or the input was wrong; the error was reported.
    InputError,
    /// A file could not be written; the error was reported.
    CannotWrite,
    /// A rank panicked; the job is aborted.
    Panicked,
    /// `verify` ran: how many cases had a candidate with a wrong result.
    Verified { wrong_cases: usize },
    /// A finished analysis (`run`, `analyze`) with the status [`gate`]
    /// chose for it.
    Gated(Exit),
    /// Rank 0's status code, which every other rank of an MPI command
    /// takes as its own.
    AsRankZero { code: i32 },
}

/// The exit status of how a command ended.
pub fn status(ending: Ending) -> Exit {
    match ending {
        Ending::Done => Exit::Pass,
        Ending::InputError => Exit::Input,
        Ending::CannotWrite | Ending::Panicked => Exit::Internal,
        Ending::Verified { wrong_cases: 0 } => Exit::Pass,
        Ending::Verified { .. } => Exit::Verification,
        Ending::Gated(exit) => exit,
        Ending::AsRankZero { code } => Exit::from_code(code),
    }
}

/// What the gate fails on, as the command line says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    pub fail_on: FailOn,
    /// A run that could not decide passes.
    pub allow_undecided: bool,
}

/// The exit status of a finished analysis and why: a wrong result first,
/// then a run that ended early, a regression, a violation the gate fails
/// on, a case without verdict, and a run that could not decide.
pub fn gate(results: &Results, gate: Gate) -> (Exit, ExitStatus) {
    let count = |pred: &dyn Fn(&crate::analyse::Verdict) -> bool| {
        results.checks.iter().filter(|c| pred(c)).count()
    };
    let wrong = count(&|c| c.candidates.iter().any(|c| c.outcome.is_wrong()));
    let regressions = results
        .baseline
        .as_ref()
        .map_or(0, |b| b.regressions().count());
    let violated = count(&|c| c.gated_severity() > Severity::Ok);
    let worst = results.worst_gated();
    let known = results.baseline.as_ref().map(|b| Known::of(b, results));
    let fails = match gate.fail_on {
        FailOn::None => false,
        // Undecided when the comparison is (too few baseline launches).
        FailOn::New => known.as_ref().is_some_and(|k| k.gates_new()),
        FailOn::Violated => violated > 0 || worst > Severity::Ok,
        FailOn::Inconclusive => {
            violated > 0 || worst > Severity::Ok || results.count(Conclusion::Inconclusive) > 0
        }
        level => level.severity().is_some_and(|s| worst >= s),
    };
    let unmeasured = results.count(Conclusion::Unmeasured);
    let decided = results.checks.len() - results.count(Conclusion::Unmeasured);
    let (exit, reason) = if wrong > 0 {
        (Exit::Verification, wrong_reason(results, wrong))
    } else if !results.complete {
        (
            Exit::Interrupted,
            format!(
                "the run ended early, after {} with a verdict",
                cases(decided)
            ),
        )
    } else if regressions > 0 {
        let baseline = results
            .baseline
            .as_ref()
            .expect("regressions have a baseline");
        let reason = regressions_reason(baseline);
        let reason = match (gate.fail_on, &known) {
            (FailOn::New, Some(known)) => format!("{reason}; {}", known.counts()),
            _ => reason,
        };
        (Exit::Violation, reason)
    } else if fails {
        let reason = failing_reason(results, gate, known.as_ref(), violated, worst);
        (Exit::Violation, reason)
    } else if unmeasured > 0 {
        (Exit::Unmeasured, unmeasured_reason(results, unmeasured))
    } else if let Some(why) = known
        .as_ref()
        .filter(|_| gate.fail_on == FailOn::New && !gate.allow_undecided)
        .and_then(Known::new_in_another_state)
    {
        (Exit::Undecided, format!("{why} (--fail-on new)"))
    } else if let Some(why) = results.undecided().filter(|_| !gate.allow_undecided) {
        (Exit::Undecided, why)
    } else {
        (
            Exit::Pass,
            passing_reason(results, gate, known.as_ref(), violated),
        )
    };
    let status = ExitStatus {
        status: exit.code(),
        meaning: exit.meaning().into(),
        reason,
    };
    (exit, status)
}

/// Why a run fails the gate on what it found: the new violations or the
/// violated cases, the inconclusive ones where they fail too, and the level.
fn failing_reason(
    results: &Results,
    gate: Gate,
    known: Option<&Known>,
    violated: usize,
    worst: Severity,
) -> String {
    let what = match (gate.fail_on, known, violated) {
        (FailOn::New, Some(known), _) => {
            format!("{}; {}, no regression", known.named_new(), known.counts())
        }
        (_, _, 0) => format!("a finding across sizes of severity {}", worst.label()),
        (_, _, n) => format!("{} violated, worst {}", cases(n), worst.label()),
    };
    let what = match (gate.fail_on, results.count(Conclusion::Inconclusive)) {
        (FailOn::Inconclusive, n) if n > 0 => format!("{what}; {} inconclusive", cases(n)),
        _ => what,
    };
    format!("{what} (--fail-on {})", gate.fail_on.label())
}

/// `wrong results in 1 case: ` and who computed them where: `the
/// library's MPI_Allreduce 64 B (16 × int32 sum)`, `allreduce_as_x at …`;
/// the first few.
fn wrong_reason(results: &Results, wrong: usize) -> String {
    let named = first_few(results.checks.iter().flat_map(|check| {
        check
            .candidates
            .iter()
            .filter(|c| c.outcome.is_wrong())
            .map(|c| match c.name == crate::candidates::native::DEFAULT {
                true => format!("the library's {}", check.key.label()),
                false => format!("{} at {}", c.name, check.key.label()),
            })
    }));
    format!("wrong results in {}: {named}", cases(wrong))
}

/// `1 case without verdict: ` and the first few of them.
fn unmeasured_reason(results: &Results, unmeasured: usize) -> String {
    let named = first_few(
        results
            .checks
            .iter()
            .filter(|c| c.conclusion == Conclusion::Unmeasured)
            .map(|c| c.key.label()),
    );
    format!("{} without verdict: {named}", cases(unmeasured))
}

/// Why a run passes: what it found below the gate, what it found within
/// the noise floor, and an undecided run let pass.
fn passing_reason(results: &Results, gate: Gate, known: Option<&Known>, violated: usize) -> String {
    let reason = match (gate.fail_on, known, violated) {
        (FailOn::New, Some(known), _) if known.decided => match known.new_in_another_state() {
            Some(why) => format!("{why} (--allow-undecided)"),
            None => format!("{}, no regression", known.counts()),
        },
        (_, _, 0) => "no guideline violated".to_string(),
        (_, _, n) => format!(
            "{} violated, below --fail-on {}",
            cases(n),
            gate.fail_on.label()
        ),
    };
    // A baseline was asked for: its answer belongs in the reason whatever
    // gates the violations.
    let reason = match (gate.fail_on, known) {
        (FailOn::New, _) | (_, None) => reason,
        (_, Some(known)) if known.decided => format!("{reason}; no regression"),
        (_, Some(_)) => reason,
    };
    let within_floor = results
        .checks
        .iter()
        .filter(|c| c.violated_within_noise_floor())
        .count();
    let reason = match within_floor {
        0 => reason,
        n => format!(
            "{reason}; {} violated within the noise floor (~), not gated",
            cases(n)
        ),
    };
    match results.undecided() {
        Some(why) => format!("{reason}; {why} (--allow-undecided)"),
        None => reason,
    }
}

/// The regressions, the largest first, named: "2 regressions against the
/// baseline: MPI_Allreduce 512 B (128 × int32 sum) 1.52×, …".
fn regressions_reason(baseline: &Comparison) -> String {
    let mut found: Vec<_> = baseline.regressions().collect();
    found.sort_by(|a, b| b.judged_ratio().total_cmp(&a.judged_ratio()));
    let named: Vec<String> = found
        .iter()
        .map(|c| format!("{} {:.2}×", c.key.label(), c.judged_ratio()))
        .collect();
    let s = if found.len() == 1 { "" } else { "s" };
    format!(
        "{} regression{s} against the baseline: {}",
        found.len(),
        named.join(", ")
    )
}

/// The violations against the baseline launches, as `--fail-on new`
/// judges them: new ones that gate (beyond the noise floor), known
/// (remaining) and removed ones.
struct Known<'a> {
    /// The comparison decided (enough baseline launches).
    decided: bool,
    /// How the launch ran in a state the baseline never had, if it did
    /// ([`Comparison::state_changed`]): its new violations are then not
    /// known to be the library's, and the gate cannot decide them.
    state_changed: Option<String>,
    new: Vec<&'a ViolationChange>,
    known: usize,
    removed: usize,
}

impl<'a> Known<'a> {
    fn of(baseline: &'a Comparison, results: &Results) -> Known<'a> {
        let gated = |v: &&ViolationChange| {
            results
                .checks
                .iter()
                .any(|c| c.key == v.key && c.gated_severity() > Severity::Ok)
        };
        let mut new: Vec<&ViolationChange> = baseline
            .violations_of(Transition::New)
            .filter(gated)
            .collect();
        new.sort_by_key(|v| std::cmp::Reverse(v.now.severity));
        Known {
            decided: baseline.undecided.is_none(),
            state_changed: baseline.state_changed(),
            new,
            known: baseline.violations_of(Transition::Remaining).count(),
            removed: baseline.violations_of(Transition::Removed).count(),
        }
    }

    /// New violations fail the gate: the comparison decided, in the state
    /// the baseline launches ran in.
    fn gates_new(&self) -> bool {
        self.decided && !self.new.is_empty() && self.state_changed.is_none()
    }

    /// Why new violations are undecided: the launch ran in a state the
    /// baseline never had; None where there are none or it did not.
    fn new_in_another_state(&self) -> Option<String> {
        let state = self.state_changed.as_ref().filter(|_| self.decided)?;
        (!self.new.is_empty()).then(|| {
            format!(
                "{} in a machine state the baseline launches never had ({state}), which may be \
                 the state's, not the library's: gate again, or add launches in this state to \
                 the baseline; {}, no regression",
                self.named_new(),
                self.counts()
            )
        })
    }

    /// "3 known violations (1 new, 0 removed)".
    fn counts(&self) -> String {
        let s = if self.known == 1 { "" } else { "s" };
        format!(
            "{} known violation{s} ({} new, {} removed)",
            self.known,
            self.new.len(),
            self.removed
        )
    }

    /// The new violations, the worst first: "1 new violation: MPI_Reduce
    /// 16 B (…) by reduce_as_allreduce 2.10×, medium-high".
    fn named_new(&self) -> String {
        let named: Vec<String> = self
            .new
            .iter()
            .map(|v| {
                format!(
                    "{} by {} {:.2}×, {}",
                    v.key.label(),
                    v.now.violated_by.as_deref().unwrap_or("?"),
                    v.now.slowdown.unwrap_or(f64::NAN),
                    v.now.severity.label()
                )
            })
            .collect();
        let s = if self.new.len() == 1 { "" } else { "s" };
        format!("{} new violation{s}: {}", self.new.len(), named.join("; "))
    }
}

/// What fails the gate, strictest first.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Any violation, and any case whose verdict is inconclusive.
    Inconclusive,
    /// Any violated case, whatever its severity (the default).
    Violated,
    /// Violations the baseline launches did not have (`--baseline`): a
    /// library's known violations are reported, new ones fail.
    New,
    Low,
    Medium,
    MediumHigh,
    High,
    VeryHigh,
    /// Nothing found fails: report only (wrong results, regressions and
    /// runs that could not decide still do).
    None,
}

impl FailOn {
    /// The least severity that fails, where the level is one.
    pub fn severity(self) -> Option<Severity> {
        match self {
            FailOn::Inconclusive | FailOn::Violated | FailOn::New | FailOn::None => None,
            FailOn::Low => Some(Severity::Low),
            FailOn::Medium => Some(Severity::Medium),
            FailOn::MediumHigh => Some(Severity::MediumHigh),
            FailOn::High => Some(Severity::High),
            FailOn::VeryHigh => Some(Severity::VeryHigh),
        }
    }

    /// As the command line spells it.
    pub fn label(self) -> String {
        self.to_possible_value()
            .map_or_else(String::new, |v| v.get_name().to_string())
    }
}

#[cfg(test)]
mod properties;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::{Conclusion, Severity, Verdict};
    use crate::collective::Collective;
    use crate::meta::Meta;
    use crate::report::fixture;

    /// A case whose only competitor is `slowdown` times faster than
    /// `default`, with the fixture's significance rule (p = 1e-9 makes it
    /// significant above the margin); its conclusion is set as given.
    pub(super) fn case(size_bytes: u64, slowdown: f64, conclusion: Conclusion) -> Verdict {
        let competitors = [("competitor", 10.0 / slowdown, 1e-9)];
        let mut verdict = fixture::check(
            Collective::Allreduce,
            size_bytes,
            0,
            10.0,
            &competitors,
            vec![],
        );
        verdict.conclusion = conclusion;
        verdict
    }

    fn holds(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Holds)
    }

    /// Violated with severity medium-high (2×).
    fn violated(size_bytes: u64) -> Verdict {
        let verdict = case(size_bytes, 2.0, Conclusion::Violated);
        assert_eq!(verdict.severity, Severity::MediumHigh);
        verdict
    }

    fn inconclusive(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Inconclusive)
    }

    fn unmeasured(size_bytes: u64) -> Verdict {
        case(size_bytes, 1.0, Conclusion::Unmeasured)
    }

    /// A case whose competitor failed verification.
    fn wrong(size_bytes: u64) -> Verdict {
        let mut verdict = holds(size_bytes);
        verdict.candidates.push(fixture::excluded(
            "allreduce_as_reduce_bcast",
            "wrong",
            "rank 1: element 0 is 1, expected 2",
        ));
        verdict
    }

    fn results(checks: Vec<Verdict>) -> Results {
        Results {
            meta: Meta::default(),
            complete: true,
            checks,
            guidelines: Default::default(),
            baseline: None,
            failure: None,
            exit: None,
        }
    }

    /// `results` with a baseline comparison that found a regression.
    fn regressed(mut results: Results) -> Results {
        let baseline = fixture::results().baseline.expect("the fixture has one");
        assert_eq!(baseline.regressions().count(), 1);
        results.baseline = Some(baseline);
        results
    }

    const LEVELS: [FailOn; 8] = [
        FailOn::Inconclusive,
        FailOn::Violated,
        FailOn::Low,
        FailOn::Medium,
        FailOn::MediumHigh,
        FailOn::High,
        FailOn::VeryHigh,
        FailOn::None,
    ];

    /// The exit status at `fail_on`, with or without --allow-undecided.
    fn exit(results: &Results, fail_on: FailOn, allow_undecided: bool) -> Exit {
        let (exit, status) = gate(
            results,
            Gate {
                fail_on,
                allow_undecided,
            },
        );
        assert_eq!(status.status, exit.code());
        assert_eq!(status.meaning, exit.meaning());
        exit
    }

    /// The status at every level, allowing an undecided run or not.
    fn at_every_level(results: &Results) -> Vec<Exit> {
        let mut exits = Vec::new();
        for allow in [false, true] {
            exits.extend(LEVELS.map(|level| exit(results, level, allow)));
        }
        exits
    }

    #[test]
    fn a_wrong_result_comes_before_everything() {
        let mut all = regressed(results(vec![
            wrong(8),
            violated(16),
            inconclusive(32),
            unmeasured(64),
        ]));
        assert!(at_every_level(&all)
            .iter()
            .all(|&e| e == Exit::Verification));
        all.complete = false;
        assert!(at_every_level(&all)
            .iter()
            .all(|&e| e == Exit::Verification));
    }

    #[test]
    fn a_regression_fails_at_every_level_and_before_an_unmeasured_case() {
        let all = regressed(results(vec![holds(8), unmeasured(16)]));
        assert!(at_every_level(&all).iter().all(|&e| e == Exit::Violation));
    }

    #[test]
    fn a_violation_fails_by_default_and_at_or_below_its_severity() {
        let one = results(vec![holds(8), violated(16), holds(32)]);
        use Exit::{Pass, Violation};
        assert_eq!(
            LEVELS.map(|level| exit(&one, level, false)),
            [Violation, Violation, Violation, Violation, Violation, Pass, Pass, Pass]
        );
        let (_, status) = gate(
            &one,
            Gate {
                fail_on: FailOn::Violated,
                allow_undecided: false,
            },
        );
        assert_eq!(
            status.reason,
            "1 case violated, worst medium-high (--fail-on violated)"
        );
    }

    #[test]
    fn a_violation_within_the_noise_floor_is_reported_but_never_gates() {
        let mut within = violated(16);
        for c in &mut within.candidates {
            c.below_noise = c.name != crate::candidates::native::DEFAULT;
        }
        assert!(within.violated_within_noise_floor());
        assert_eq!(within.gated_severity(), Severity::Ok);
        let run = results(vec![holds(8), within.clone(), holds(32)]);
        assert!(at_every_level(&run).iter().all(|&e| e == Exit::Pass));
        let (_, status) = gate(
            &run,
            Gate {
                fail_on: FailOn::Violated,
                allow_undecided: false,
            },
        );
        assert_eq!(
            status.reason,
            "no guideline violated; 1 case violated within the noise floor (~), not gated"
        );
        // Beside a violation beyond the floor, that one gates.
        let both = results(vec![within, violated(32)]);
        assert_eq!(exit(&both, FailOn::Violated, false), Exit::Violation);
        assert_eq!(both.worst_gated(), Severity::MediumHigh);
    }

    /// `results` compared with five baseline launches (or `launches`)
    /// that found each case's violation as `transitions` says.
    fn against(
        mut results: Results,
        launches: usize,
        transitions: &[(u64, Transition)],
    ) -> Results {
        use crate::analyse::baseline::{too_few_launches, Side};
        let side = |v: &Verdict| Side {
            verdict: v.conclusion,
            severity: v.severity,
            violated_by: v.violated_by.clone(),
            slowdown: v.slowdown,
        };
        let violations = transitions
            .iter()
            .map(|&(size, transition)| {
                let now = results
                    .checks
                    .iter()
                    .find(|c| c.key.size_bytes == size)
                    .unwrap();
                ViolationChange {
                    key: now.key.clone(),
                    transition,
                    baseline: side(now),
                    now: side(now),
                    baseline_violated: 0,
                    baseline_launches: launches,
                    p_value: None,
                    p_adjusted: None,
                    library_competitor: None,
                    library_slowdown: None,
                    new_algorithm_family: None,
                }
            })
            .collect();
        results.baseline = Some(Comparison {
            launches,
            undecided: too_few_launches(launches),
            violations,
            ..Comparison::default()
        });
        results
    }

    fn reason(results: &Results, fail_on: FailOn) -> (Exit, String) {
        let (exit, status) = gate(
            results,
            Gate {
                fail_on,
                allow_undecided: false,
            },
        );
        (exit, status.reason)
    }

    #[test]
    fn fail_on_new_passes_known_violations_and_fails_a_new_one_named_first() {
        use Transition::{New, Remaining, Removed};
        let run = || results(vec![violated(8), violated(16), holds(32), violated(64)]);
        let known = against(
            run(),
            5,
            &[
                (8, Remaining),
                (16, Remaining),
                (32, Removed),
                (64, Remaining),
            ],
        );
        assert_eq!(
            reason(&known, FailOn::New),
            (
                Exit::Pass,
                "3 known violations (0 new, 1 removed), no regression".into()
            )
        );
        assert_eq!(
            reason(&known, FailOn::Violated).0,
            Exit::Violation,
            "they still violate"
        );
        // Whatever gates the violations, a passing run names the
        // baseline's answer.
        assert_eq!(
            reason(&known, FailOn::None),
            (
                Exit::Pass,
                "3 cases violated, below --fail-on none; no regression".into()
            )
        );
        let one_new = against(run(), 5, &[(8, Remaining), (16, New), (64, Remaining)]);
        let (exit, why) = reason(&one_new, FailOn::New);
        assert_eq!(exit, Exit::Violation);
        assert!(
            why.starts_with("1 new violation: MPI_Allreduce 16 B (16 × byte bor) by competitor 2.00×, medium-high; 2 known violations (1 new, 0 removed), no regression"),
            "{why}"
        );
        // A new violation within the noise floor is reported, not gated.
        let mut within = one_new.clone();
        for c in &mut within.checks[1].candidates {
            c.below_noise = c.name != crate::candidates::native::DEFAULT;
        }
        assert_eq!(reason(&within, FailOn::New).0, Exit::Pass);
        // A regression fails first, named, with the violations' counts.
        let mut regressed = regressed(run());
        let comparison = regressed.baseline.take().unwrap();
        let mut regressed = against(regressed, 5, &[(8, Remaining)]);
        regressed.baseline.as_mut().unwrap().changes = comparison.changes;
        let (exit, why) = reason(&regressed, FailOn::New);
        assert_eq!(exit, Exit::Violation);
        assert!(
            why.starts_with("1 regression against the baseline: MPI_Bcast 8 B (8 × byte bor, root 2) 2.00×; 1 known violation (0 new, 0 removed)"),
            "{why}"
        );
    }

    /// A violation new in a launch the whole machine ran 1.95× slower
    /// (or whose calibration the baseline never had) may be the state's:
    /// the gate cannot decide it, unless told to let such runs pass; a
    /// regression still fails, and a launch in the baseline's state gates.
    #[test]
    fn a_violation_new_in_a_state_the_baseline_never_had_is_undecided() {
        use crate::analyse::baseline::{Shift, StateAgainst};
        use Transition::{New, Remaining};
        let run = || results(vec![violated(8), violated(16)]);
        let shifted = |shift: Option<Shift>, state: Option<StateAgainst>| {
            let mut results = against(run(), 5, &[(8, Remaining), (16, New)]);
            let comparison = results.baseline.as_mut().unwrap();
            (comparison.shift, comparison.machine_state) = (shift, state);
            results
        };
        let slower = Shift {
            factor: 1.95,
            p_value: 1e-4,
            significant: true,
        };
        let (exit, why) = reason(&shifted(Some(slower), None), FailOn::New);
        assert_eq!(exit, Exit::Undecided, "{why}");
        assert!(
            why.starts_with("1 new violation: MPI_Allreduce 16 B (16 × byte bor) by competitor 2.00×, medium-high in a machine state the baseline launches never had (every candidate 1.95× the baseline launches)"),
            "{why}"
        );
        assert!(
            why.ends_with("; 1 known violation (1 new, 0 removed), no regression (--fail-on new)"),
            "{why}"
        );
        let allowed = gate(
            &shifted(Some(slower), None),
            Gate {
                fail_on: FailOn::New,
                allow_undecided: true,
            },
        );
        assert_eq!(allowed.0, Exit::Pass);
        assert!(
            allowed.1.reason.ends_with("(--allow-undecided)"),
            "{}",
            allowed.1.reason
        );
        let calibration = StateAgainst::of(Some(2e-6), &[Some(1e-6), Some(1.1e-6)]);
        let (exit, why) = reason(&shifted(None, calibration), FailOn::New);
        assert_eq!(exit, Exit::Undecided);
        assert!(
            why.contains(
                "(its calibration 2.000 µs against the baseline launches' 1.000–1.100 µs)"
            ),
            "{why}"
        );
        // Not significant, or the same state: the new violation gates.
        let same = Shift {
            significant: false,
            ..slower
        };
        let as_before = StateAgainst::of(Some(1.05e-6), &[Some(1e-6), Some(1.1e-6)]);
        assert_eq!(
            reason(&shifted(Some(same), as_before), FailOn::New).0,
            Exit::Violation
        );
        // Other levels gate violations as they are.
        assert_eq!(
            reason(&shifted(Some(slower), None), FailOn::Violated).0,
            Exit::Violation
        );
        assert_eq!(
            reason(&shifted(Some(slower), None), FailOn::None).0,
            Exit::Pass
        );
    }

    #[test]
    fn too_few_baseline_launches_decide_nothing() {
        use Transition::New;
        for launches in [1, 2] {
            let few = against(results(vec![violated(8), holds(16)]), launches, &[(8, New)]);
            let (exit, why) = reason(&few, FailOn::New);
            assert_eq!(exit, Exit::Undecided, "{launches}: {why}");
            assert!(
                why.contains(&format!("not decided: {launches} baseline launch")),
                "{why}"
            );
            assert_eq!(self::exit(&few, FailOn::New, true), Exit::Pass);
            // Violations are decided within the launch: they still fail.
            assert_eq!(self::exit(&few, FailOn::Violated, false), Exit::Violation);
        }
        let enough = against(results(vec![violated(8), holds(16)]), 3, &[(8, New)]);
        assert_eq!(reason(&enough, FailOn::New).0, Exit::Violation);
    }

    #[test]
    fn a_violation_the_gate_fails_on_comes_before_an_unmeasured_case() {
        let both = results(vec![violated(8), unmeasured(16)]);
        assert_eq!(exit(&both, FailOn::Violated, false), Exit::Violation);
        assert_eq!(exit(&both, FailOn::High, false), Exit::Unmeasured);
        assert_eq!(exit(&both, FailOn::None, true), Exit::Unmeasured);
    }

    #[test]
    fn inconclusive_fails_only_with_fail_on_inconclusive() {
        let one = results(vec![holds(8), inconclusive(16), holds(32)]);
        for level in LEVELS {
            let expected = match level {
                FailOn::Inconclusive => Exit::Violation,
                _ => Exit::Pass,
            };
            assert_eq!(exit(&one, level, false), expected, "{level:?}");
        }
    }

    #[test]
    fn a_run_that_could_not_decide_has_its_own_status_unless_allowed() {
        // Two of three cases inconclusive: more than half.
        let open = results(vec![holds(8), inconclusive(16), inconclusive(32)]);
        assert_eq!(exit(&open, FailOn::Violated, false), Exit::Undecided);
        assert_eq!(exit(&open, FailOn::None, false), Exit::Undecided);
        assert_eq!(exit(&open, FailOn::Violated, true), Exit::Pass);
        // A violation found is a finding, decided or not.
        let found = results(vec![violated(8), inconclusive(16), inconclusive(32)]);
        assert_eq!(exit(&found, FailOn::Violated, false), Exit::Violation);
        assert_eq!(exit(&found, FailOn::None, false), Exit::Undecided);
        // Powerless counts as open, whatever its conclusion.
        let mut powerless = results(vec![holds(8), holds(16), holds(32)]);
        powerless.checks[1].powerless = true;
        assert_eq!(exit(&powerless, FailOn::Violated, false), Exit::Pass);
        powerless.checks[2].powerless = true;
        assert_eq!(exit(&powerless, FailOn::Violated, false), Exit::Undecided);
    }

    #[test]
    fn an_unmeasured_case_fails_a_complete_run_and_an_early_end_is_an_interruption() {
        let mut one = results(vec![holds(8), unmeasured(16)]);
        assert!(at_every_level(&one).iter().all(|&e| e == Exit::Unmeasured));
        // An interrupted run has cases it never reached: its status is
        // the interruption's, whatever was found before.
        one.complete = false;
        assert!(at_every_level(&one).iter().all(|&e| e == Exit::Interrupted));
        let mut found = results(vec![violated(8)]);
        found.complete = false;
        assert_eq!(exit(&found, FailOn::Violated, false), Exit::Interrupted);
    }

    #[test]
    fn a_run_that_holds_passes_at_every_level() {
        let all = results(vec![holds(8), holds(16)]);
        assert!(at_every_level(&all).iter().all(|&e| e == Exit::Pass));
    }

    #[test]
    fn a_universal_guideline_from_shared_rounds_counts_for_the_gate() {
        let mut one = results(vec![holds(8), holds(16)]);
        let mut finding = fixture::results().guidelines.monotony[0].clone();
        assert_eq!(finding.severity, Severity::MediumHigh);
        finding.shared_rounds = false;
        one.guidelines.monotony = vec![finding.clone()];
        assert_eq!(exit(&one, FailOn::Low, false), Exit::Pass, "measured apart");
        assert_eq!(
            exit(&one, FailOn::Violated, false),
            Exit::Pass,
            "measured apart"
        );
        finding.shared_rounds = true;
        one.guidelines.monotony = vec![finding];
        assert_eq!(exit(&one, FailOn::Violated, false), Exit::Violation);
        assert_eq!(exit(&one, FailOn::MediumHigh, false), Exit::Violation);
        assert_eq!(exit(&one, FailOn::High, false), Exit::Pass);
    }

    #[test]
    fn each_ending_has_its_status() {
        let cases = [
            (Ending::Done, Exit::Pass),
            (Ending::InputError, Exit::Input),
            (Ending::CannotWrite, Exit::Internal),
            (Ending::Panicked, Exit::Internal),
            (Ending::Verified { wrong_cases: 0 }, Exit::Pass),
            (Ending::Verified { wrong_cases: 2 }, Exit::Verification),
            (Ending::Gated(Exit::Undecided), Exit::Undecided),
            (Ending::AsRankZero { code: 1 }, Exit::Violation),
            (Ending::AsRankZero { code: 10 }, Exit::Internal),
        ];
        for (ending, exit) in cases {
            assert_eq!(status(ending), exit, "{ending:?}");
        }
    }

    #[test]
    fn codes_go_and_come_back() {
        for exit in Exit::ALL {
            assert_eq!(Exit::from_code(exit.code()), exit);
        }
        assert_eq!(Exit::from_code(10), Exit::Internal);
        assert_eq!(
            Exit::ALL.map(Exit::code),
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
            "the statuses README.md documents"
        );
    }
}
