//! Moderated variances (Smyth 2004, limma's `squeezeVar`): many small
//! samples, each with a variance of few degrees of freedom, borrow strength
//! from one another. The sample variances are modelled as draws around a
//! common prior `s0²` with `d0` prior degrees of freedom, both estimated
//! from the variances themselves by the method of moments on their
//! logarithms; each variance is then shrunk towards `s0²`, and its test
//! gains `d0` degrees of freedom. A case that varies more than the others
//! keeps a wider variance; with a few launches per case this is the
//! difference between a usable t-test and one with 2 degrees of freedom.

use statrs::function::gamma::digamma;

/// The prior the variances share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// Prior degrees of freedom; infinite when the variances scatter no
    /// more than sampling alone explains (then every variance is `s0²`).
    pub df: f64,
    pub variance: f64,
}

impl Prior {
    /// Estimated from sample variances that each have `df` degrees of
    /// freedom; zero variances (identical values) carry no information on
    /// a logarithmic scale and are left out. None with fewer than two
    /// positive variances.
    pub fn estimate(variances: &[f64], df: f64) -> Option<Prior> {
        let logs: Vec<f64> = variances
            .iter()
            .filter(|v| v.is_finite() && **v > 0.0)
            .map(|v| v.ln() - digamma(df / 2.0) + (df / 2.0).ln())
            .collect();
        let n = logs.len();
        if n < 2 {
            return None;
        }
        let mean = logs.iter().sum::<f64>() / n as f64;
        let spread = logs.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / (n - 1) as f64
            - trigamma(df / 2.0);
        if spread <= 0.0 {
            return Some(Prior {
                df: f64::INFINITY,
                variance: mean.exp(),
            });
        }
        let d0 = 2.0 * trigamma_inverse(spread);
        Some(Prior {
            df: d0,
            variance: (mean + digamma(d0 / 2.0) - (d0 / 2.0).ln()).exp(),
        })
    }

    /// A variance with `df` degrees of freedom, shrunk towards the prior:
    /// the moderated variance and its degrees of freedom.
    pub fn moderate(&self, variance: f64, df: f64) -> (f64, f64) {
        if self.df.is_infinite() {
            return (self.variance, f64::INFINITY);
        }
        (
            (self.df * self.variance + df * variance) / (self.df + df),
            self.df + df,
        )
    }
}

/// P(T > t) for Student's t with `df` degrees of freedom, the normal's
/// when `df` is infinite (a moderated test whose prior is everything).
pub fn t_upper_tail(t: f64, df: f64) -> f64 {
    super::special::students_t_sf(t, df)
}

/// The t with P(T > t) = `p` (0 < p < 1/2) for `df` degrees of freedom:
/// [`t_upper_tail`] inverted by bisection, so that a threshold and the
/// test that meets it agree to the last digit.
pub fn t_upper_quantile(p: f64, df: f64) -> f64 {
    let (mut low, mut high) = (0.0f64, 1.0f64);
    while t_upper_tail(high, df) > p && high < 1e12 {
        high *= 2.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (low + high);
        match t_upper_tail(mid, df) > p {
            true => low = mid,
            false => high = mid,
        }
    }
    high
}

/// ψ′(x) for x > 0: the recurrence ψ′(x) = ψ′(x + 1) + 1/x² up to x ≥ 10,
/// then the asymptotic series (error below 1e-13 there).
pub fn trigamma(mut x: f64) -> f64 {
    let mut sum = 0.0;
    while x < 10.0 {
        sum += 1.0 / (x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    sum + 1.0 / x
        + x2 / 2.0
        + x2 / x
            * (1.0 / 6.0
                - x2 * (1.0 / 30.0 - x2 * (1.0 / 42.0 - x2 * (1.0 / 30.0 - x2 * 5.0 / 66.0))))
}

/// The x > 0 with ψ′(x) = y, by Newton's method on 1/ψ′, which is nearly
/// linear (Smyth's algorithm).
pub fn trigamma_inverse(y: f64) -> f64 {
    if y > 1e7 {
        return 1.0 / y.sqrt();
    }
    if y < 1e-6 {
        return 1.0 / y;
    }
    let mut x = 0.5 + 1.0 / y;
    for _ in 0..50 {
        let t = trigamma(x);
        let step = t * (1.0 - t / y) / polygamma2(x);
        x += step;
        if -step / x < 1e-10 {
            break;
        }
    }
    x
}

/// ψ″(x) for x > 0, as [`trigamma`].
fn polygamma2(mut x: f64) -> f64 {
    let mut sum = 0.0;
    while x < 10.0 {
        sum -= 2.0 / (x * x * x);
        x += 1.0;
    }
    let x2 = 1.0 / (x * x);
    sum - x2 - x2 / x - x2 * x2 * (0.5 - x2 * (1.0 / 6.0 - x2 * (1.0 / 6.0 - x2 * 3.0 / 10.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::f64::consts::PI;

    #[test]
    fn t_upper_quantile_has_its_known_values() {
        // Student's t tables: t(0.975; 4) = 2.7764, t(0.95; 2) = 2.9200,
        // t(0.995; 9) = 3.2498; the normal's 1.6449 with infinite df.
        for (p, df, t) in [
            (0.025, 4.0, 2.776_445),
            (0.05, 2.0, 2.919_986),
            (0.005, 9.0, 3.249_836),
            (0.05, f64::INFINITY, 1.644_854),
        ] {
            let q = t_upper_quantile(p, df);
            assert!((q - t).abs() < 1e-5, "{p} {df}: {q}");
            assert!((t_upper_tail(q, df) - p).abs() < 1e-12, "{p} {df}");
        }
    }

    #[test]
    fn trigamma_has_its_known_values() {
        // ψ′(1) = π²/6, ψ′(1/2) = π²/2, ψ′(n + 1) = π²/6 − Σ 1/k².
        assert!((trigamma(1.0) - PI * PI / 6.0).abs() < 1e-12);
        assert!((trigamma(0.5) - PI * PI / 2.0).abs() < 1e-12);
        let tail: f64 = (1..=9).map(|k| 1.0 / (k * k) as f64).sum();
        assert!((trigamma(10.0) - (PI * PI / 6.0 - tail)).abs() < 1e-12);
        for x in [0.01, 0.3, 1.7, 9.9, 10.1, 40.0, 1e4] {
            let back = trigamma_inverse(trigamma(x));
            assert!((back - x).abs() < 1e-8 * x.max(1.0), "{x}: {back}");
            // ψ″ as the derivative of ψ′.
            let h = 1e-5 * x;
            let slope = (trigamma(x + h) - trigamma(x - h)) / (2.0 * h);
            assert!((polygamma2(x) - slope).abs() < 1e-5 * slope.abs(), "{x}");
        }
    }

    /// Variances drawn as Smyth's model has them: σᵢ² from a scaled
    /// inverse χ² prior, then sᵢ² = σᵢ² χ²_d / d.
    fn draw(prior: Prior, df: f64, n: usize, seed: u64) -> Vec<f64> {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let mut chi2 = |k: f64| -> f64 {
            (0..k as usize)
                .map(|_| {
                    // Box–Muller.
                    let (u, v): (f64, f64) = (rng.gen(), rng.gen());
                    -2.0 * (1.0 - u).ln() * (2.0 * PI * v).cos().powi(2)
                })
                .sum()
        };
        (0..n)
            .map(|_| {
                let sigma2 = if prior.df.is_infinite() {
                    prior.variance
                } else {
                    prior.df * prior.variance / chi2(prior.df)
                };
                sigma2 * chi2(df) / df
            })
            .collect()
    }

    #[test]
    fn the_prior_is_recovered_from_its_draws() {
        let truth = Prior {
            df: 8.0,
            variance: 0.01,
        };
        let estimate = Prior::estimate(&draw(truth, 2.0, 20_000, 1), 2.0).unwrap();
        assert!((estimate.df - 8.0).abs() < 1.0, "{estimate:?}");
        assert!(
            (estimate.variance / 0.01 - 1.0).abs() < 0.05,
            "{estimate:?}"
        );
        // Variances that only sampling scatters: the prior is everything.
        let common = Prior {
            df: f64::INFINITY,
            variance: 0.04,
        };
        let estimate = Prior::estimate(&draw(common, 3.0, 20_000, 2), 3.0).unwrap();
        assert!(estimate.df > 100.0, "{estimate:?}");
        assert!(
            (estimate.variance / 0.04 - 1.0).abs() < 0.05,
            "{estimate:?}"
        );
    }

    #[test]
    fn moderation_weighs_by_degrees_of_freedom() {
        let prior = Prior {
            df: 6.0,
            variance: 1.0,
        };
        assert_eq!(prior.moderate(4.0, 2.0), ((6.0 + 8.0) / 8.0, 8.0));
        let flat = Prior {
            df: f64::INFINITY,
            variance: 1.0,
        };
        assert_eq!(flat.moderate(4.0, 2.0), (1.0, f64::INFINITY));
        assert_eq!(Prior::estimate(&[1.0, 0.0], 2.0), None);
    }
}
