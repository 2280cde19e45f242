//! Axes the plots share: units, round ticks on linear and logarithmic
//! scales, and tick labels that carry their unit.

/// A time unit that suits `max` seconds: its name and how many per second.
pub(super) fn unit(max: f64) -> (&'static str, f64) {
    match max {
        m if m < 1e-3 => ("µs", 1e6),
        m if m < 1.0 => ("ms", 1e3),
        _ => ("s", 1.0),
    }
}

/// A round tick step giving about five ticks up to `max`: 1, 2 or 5 × 10^k.
pub(super) fn tick_step(max: f64) -> f64 {
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// A tick label without trailing zeros: `0`, `2.5`, `100`.
pub(super) fn tick_label(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Ticks at round values inside [`low`, `high`] (in the unit), with as
/// many decimals as the step needs.
pub(super) fn ticks_within(low: f64, high: f64) -> Vec<(f64, String)> {
    let span = high - low;
    if span.is_nan() || span <= 0.0 {
        return Vec::new();
    }
    let step = tick_step(span);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let first = (low / step).ceil() as i64;
    let last = (high / step).floor() as i64;
    (first..=last)
        .map(|k| {
            let value = k as f64 * step;
            (value, format!("{value:.decimals$}"))
        })
        .collect()
}

/// Ticks of a linear time axis from `low_s` to `high_s`: (seconds, label
/// with the unit, `12.5 µs`), every label in the unit of the largest.
pub(super) fn time_ticks(low_s: f64, high_s: f64) -> Vec<(f64, String)> {
    let (name, per_second) = unit(high_s);
    ticks_within(low_s * per_second, high_s * per_second)
        .into_iter()
        .map(|(value, label)| (value / per_second, format!("{label} {name}")))
        .collect()
}

/// A time as a tick label of a logarithmic axis: `500 ns`, `20 µs`, `1.5 ms`.
pub(super) fn time_label(s: f64) -> String {
    let (value, name) = match s {
        s if s < 1e-6 => (s * 1e9, "ns"),
        s if s < 1e-3 => (s * 1e6, "µs"),
        s if s < 1.0 => (s * 1e3, "ms"),
        s => (s, "s"),
    };
    format!("{} {name}", tick_label(value))
}

/// Ticks of a logarithmic time axis from `low_s` to `high_s` (> 0): the
/// decades, or 1-2-5 of each, or every digit, whichever is the coarsest
/// giving at least three; linear round steps in a narrower range.
pub(super) fn log_time_ticks(low_s: f64, high_s: f64) -> Vec<(f64, String)> {
    let tiers: [&[f64]; 3] = [
        &[1.0],
        &[1.0, 2.0, 5.0],
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
    ];
    let within = |mantissas: &[f64]| -> Vec<f64> {
        let first = low_s.log10().floor() as i32;
        let last = high_s.log10().ceil() as i32;
        (first..=last)
            .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
            .filter(|v| (low_s..=high_s).contains(v))
            .collect()
    };
    match tiers
        .iter()
        .map(|mantissas| within(mantissas))
        .find(|values| values.len() >= 3)
    {
        Some(values) => values.into_iter().map(|v| (v, time_label(v))).collect(),
        // Within less than a digit the axis is about linear: round steps.
        None => time_ticks(low_s, high_s),
    }
}

/// Round ratios above 1 for a logarithmic ratio axis, coarsest first:
/// decades; 1-2-5; with 1.25, 1.5 and 3; with 1.05 and 1.1. Each set
/// continues with the decades' 1-2-5 above 10 (decades only for the first).
const RATIO_TIERS: [&[f64]; 4] = [
    &[1.0],
    &[1.0, 2.0, 5.0],
    &[1.0, 1.25, 1.5, 2.0, 3.0, 5.0],
    &[1.0, 1.05, 1.1, 1.25, 1.5, 2.0, 3.0, 5.0],
];

/// Ticks of a logarithmic ratio axis from `low` < 1 to `high` > 1: 1 and
/// round ratios and their reciprocals, the finest set whose neighbours
/// stay at least `min_gap` apart (in natural logarithm); decades, every
/// k-th, where even those crowd.
pub(super) fn ratio_ticks(low: f64, high: f64, min_gap: f64) -> Vec<(f64, String)> {
    let in_range = |tier: usize| -> Vec<f64> {
        let mut ratios: Vec<f64> = RATIO_TIERS[tier].to_vec();
        let above: &[f64] = if tier == 0 { &[1.0] } else { &[1.0, 2.0, 5.0] };
        for k in 1..=9 {
            ratios.extend(above.iter().map(|m| m * 10f64.powi(k)));
        }
        let mut values: Vec<f64> = ratios
            .iter()
            .flat_map(|&r| [r, 1.0 / r])
            .filter(|v| (low..=high).contains(v))
            .collect();
        values.sort_by(f64::total_cmp);
        values.dedup();
        values
    };
    let spaced = |values: &[f64]| values.windows(2).all(|w| (w[1] / w[0]).ln() >= min_gap);
    let values = (0..RATIO_TIERS.len())
        .rev()
        .map(in_range)
        .find(|values| spaced(values))
        .unwrap_or_else(|| {
            // Decades crowd: every k-th of them, 1 kept.
            let decade = std::f64::consts::LN_10;
            let every = (min_gap / decade).ceil().max(1.0) as i32;
            in_range(0)
                .into_iter()
                .filter(|v| (v.log10().round() as i32) % every == 0)
                .collect()
        });
    values.into_iter().map(|v| (v, ratio_label(v))).collect()
}

/// A ratio as people read it: `1×`, `1.25×`, `0.8×`, `0.67×`, `0.001×`.
pub(super) fn ratio_label(ratio: f64) -> String {
    let decimals = match ratio {
        r if r >= 1.0 => 2,
        r => (2 - r.log10().floor() as i64).max(2) as usize - 1,
    };
    let text = format!("{ratio:.decimals$}");
    let text = match text.contains('.') {
        true => text.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => text,
    };
    format!("{text}×")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_ticks_are_round() {
        assert_eq!(tick_step(600.0 * 1.1), 200.0);
        assert_eq!(tick_step(12.0), 5.0);
        assert_eq!(tick_step(0.9), 0.2);
        assert_eq!(tick_label(0.2 * 3.0), "0.6");
        assert_eq!(tick_label(400.0), "400");
        assert_eq!(unit(5e-4), ("µs", 1e6));
        assert_eq!(unit(0.02), ("ms", 1e3));
    }

    #[test]
    fn ticks_inside_a_narrow_range_keep_their_decimals() {
        let ticks = ticks_within(10.0, 10.01);
        assert!(ticks.len() >= 3, "{ticks:?}");
        assert_eq!(ticks[0].1, "10.000");
        assert!(ticks_within(5.0, 5.0).is_empty());
        assert_eq!(
            ticks_within(0.0, 100.0)
                .iter()
                .map(|t| t.1.as_str())
                .collect::<Vec<_>>(),
            ["0", "20", "40", "60", "80", "100"]
        );
    }

    fn labels(ticks: &[(f64, String)]) -> Vec<&str> {
        ticks.iter().map(|(_, l)| l.as_str()).collect()
    }

    #[test]
    fn time_ticks_carry_their_unit() {
        assert_eq!(
            labels(&time_ticks(10e-6, 20e-6)),
            ["10 µs", "12 µs", "14 µs", "16 µs", "18 µs", "20 µs"]
        );
        assert_eq!(
            labels(&log_time_ticks(3e-6, 2e-3)),
            ["10 µs", "100 µs", "1 ms"]
        );
        assert_eq!(
            labels(&log_time_ticks(3e-6, 2e-4)),
            ["5 µs", "10 µs", "20 µs", "50 µs", "100 µs", "200 µs"]
        );
        assert_eq!(
            labels(&log_time_ticks(1e-7, 1e-1)),
            ["100 ns", "1 µs", "10 µs", "100 µs", "1 ms", "10 ms", "100 ms"]
        );
        assert_eq!(
            labels(&log_time_ticks(1.1e-5, 1.4e-5)),
            ["11 µs", "12 µs", "13 µs", "14 µs"]
        );
    }

    #[test]
    fn the_ratio_axis_centres_on_1_and_never_reaches_0() {
        let ticks = ratio_ticks(1.0 / 7.0, 7.0, 0.3);
        assert_eq!(labels(&ticks), ["0.2×", "0.5×", "1×", "2×", "5×"]);
        let finer = ratio_ticks(1.0 / 2.2, 2.2, 0.15);
        assert_eq!(
            labels(&finer),
            ["0.5×", "0.67×", "0.8×", "1×", "1.25×", "1.5×", "2×"]
        );
        let wide = ratio_ticks(1e-6, 1e6, 2.0 * std::f64::consts::LN_10);
        assert_eq!(
            labels(&wide),
            [
                "0.000001×",
                "0.0001×",
                "0.01×",
                "1×",
                "100×",
                "10000×",
                "1000000×"
            ]
        );
        assert!(ticks.iter().all(|(v, _)| *v > 0.0));
        let narrow = ratio_ticks(0.9, 1.12, 0.03);
        assert_eq!(labels(&narrow), ["0.91×", "0.95×", "1×", "1.05×", "1.1×"]);
        assert_eq!(ratio_label(1e-3), "0.001×");
        assert_eq!(ratio_label(6.0), "6×");
    }
}
