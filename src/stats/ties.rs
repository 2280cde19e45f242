//! Walks two sorted samples together, one group of equal values at a time.
//! Ranking (Mann–Whitney) and empirical CDFs (Kolmogorov–Smirnov) both reduce
//! to this O(n) merge after an O(n log n) sort.

/// One group of equal values in the merged samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct TieGroup {
    /// Observations of x in the group.
    pub in_x: usize,
    /// Observations of y in the group.
    pub in_y: usize,
    /// Observations of x below the group.
    pub x_below: usize,
    /// Observations of y below the group.
    pub y_below: usize,
}

/// Iterator over the tie groups of two ascending samples.
pub(super) struct TieGroups<'a> {
    x: &'a [f64],
    y: &'a [f64],
    i: usize,
    j: usize,
}

impl<'a> TieGroups<'a> {
    pub fn new(x_sorted: &'a [f64], y_sorted: &'a [f64]) -> Self {
        TieGroups {
            x: x_sorted,
            y: y_sorted,
            i: 0,
            j: 0,
        }
    }
}

fn run_length(values: &[f64], value: f64) -> usize {
    values.iter().take_while(|&&v| v == value).count()
}

impl Iterator for TieGroups<'_> {
    type Item = TieGroup;

    fn next(&mut self) -> Option<TieGroup> {
        let (xs, ys) = (&self.x[self.i..], &self.y[self.j..]);
        let from_x = match (xs.first(), ys.first()) {
            (None, None) => return None,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(a), Some(b)) => a <= b,
        };
        let value = if from_x { xs[0] } else { ys[0] };
        let mut in_x = run_length(xs, value);
        let mut in_y = run_length(ys, value);
        // NaN equals nothing, itself included: make it a group of one so the walk advances.
        if in_x + in_y == 0 {
            if from_x {
                in_x = 1;
            } else {
                in_y = 1;
            }
        }
        let group = TieGroup {
            in_x,
            in_y,
            x_below: self.i,
            y_below: self.j,
        };
        self.i += in_x;
        self.j += in_y;
        Some(group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_both_samples() {
        let x = [1.0, 2.0, 2.0, 5.0];
        let y = [0.0, 2.0, 3.0, 5.0, 5.0];
        let groups: Vec<(usize, usize)> =
            TieGroups::new(&x, &y).map(|g| (g.in_x, g.in_y)).collect();
        assert_eq!(groups, [(0, 1), (1, 0), (2, 1), (0, 1), (1, 2)]);
    }

    #[test]
    fn nan_does_not_stall() {
        let x = [1.0, f64::NAN];
        let y = [f64::NAN];
        assert_eq!(TieGroups::new(&x, &y).count(), 3);
    }
}
