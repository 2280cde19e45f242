//! Outlier removal.

use super::describe::{quantile, sorted};

/// Tukey's fences: keeps the values inside [Q1 − 1.5·IQR, Q3 + 1.5·IQR]
/// (bounds included; quartiles as [`quantile`]), in their input order, and
/// counts the values removed.
pub fn tukey(values: &[f64]) -> (Vec<f64>, usize) {
    let ascending = sorted(values);
    let (q1, q3) = (quantile(&ascending, 0.25), quantile(&ascending, 0.75));
    let reach = 1.5 * (q3 - q1);
    let (low, high) = (q1 - reach, q3 + reach);
    let kept: Vec<f64> = values
        .iter()
        .copied()
        .filter(|v| (low..=high).contains(v))
        .collect();
    let removed = values.len() - kept.len();
    (kept, removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_checked_example() {
        // Sorted 1..=8 and 30: Q1 = 3, Q3 = 7, IQR = 4, fences [−3, 13].
        let values = [5.0, 1.0, 30.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0];
        let (kept, removed) = tukey(&values);
        assert_eq!(kept, [5.0, 1.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]);
        assert_eq!(removed, 1);
    }

    #[test]
    fn fences_are_inclusive() {
        // Sorted 1..=8 and one more: Q1 = 3, Q3 = 7, fences [−3, 13]: 13 stays, 13.5 goes.
        let mut values: Vec<f64> = (1..=8).map(f64::from).collect();
        values.push(13.0);
        assert_eq!(tukey(&values).1, 0);
        values[8] = 13.5;
        assert_eq!(tukey(&values).1, 1);
        let (kept, removed) = tukey(&[2.0, 2.0, 2.0, 2.0, 9.0]);
        assert_eq!((kept, removed), (vec![2.0; 4], 1));
    }

    #[test]
    fn degenerate_inputs() {
        assert_eq!(tukey(&[]), (vec![], 0));
        assert_eq!(tukey(&[4.0]), (vec![4.0], 0));
        assert_eq!(tukey(&[4.0; 3]), (vec![4.0; 3], 0));
    }
}
