//! Cases the timer cannot resolve. Every observation is the difference of
//! two timer reads, so it is off by up to one tick of the timer's measured
//! granularity g (`meta.timer_resolution_s`), and so is a median of such
//! observations: it is one of them (or halfway between two), a whole or
//! half number of ticks, not their average. A case whose medians lie
//! within [`TICKS`] ticks is **powerless**: its verdict would be the
//! timer's, not the library's.
//!
//! Why 5 ticks: at k ticks a median is off by up to 1/k, and a slowdown,
//! a ratio of two medians, by up to (k + 1)/(k − 1). At 5 ticks that is
//! 1.5 — rounding alone then fakes or hides a medium-high violation, far
//! beyond the margin, and `holds` (default/margin below every competitor)
//! is a foregone conclusion once two medians round to the same tick. At
//! 10 ticks the bound is 1.22, still above the margin: this rule catches
//! the timer that decides the verdict, not every one that blurs it; the
//! warning's numbers let the reader judge the rest. A stricter rule (the
//! bound within the margin, about 40 ticks) would take 0.8 µs on a
//! 20 ns timer, as long as some collectives here take.

use super::{Options, Verdict};
use crate::meta::Meta;

/// Medians of at most this many ticks are the timer's (see the module).
pub const TICKS: f64 = 5.0;

/// Whether any of `medians` lies within [`TICKS`] ticks of the timer's
/// granularity `resolution_s` (0: unknown, never).
pub fn bound(medians: impl IntoIterator<Item = f64>, resolution_s: f64) -> bool {
    resolution_s > 0.0 && medians.into_iter().any(|m| m <= TICKS * resolution_s)
}

/// Why a timer-bound case has no verdict.
pub fn reason(options: &Options) -> String {
    format!(
        "medians within {TICKS} ticks ({}) of the timer's measured granularity: the timer, not the library, would decide",
        duration(TICKS * options.timer_resolution_s)
    )
}

/// Puts [`warning`] among `meta`'s warnings in place of one an earlier
/// analysis left (`pgcheck analyze` starts from the saved meta).
pub fn warn(meta: &mut Meta, checks: &[Verdict]) {
    meta.warnings.retain(|w| !w.contains(MARK));
    meta.warnings.extend(warning(checks, meta));
}

/// What every timer warning says, and no other.
const MARK: &str = "of the measured granularity of the timer";

/// The warning at the top of a report whose cases the timer could not
/// resolve: the timer, its measured granularity and what `MPI_Wtick`
/// claims, and how many cases are powerless for it.
pub fn warning(checks: &[Verdict], meta: &Meta) -> Option<String> {
    let bound = checks.iter().filter(|c| c.timer_bound).count();
    if bound == 0 {
        return None;
    }
    let g = meta.timer_resolution_s;
    let claim = match meta.timer_wtick_s {
        w if w > 0.0 => format!(", MPI_Wtick claims {}", duration(w)),
        _ => String::new(),
    };
    let cost = match meta.timer_read_cost_s {
        c if c > 0.0 => format!(", {} a read", duration(c)),
        _ => String::new(),
    };
    Some(format!(
        "{bound} of {} cases are powerless: their medians lie within {TICKS} ticks ({}) {MARK} {} ({}{claim}{cost}); use a finer timer or larger sizes",
        checks.len(),
        duration(TICKS * g),
        meta.timer,
        duration(g),
    ))
}

/// A duration as people read it: `20 ns`, `1.50 µs`, `1.000 ms`.
fn duration(s: f64) -> String {
    // Bounds below the next unit by half a printed digit: 0.99999 ms is 1.000 ms.
    match s {
        s if s < 999.5e-9 => format!("{:.0} ns", s * 1e9),
        s if s < 999.995e-6 => format!("{:.2} µs", s * 1e6),
        s if s < 999.9995e-3 => format!("{:.3} ms", s * 1e3),
        s => format!("{s:.3} s"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_within_five_ticks_are_bound() {
        assert!(bound([1e-3, 5e-3], 1e-3));
        assert!(bound([0.0], 1e-3));
        assert!(!bound([5.01e-3, 1.0], 1e-3));
        // An unknown granularity binds nothing.
        assert!(!bound([0.0], 0.0));
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(20e-9), "20 ns");
        assert_eq!(duration(1.5e-6), "1.50 µs");
        assert_eq!(duration(1e-3), "1.000 ms");
        assert_eq!(duration(0.0009999999999999974), "1.000 ms");
        assert_eq!(duration(2.0), "2.000 s");
    }
}
