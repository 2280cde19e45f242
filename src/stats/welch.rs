//! Welch's unequal-variances t-test, as SciPy's `ttest_ind(equal_var=False)`.

use super::describe::{mean, variance};
use super::special::students_t_sf;
use super::{Alternative, TestOutcome};

/// Welch's t-test of x against y: t, the Welch–Satterthwaite df, and p from
/// Student's t.
///
/// Degenerate inputs: fewer than two observations in a sample gives the
/// undefined outcome (statistic NaN, p = 1, df None). When both samples are
/// constant (zero variance), df is undefined (None) and the difference of
/// means decides alone: equal means give t = 0 and p = 1 for every
/// alternative; different means give t = ±∞ and p = 0 for the alternatives
/// that point the observed way, 1 for the other one-sided alternative.
pub fn test(x: &[f64], y: &[f64], alternative: Alternative) -> TestOutcome {
    let (nx, ny) = (x.len() as f64, y.len() as f64);
    if nx < 2.0 || ny < 2.0 {
        return TestOutcome::undefined();
    }
    let (vx, vy) = (variance(x) / nx, variance(y) / ny);
    let difference = mean(x) - mean(y);
    let se2 = vx + vy;
    if se2 == 0.0 {
        return constant_samples(difference, alternative);
    }
    let t = difference / se2.sqrt();
    let df = se2 * se2 / (vx * vx / (nx - 1.0) + vy * vy / (ny - 1.0));
    let p_value = match alternative {
        Alternative::Greater => students_t_sf(t, df),
        Alternative::Less => students_t_sf(-t, df),
        Alternative::TwoSided => 2.0 * students_t_sf(t.abs(), df),
    };
    TestOutcome {
        statistic: t,
        p_value: p_value.clamp(0.0, 1.0),
        df: Some(df),
    }
}

fn constant_samples(difference: f64, alternative: Alternative) -> TestOutcome {
    if difference == 0.0 {
        return TestOutcome {
            statistic: 0.0,
            p_value: 1.0,
            df: None,
        };
    }
    let x_larger = difference > 0.0;
    let supported = match alternative {
        Alternative::Greater => x_larger,
        Alternative::Less => !x_larger,
        Alternative::TwoSided => true,
    };
    TestOutcome {
        statistic: difference.signum() * f64::INFINITY,
        p_value: if supported { 0.0 } else { 1.0 },
        df: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_small_samples_are_undefined() {
        for (x, y) in [(&[][..], &[1.0, 2.0][..]), (&[1.0][..], &[1.0, 2.0][..])] {
            let o = test(x, y, Alternative::Greater);
            assert!(o.statistic.is_nan());
            assert_eq!((o.p_value, o.df), (1.0, None));
        }
    }

    #[test]
    fn identical_constants() {
        for alternative in [
            Alternative::Greater,
            Alternative::Less,
            Alternative::TwoSided,
        ] {
            let o = test(&[2.0; 4], &[2.0; 3], alternative);
            assert_eq!((o.statistic, o.p_value, o.df), (0.0, 1.0, None));
        }
    }

    #[test]
    fn different_constants() {
        let x = [3.0; 4];
        let y = [2.0; 3];
        let greater = test(&x, &y, Alternative::Greater);
        assert_eq!((greater.statistic, greater.p_value), (f64::INFINITY, 0.0));
        assert_eq!(test(&x, &y, Alternative::Less).p_value, 1.0);
        assert_eq!(test(&x, &y, Alternative::TwoSided).p_value, 0.0);
        assert_eq!(test(&y, &x, Alternative::Less).p_value, 0.0);
    }

    #[test]
    fn one_constant_sample() {
        // scipy.stats.ttest_ind([1, 2, 3, 4], [2, 2, 2], equal_var=False)
        let o = test(&[1.0, 2.0, 3.0, 4.0], &[2.0; 3], Alternative::TwoSided);
        assert!((o.statistic - 0.7745966692414834).abs() < 1e-12);
        assert_eq!(o.df, Some(3.0));
        assert!(
            (o.p_value - 0.4950253460597111).abs() < 1e-9,
            "{}",
            o.p_value
        );
    }
}
