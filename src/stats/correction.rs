//! Multiple-comparison correction.

/// Holm–Bonferroni adjusted p-values, in the input order: the k-th smallest
/// of m p-values is multiplied by m − k + 1, the results made monotone
/// (non-decreasing in the original p order) and capped at 1. A NaN p-value
/// stays NaN and still counts in m.
pub fn holm(p_values: &[f64]) -> Vec<f64> {
    let m = p_values.len();
    let mut order: Vec<usize> = (0..m).collect();
    // Stable and total, so equal p-values keep their order and NaN sorts last.
    order.sort_by(|&a, &b| p_values[a].total_cmp(&p_values[b]));
    let mut adjusted = vec![f64::NAN; m];
    let mut running_max = 0.0f64;
    for (rank, &index) in order.iter().enumerate() {
        let p = p_values[index];
        if p.is_nan() {
            continue;
        }
        running_max = running_max.max(((m - rank) as f64 * p).min(1.0));
        adjusted[index] = running_max;
    }
    adjusted
}

/// The strictest threshold Holm applies in a family of `family_size` tests
/// (to the smallest p-value): α / m. A test whose smallest attainable p is
/// not below it can never be significant.
pub fn holm_first_threshold(alpha: f64, family_size: usize) -> f64 {
    alpha / family_size.max(1) as f64
}

/// Without correction every test is compared with α itself.
pub fn none_first_threshold(alpha: f64, _family_size: usize) -> f64 {
    alpha
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_thresholds() {
        assert_eq!(holm_first_threshold(0.05, 10), 0.005);
        assert_eq!(holm_first_threshold(0.05, 0), 0.05);
        assert_eq!(none_first_threshold(0.05, 10), 0.05);
        // Holm's first threshold is the one its adjusted p-values compare with α.
        let adjusted = holm(&[0.004, 0.5, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9]);
        assert!(adjusted[0] < 0.05 && 0.004 < holm_first_threshold(0.05, 10));
    }

    #[test]
    fn hand_checked_example() {
        // Sorted: 0.01·4 = 0.04, 0.02·3 = 0.06, 0.03·2 = 0.06, 0.04·1 = 0.04 → max so far 0.06.
        let adjusted = holm(&[0.03, 0.01, 0.04, 0.02]);
        let expected = [0.06, 0.04, 0.06, 0.06];
        for (a, e) in adjusted.iter().zip(expected) {
            assert!((a - e).abs() < 1e-15, "{adjusted:?}");
        }
    }

    #[test]
    fn capped_at_one_and_monotone() {
        // 0.001·3, 0.55·2 = 1.1 → 1, 0.6·1 raised to 1 by monotony.
        let adjusted = holm(&[0.6, 0.55, 0.001]);
        assert_eq!(adjusted, [1.0, 1.0, 0.003]);
        // 0.001·3, 0.4·2 = 0.8, 0.5·1 raised to 0.8.
        let adjusted = holm(&[0.5, 0.001, 0.4]);
        assert_eq!(adjusted, [0.8, 0.003, 0.8]);
        let adjusted = holm(&[0.3, 0.2, 0.9]);
        assert!((adjusted[1] - 0.6).abs() < 1e-15);
        assert!((adjusted[0] - 0.6).abs() < 1e-15);
        assert_eq!(adjusted[2], 0.9);
    }

    #[test]
    fn empty_single_and_nan() {
        assert!(holm(&[]).is_empty());
        assert_eq!(holm(&[0.2]), [0.2]);
        let adjusted = holm(&[f64::NAN, 0.01]);
        assert!(adjusted[0].is_nan());
        assert_eq!(adjusted[1], 0.02);
    }
}
