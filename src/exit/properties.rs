//! The precedence of the gate's exit statuses, enumerated (issue 41,
//! item 5): every combination of what a finished analysis can hold at
//! once gets the status that comes first in README.md's order ("The
//! order, where several apply: …"), read from README.md itself, so that
//! the code and the README cannot disagree unnoticed.

use super::*;
use crate::analyse::Conclusion;
use crate::meta::Meta;
use crate::report::fixture;

/// What a finished analysis can hold at once, each with the status it
/// calls for.
#[derive(Clone, Copy, Debug)]
struct Holds {
    /// A candidate failed verification (3).
    wrong: bool,
    /// The run ended early (5).
    incomplete: bool,
    /// A regression against the baseline (1).
    regression: bool,
    /// A violated case (1 with `--fail-on violated`, nothing with `none`).
    violated: bool,
    /// `--fail-on none` rather than the default, `violated`.
    fail_on_none: bool,
    /// A case without verdict (6).
    unmeasured: bool,
    /// More than half of the cases inconclusive or powerless (9).
    open: bool,
    /// `--allow-undecided`: an open run is no failure.
    allow_undecided: bool,
}

impl Holds {
    const CONDITIONS: u32 = 8;

    fn of(bits: u32) -> Holds {
        let bit = |i: u32| bits & (1 << i) != 0;
        Holds {
            wrong: bit(0),
            incomplete: bit(1),
            regression: bit(2),
            violated: bit(3),
            fail_on_none: bit(4),
            unmeasured: bit(5),
            open: bit(6),
            allow_undecided: bit(7),
        }
    }

    /// The statuses that apply, each once, in no particular order.
    fn statuses(self) -> Vec<i32> {
        let mut statuses = Vec::new();
        let mut apply = |holds: bool, exit: Exit| {
            if holds && !statuses.contains(&exit.code()) {
                statuses.push(exit.code());
            }
        };
        apply(self.wrong, Exit::Verification);
        apply(self.incomplete, Exit::Interrupted);
        apply(self.regression, Exit::Violation);
        apply(self.violated && !self.fail_on_none, Exit::Violation);
        apply(self.unmeasured, Exit::Unmeasured);
        apply(self.open && !self.allow_undecided, Exit::Undecided);
        statuses
    }

    fn gate(self) -> Gate {
        Gate {
            fail_on: match self.fail_on_none {
                true => FailOn::None,
                false => FailOn::Violated,
            },
            allow_undecided: self.allow_undecided,
        }
    }

    /// Results that hold exactly these conditions.
    fn results(self) -> Results {
        let case = super::tests::case;
        let mut checks = vec![case(8, 1.0, Conclusion::Holds)];
        if self.wrong {
            let mut wrong = case(16, 1.0, Conclusion::Holds);
            wrong.candidates.push(fixture::excluded(
                "allreduce_as_reduce_bcast",
                "wrong",
                "rank 1: element 0 is 1, expected 2",
            ));
            checks.push(wrong);
        }
        if self.violated {
            checks.push(case(32, 2.0, Conclusion::Violated));
        }
        if self.unmeasured {
            checks.push(case(64, 1.0, Conclusion::Unmeasured));
        }
        if self.open {
            // Powerless cases, one more than the decided ones.
            let decided = checks
                .iter()
                .filter(|c| c.conclusion != Conclusion::Unmeasured)
                .count();
            for i in 0..=decided {
                let mut powerless = case(128 << i, 1.0, Conclusion::Holds);
                powerless.powerless = true;
                checks.push(powerless);
            }
        }
        let baseline = self.regression.then(|| {
            let baseline = fixture::results().baseline.expect("the fixture has one");
            assert_eq!(baseline.regressions().count(), 1);
            assert!(baseline.undecided.is_none());
            baseline
        });
        Results {
            meta: Meta::default(),
            complete: !self.incomplete,
            checks,
            guidelines: Default::default(),
            baseline,
            failure: None,
            exit: None,
        }
    }
}

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    std::fs::read_to_string(path).expect("README.md")
}

/// The order of README.md's "The order, where several apply: 3, then 5,
/// 1, 6, 9." line.
fn readme_order(readme: &str) -> Vec<i32> {
    const LINE: &str = "The order, where several apply:";
    let line = readme
        .lines()
        .find_map(|l| l.trim().strip_prefix(LINE))
        .unwrap_or_else(|| panic!("README.md has no line `{LINE} …`"));
    line.split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .map(|n| n.parse().expect("a status"))
        .collect()
}

/// The statuses of README.md's exit status table (`| N | meaning |`).
fn readme_table(readme: &str) -> Vec<i32> {
    let section = readme
        .split("\n## Exit status\n")
        .nth(1)
        .expect("README.md has an `## Exit status` section");
    let section = section.split("\n## ").next().unwrap();
    section
        .lines()
        .filter_map(|l| l.strip_prefix('|')?.split('|').next()?.trim().parse().ok())
        .collect()
}

/// Every combination of the conditions (2⁸) has the status that README.md
/// names first among those that apply, and passes when none applies.
#[test]
fn the_gate_follows_the_readme_s_order_in_every_combination() {
    let readme = readme();
    let order = readme_order(&readme);
    let table = readme_table(&readme);
    assert_eq!(
        table,
        Exit::ALL.map(Exit::code),
        "README.md's table of statuses"
    );
    for code in &order {
        assert!(
            table.contains(code),
            "README.md orders {code}, not in its table"
        );
    }
    let mut seen = Vec::new();
    for bits in 0..1 << Holds::CONDITIONS {
        let holds = Holds::of(bits);
        let results = holds.results();
        // The results hold what they should, no more.
        assert_eq!(results.undecided().is_some(), holds.open, "{holds:?}");
        assert_eq!(
            results.count(Conclusion::Unmeasured) > 0,
            holds.unmeasured,
            "{holds:?}"
        );
        let statuses = holds.statuses();
        for code in &statuses {
            assert!(
                order.contains(code),
                "{holds:?}: status {code} applies, README.md's order does not name it"
            );
            if !seen.contains(code) {
                seen.push(*code);
            }
        }
        let expected = order
            .iter()
            .copied()
            .find(|code| statuses.contains(code))
            .unwrap_or(Exit::Pass.code());
        let (exit, status) = gate(&results, holds.gate());
        assert_eq!(
            exit.code(),
            expected,
            "{holds:?}: exit {} ({}), README.md's order {order:?} says {expected}",
            exit.code(),
            status.reason
        );
        assert_eq!(status.status, exit.code());
    }
    // README.md orders only what the gate can choose, each once.
    seen.sort_unstable();
    let mut named = order.clone();
    named.sort_unstable();
    assert_eq!(named, seen, "README.md's order {order:?}");
}
