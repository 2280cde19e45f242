//! The "usual" time of an operation and the overhead above it, after the
//! statistical model of the project's seed paper 003 (the usual time of
//! each MPI communication event, and the overhead beyond it): a measured time is
//! t = t_min + t_err, with t_min ≈ min(S) and an error t_err that follows a
//! fitted distribution; the q_max quantile of that distribution bounds the
//! usual error, t_max = min(S) + t_err,max, and whatever a time spends
//! beyond t_max is overhead.
//!
//! The steps, for the observations S of one candidate:
//! 1. **Ticks.** Each error t − min(S) is rounded to whole timer ticks (the
//!    resolution r): the timer resolves nothing finer, and it keeps the
//!    windows immune to floating-point noise (3 ticks may compute as 2.999…).
//! 2. **Windows** of m ticks (w = m·r); window k holds ticks km … km+m−1.
//!    The rule ([`window_ticks`]): m = max(1, ⌊2·IQR / ∛n⌋) with the IQR of
//!    the ticks, i.e. the Freedman–Diaconis width rounded *down* to whole
//!    ticks. Whole ticks, because other widths alias with the timer's grid
//!    (windows of alternately 2 and 3 ticks); rounded down, so that data
//!    spread over a few ticks keep the paper's window = resolution, where the
//!    Poisson model means what the paper says. The IQR ignores outliers.
//! 3. **Fits** by maximum likelihood on the window indices k_i (both closed
//!    form):
//!    - Poisson, P(k) = λᵏ e^{−λ} / k!, λ in *windows*: λ̂ = k̄.
//!    - Exponential discretised per window (a geometric law), the paper's
//!      P(k) = (1 − e^{−λw}) e^{−λwk}, λ a *rate in 1/s*:
//!      λ̂ = ln(1 + 1/k̄) / w. Unlike the Poisson law it is the same λ for
//!      any window width.
//!
//!    Confidence intervals are Wald intervals from the Fisher information.
//! 4. **Model choice**: the higher log-likelihood of the window indices
//!    (a tie, as when all errors are in window 0, goes to Poisson). Both
//!    models have one parameter, so this is also the AIC's choice. The paper
//!    takes the lower χ², but each model's χ² pools its own bins and has its
//!    own degrees of freedom, while the likelihood scores every window alike.
//! 5. **Goodness of fit**: Pearson's χ² on pooled bins, df = bins − 2 (one
//!    fitted parameter). Bins are grown from window 0 until each expects at
//!    least [`MIN_EXPECTED`] observations; one that would leave less than
//!    that to the rest becomes the last, open-ended bin. With fewer than 3
//!    bins there is no test (`fit_p = None`).
//! 6. **Quantile**: k_q = min{k : F(k) ≥ q_max} (SciPy's `ppf`); windows
//!    0…k_q are usual. t_max lies half a tick below window k_q + 1:
//!    t_err,max = ((k_q + 1)·m − ½)·r, so that t ≤ t_max exactly for the
//!    times in usual windows, whose ticks end at (k_q + 1)·m − 1.
//!
//! The fits are plain maximum likelihood and not robust: one time 10⁵ windows
//! out moves k̄, and so λ and t_max, by 10⁵/n windows (the χ² test then
//! rejects the fit). And min(S) stands for t_min only if some time has
//! almost no error: a Poisson law with n·e^{−λ} ≪ 1 puts even the smallest
//! error windows above 0, so min(S) > t_min and λ̂ < λ.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ChiSquared, ContinuousCDF, Discrete, DiscreteCDF, Poisson};
use statrs::function::gamma::ln_gamma;

use super::describe::{lerp, quantile_position, quantile_unsorted, Selected};

/// Fewest observations [`fit`] accepts: 4 pooled bins of [`MIN_EXPECTED`]
/// can then exist, a χ² test with 2 degrees of freedom.
pub const MIN_OBSERVATIONS: usize = 20;
/// Fewest expected observations in a pooled χ² bin (Cochran's rule).
pub const MIN_EXPECTED: f64 = 5.0;
/// z for two-sided 95% confidence intervals.
const Z95: f64 = 1.959_963_984_540_054;

/// The fitted error distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    Poisson,
    Exponential,
}

/// The usual time of one candidate: the model of Kluge, Knüpfer & Nagel
/// (2005) fitted to its times.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Usual {
    /// The model with the higher log-likelihood.
    pub model: Model,
    /// Poisson: mean error in windows. Exponential: rate in 1/s.
    pub lambda: f64,
    /// 95% Wald interval of `lambda` (Fisher information), clamped at 0.
    pub lambda_ci: [f64; 2],
    /// The model's mean error: mean window index × window.
    pub mean_error_s: f64,
    pub resolution_s: f64,
    /// Window width in ticks (m) and in seconds (w = m·r).
    pub window_ticks: u64,
    pub window_s: f64,
    /// min(S), taken for t_min.
    pub tmin_s: f64,
    pub qmax: f64,
    /// k_q: the last usual window.
    pub quantile_window: u64,
    /// t_err,max = ((k_q + 1)·m − ½)·r.
    pub terr_max_s: f64,
    /// t_min + t_err,max: times above it are overhead.
    pub tmax_s: f64,
    /// Σ max(0, t − t_max) / Σ t.
    pub overhead_share: f64,
    /// How many times exceed t_max.
    pub above_tmax: usize,
    pub log_likelihood: f64,
    /// χ² goodness of fit of the chosen model; None with fewer than 3 bins.
    pub fit_chi2: Option<f64>,
    pub fit_df: usize,
    pub fit_p: Option<f64>,
    /// The other model's log-likelihood and χ² p-value, for comparison.
    pub other_log_likelihood: f64,
    pub other_fit_p: Option<f64>,
    /// The plain q_max quantile of S (linear interpolation, as NumPy).
    pub empirical_tmax_s: f64,
    pub n: usize,
}

/// The observations of one candidate as window indices.
#[derive(Clone, Debug, PartialEq)]
pub struct Windows {
    pub resolution_s: f64,
    pub window_ticks: u64,
    pub tmin_s: f64,
    pub n: usize,
    /// (window index, count) of each occupied window, ascending.
    pub occupied: Vec<(u64, u64)>,
}

/// One model fitted to [`Windows`].
#[derive(Clone, Debug, PartialEq)]
pub struct ModelFit {
    pub model: Model,
    /// Poisson: mean in windows; exponential: rate in 1/s (∞ when every
    /// error is in window 0).
    pub lambda: f64,
    pub lambda_ci: [f64; 2],
    /// Mean window index under the fitted law.
    pub mean_windows: f64,
    pub log_likelihood: f64,
    pub bins: Vec<PooledBin>,
    pub gof: Option<Gof>,
}

/// A χ² bin: windows `first..=last` (`last = None`: to infinity).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PooledBin {
    pub first: u64,
    pub last: Option<u64>,
    pub observed: u64,
    pub expected: f64,
}

/// Pearson's χ² goodness of fit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gof {
    pub statistic: f64,
    pub df: usize,
    pub p_value: f64,
    /// ln of the p-value, finite where `p_value` underflows to 0.
    pub log_p_value: f64,
}

/// What a plot needs: windows 0, 1, … (or bins of several windows) with
/// counts and the fitted model's expected counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Windows per bin (1: each bin is one window).
    pub windows_per_bin: u64,
    /// Bin i spans `edges_s[i]` to `edges_s[i + 1]` (absolute seconds, upper edge excluded).
    pub edges_s: Vec<f64>,
    pub counts: Vec<u64>,
    pub expected: Vec<f64>,
    /// Observations and expected count past the last bin shown.
    pub beyond: u64,
    pub expected_beyond: f64,
}

/// Fits Kluge et al.'s (2005) model with windows from [`window_ticks`]. None when
/// fewer than [`MIN_OBSERVATIONS`], a non-finite time, a resolution not
/// > 0, or q_max outside (0, 1) (q_max = 1 would accept any time).
pub fn fit(observations: &[f64], resolution_s: f64, qmax: f64) -> Option<Usual> {
    fit_with_windows(observations, None, resolution_s, qmax).map(|(fit, _)| fit)
}

/// [`fit`], and the window indices it was fitted to (what a histogram of
/// the observations needs), from one count of the observations' ticks.
/// `selected`: the observations' order statistics, if selected already
/// with the q_max quantile among them (else it is selected here).
pub fn fit_with_windows(
    observations: &[f64],
    selected: Option<&Selected>,
    resolution_s: f64,
    qmax: f64,
) -> Option<(Usual, Windows)> {
    let ticks = Ticks::new(observations, resolution_s)?;
    let m = ticks.window_ticks();
    fit_counted(observations, selected, &ticks, m, qmax)
}

/// [`fit`] with windows of `window_ticks` ticks (1: Kluge et al.'s window =
/// resolution).
pub fn fit_windowed(
    observations: &[f64],
    resolution_s: f64,
    window_ticks: u64,
    qmax: f64,
) -> Option<Usual> {
    let ticks = Ticks::new(observations, resolution_s)?;
    fit_counted(observations, None, &ticks, window_ticks, qmax).map(|(fit, _)| fit)
}

/// [`fit_windowed`] from the observations' ticks, counted once.
fn fit_counted(
    observations: &[f64],
    selected: Option<&Selected>,
    ticks: &Ticks,
    window_ticks: u64,
    qmax: f64,
) -> Option<(Usual, Windows)> {
    let resolution_s = ticks.resolution_s;
    if observations.len() < MIN_OBSERVATIONS || !(qmax > 0.0 && qmax < 1.0) {
        return None;
    }
    let windows = ticks.windows(window_ticks)?;
    let poisson = windows.fit(Model::Poisson);
    let exponential = windows.fit(Model::Exponential);
    let (chosen, other) = if exponential.log_likelihood > poisson.log_likelihood {
        (exponential, poisson)
    } else {
        (poisson, exponential)
    };
    let dist = Dist::new(chosen.model, chosen.lambda, windows.window_s());
    let k_q = dist.ppf(qmax);
    let r = resolution_s;
    let terr_max_s = ((k_q as f64 + 1.0) * window_ticks as f64 - 0.5) * r;
    let tmax_s = windows.tmin_s + terr_max_s;
    let (mut overhead, mut total, mut above) = (0.0, 0.0, 0);
    for &t in observations {
        total += t;
        if t > tmax_s {
            overhead += t - tmax_s;
            above += 1;
        }
    }
    let gof = chosen.gof;
    let usual = Usual {
        model: chosen.model,
        lambda: chosen.lambda,
        lambda_ci: chosen.lambda_ci,
        mean_error_s: chosen.mean_windows * windows.window_s(),
        resolution_s,
        window_ticks,
        window_s: windows.window_s(),
        tmin_s: windows.tmin_s,
        qmax,
        quantile_window: k_q,
        terr_max_s,
        tmax_s,
        overhead_share: if total > 0.0 { overhead / total } else { 0.0 },
        above_tmax: above,
        log_likelihood: chosen.log_likelihood,
        fit_chi2: gof.map(|g| g.statistic),
        fit_df: gof.map_or(0, |g| g.df),
        fit_p: gof.map(|g| g.p_value),
        other_log_likelihood: other.log_likelihood,
        other_fit_p: other.gof.map(|g| g.p_value),
        empirical_tmax_s: match selected {
            Some(selected) => selected.quantile(qmax),
            None => quantile_unsorted(observations, qmax),
        },
        n: observations.len(),
    };
    Some((usual, windows))
}

/// The window rule: m = max(1, ⌊2·IQR / ∛n⌋) ticks, the IQR (NumPy's linear
/// quantiles) of the errors in ticks. None for no observations, a
/// non-finite one, or a resolution not > 0.
pub fn window_ticks(observations: &[f64], resolution_s: f64) -> Option<u64> {
    Some(Ticks::new(observations, resolution_s)?.window_ticks())
}

/// The observations' errors t − min(S) in whole ticks, counted: what the
/// window rule, the windows and their histograms need, without a sort
/// where the ticks are few (a table of counts), with one otherwise.
struct Ticks {
    resolution_s: f64,
    tmin_s: f64,
    n: usize,
    /// (tick, count) of each occupied tick, ascending.
    counts: Vec<(u64, u64)>,
}

impl Ticks {
    fn new(observations: &[f64], resolution_s: f64) -> Option<Ticks> {
        let tmin_s = valid_min(observations, resolution_s)?;
        let n = observations.len();
        // A table of counts up to a few ticks per observation; the rare
        // ticks beyond it are sorted. The table grows to the largest tick
        // counted in it: errors usually span far fewer ticks than 4n, and
        // zeroing all of it took longer than counting.
        let table_cap = 4 * n + 1024;
        let mut table: Vec<u64> = Vec::new();
        let mut beyond = Vec::new();
        for &t in observations {
            let tick = ticks(t, tmin_s, resolution_s);
            let at = tick as usize;
            if at >= table.len() && at < table_cap {
                table.resize((at + 1).max(2 * table.len()).min(table_cap), 0);
            }
            match table.get_mut(at) {
                Some(count) => *count += 1,
                None => beyond.push(tick),
            }
        }
        beyond.sort_unstable();
        let mut counts: Vec<(u64, u64)> = table
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(tick, &c)| (tick as u64, c))
            .collect();
        for tick in beyond {
            match counts.last_mut() {
                Some((last, c)) if *last == tick => *c += 1,
                _ => counts.push((tick, 1)),
            }
        }
        Some(Ticks {
            resolution_s,
            tmin_s,
            n,
            counts,
        })
    }

    /// The window rule on the counted ticks.
    fn window_ticks(&self) -> u64 {
        let iqr = self.quantile(0.75) - self.quantile(0.25);
        let width = (2.0 * iqr / (self.n as f64).cbrt()).floor();
        (width as u64).max(1)
    }

    /// Quantile `q` of the ticks, as NumPy's linear interpolation.
    fn quantile(&self, q: f64) -> f64 {
        let (below, above, t) = quantile_position(self.n, q);
        lerp(self.nth(below) as f64, self.nth(above) as f64, t)
    }

    /// The `k`-th smallest tick (0-based).
    fn nth(&self, k: usize) -> u64 {
        let mut seen = 0;
        for &(tick, count) in &self.counts {
            seen += count as usize;
            if k < seen {
                return tick;
            }
        }
        self.counts.last().map_or(0, |&(tick, _)| tick)
    }

    /// The window indices of windows of `window_ticks` ticks; None for 0.
    fn windows(&self, window_ticks: u64) -> Option<Windows> {
        if window_ticks == 0 {
            return None;
        }
        let mut occupied: Vec<(u64, u64)> = Vec::new();
        for &(tick, count) in &self.counts {
            let window = tick / window_ticks;
            match occupied.last_mut() {
                Some((w, c)) if *w == window => *c += count,
                _ => occupied.push((window, count)),
            }
        }
        Some(Windows {
            resolution_s: self.resolution_s,
            window_ticks,
            tmin_s: self.tmin_s,
            n: self.n,
            occupied,
        })
    }
}

/// min(S) when the inputs are usable.
fn valid_min(observations: &[f64], resolution_s: f64) -> Option<f64> {
    if observations.is_empty()
        || !(resolution_s > 0.0 && resolution_s.is_finite())
        || observations.iter().any(|t| !t.is_finite())
    {
        return None;
    }
    observations.iter().copied().reduce(f64::min)
}

/// t − t_min in whole ticks (half-ticks away from zero; saturating), as
/// `f64::round` would give them: that is a library call on the baseline
/// x86-64 target, a tenth of a usual-time fit.
fn ticks(t: f64, tmin: f64, resolution_s: f64) -> u64 {
    round_to_u64((t - tmin) / resolution_s)
}

/// `x.round() as u64` from the truncation: below 2⁵², x − ⌊x⌋ is exact
/// for x ≥ 0 (Sterbenz's lemma), so comparing it with ½ rounds halves away
/// from zero, and negative numbers and NaN give 0; from 2⁵² on, x is whole
/// (or beyond u64, which the cast saturates). Without a branch on the
/// fraction: which way a time rounds is a coin toss.
fn round_to_u64(x: f64) -> u64 {
    const WHOLE_FROM: f64 = (1u64 << 52) as f64;
    if x >= WHOLE_FROM {
        return x as u64;
    }
    let whole = (x as i64).max(0);
    (whole + i64::from(x - whole as f64 >= 0.5)) as u64
}

impl Windows {
    /// Window indices of `observations`; None as [`window_ticks`] or for
    /// `window_ticks` = 0.
    pub fn new(observations: &[f64], resolution_s: f64, window_ticks: u64) -> Option<Windows> {
        Ticks::new(observations, resolution_s)?.windows(window_ticks)
    }

    pub fn window_s(&self) -> f64 {
        self.window_ticks as f64 * self.resolution_s
    }

    /// The window index of time `t` (0 for times below t_min).
    pub fn window_of(&self, t: f64) -> u64 {
        window_of(t, self.tmin_s, self.resolution_s, self.window_ticks)
    }

    /// Σ k_i.
    fn sum(&self) -> f64 {
        self.occupied
            .iter()
            .map(|&(k, c)| k as f64 * c as f64)
            .sum()
    }

    /// Maximum-likelihood fit of `model`, with its χ² goodness of fit.
    pub fn fit(&self, model: Model) -> ModelFit {
        let n = self.n as f64;
        let sum = self.sum();
        let mean = sum / n;
        let w = self.window_s();
        let (lambda, lambda_ci, log_likelihood) = match model {
            Model::Poisson => {
                let ln_factorials: f64 = self
                    .occupied
                    .iter()
                    .map(|&(k, c)| c as f64 * ln_gamma(k as f64 + 1.0))
                    .sum();
                let ll = if mean > 0.0 {
                    sum * mean.ln() - n * mean - ln_factorials
                } else {
                    0.0
                };
                // Fisher information n/λ.
                let half = Z95 * (mean / n).sqrt();
                (mean, [(mean - half).max(0.0), mean + half], ll)
            }
            Model::Exponential => {
                // θ = λw; q = e^{−θ} = k̄ / (1 + k̄) at the maximum.
                let theta = (1.0 / mean).ln_1p();
                let ll = if mean > 0.0 {
                    n * (-(-theta).exp_m1()).ln() - theta * sum
                } else {
                    0.0
                };
                // Fisher information of θ: n·q / (1 − q)².
                let q = (-theta).exp();
                let half = Z95 * -(-theta).exp_m1() / (n * q).sqrt();
                let ci = [((theta - half) / w).max(0.0), (theta + half) / w];
                (theta / w, ci, ll)
            }
        };
        let mut fit = ModelFit {
            model,
            lambda,
            lambda_ci,
            mean_windows: mean,
            log_likelihood,
            bins: Vec::new(),
            gof: None,
        };
        let dist = Dist::new(model, lambda, w);
        fit.bins = self.pooled_bins(&dist);
        fit.gof = chi_square(&fit.bins);
        fit
    }

    /// Bins from window 0, each closed as soon as it expects
    /// [`MIN_EXPECTED`] unless the rest would then expect fewer, in which
    /// case it is the last, open-ended bin.
    fn pooled_bins(&self, dist: &Dist) -> Vec<PooledBin> {
        let n = self.n as f64;
        let mut bins = Vec::new();
        let mut first = 0u64;
        loop {
            let rest = if first == 0 {
                n
            } else {
                n * dist.sf(first - 1)
            };
            // A closed bin and the rest after it need MIN_EXPECTED each; the
            // check also keeps the search below from running off to infinity.
            let closed = if rest >= 2.0 * MIN_EXPECTED {
                let enough = |last: u64| n * dist.mass(first, last) >= MIN_EXPECTED;
                first_true(first, enough).filter(|&last| n * dist.sf(last) >= MIN_EXPECTED)
            } else {
                None
            };
            match closed {
                Some(last) => {
                    bins.push((first, Some(last), n * dist.mass(first, last)));
                    first = last + 1;
                }
                None => {
                    bins.push((first, None, rest));
                    break;
                }
            }
        }
        let mut occupied = self.occupied.iter().peekable();
        bins.into_iter()
            .map(|(first, last, expected)| {
                let mut observed = 0;
                while let Some(&&(k, c)) = occupied.peek() {
                    if last.is_some_and(|last| k > last) {
                        break;
                    }
                    observed += c;
                    occupied.next();
                }
                PooledBin {
                    first,
                    last,
                    observed,
                    expected,
                }
            })
            .collect()
    }
}

fn window_of(t: f64, tmin: f64, resolution_s: f64, window_ticks: u64) -> u64 {
    ticks(t, tmin, resolution_s) / window_ticks
}

/// Pearson's χ² with one fitted parameter; None with fewer than 3 bins.
fn chi_square(bins: &[PooledBin]) -> Option<Gof> {
    let df = bins.len().checked_sub(2).filter(|&df| df > 0)?;
    let statistic: f64 = bins
        .iter()
        .map(|b| (b.observed as f64 - b.expected).powi(2) / b.expected)
        .sum();
    let p_value = ChiSquared::new(df as f64).ok()?.sf(statistic);
    Some(Gof {
        statistic,
        df,
        p_value,
        log_p_value: super::special::chi_squared_log_sf(statistic, df as f64),
    })
}

/// Smallest k ≥ `from` with `pred(k)`, for a `pred` false then true; None
/// if it stays false up to u64 overflow.
fn first_true(from: u64, pred: impl Fn(u64) -> bool) -> Option<u64> {
    if pred(from) {
        return Some(from);
    }
    let (mut below, mut step) = (from, 1u64);
    loop {
        let probe = from.checked_add(step)?;
        if pred(probe) {
            // Bisect (below, probe].
            let mut above = probe;
            while above - below > 1 {
                let mid = below + (above - below) / 2;
                if pred(mid) {
                    above = mid;
                } else {
                    below = mid;
                }
            }
            return Some(above);
        }
        below = probe;
        step = step.checked_mul(2)?;
    }
}

/// A fitted law on window indices.
enum Dist {
    /// Everything in window 0 (λ̂ = 0, or θ̂ = ∞).
    Zero,
    Poisson(Poisson),
    /// P(k) = (1 − e^{−θ}) e^{−θk}.
    Geometric {
        theta: f64,
    },
}

impl Dist {
    fn new(model: Model, lambda: f64, window_s: f64) -> Dist {
        match model {
            Model::Poisson => match Poisson::new(lambda) {
                Ok(p) => Dist::Poisson(p),
                Err(_) => Dist::Zero,
            },
            Model::Exponential => {
                let theta = lambda * window_s;
                if theta.is_finite() {
                    Dist::Geometric { theta }
                } else {
                    Dist::Zero
                }
            }
        }
    }

    fn cdf(&self, k: u64) -> f64 {
        match self {
            Dist::Zero => 1.0,
            Dist::Poisson(p) => p.cdf(k),
            Dist::Geometric { theta } => -(-theta * (k as f64 + 1.0)).exp_m1(),
        }
    }

    fn sf(&self, k: u64) -> f64 {
        match self {
            Dist::Zero => 0.0,
            Dist::Poisson(p) => p.sf(k),
            Dist::Geometric { theta } => (-theta * (k as f64 + 1.0)).exp(),
        }
    }

    #[cfg(test)]
    fn pmf(&self, k: u64) -> f64 {
        self.mass(k, k)
    }

    /// P(first ≤ K ≤ last), from whichever tail avoids cancellation.
    fn mass(&self, first: u64, last: u64) -> f64 {
        match self {
            Dist::Zero => f64::from(u8::from(first == 0)),
            Dist::Poisson(p) if first == last => p.pmf(first),
            Dist::Geometric { theta } => {
                let width = (last - first) as f64 + 1.0;
                (-theta * first as f64).exp() * -(-theta * width).exp_m1()
            }
            _ if first == 0 => self.cdf(last),
            _ => {
                let below = self.cdf(first - 1);
                if below < 0.5 {
                    self.cdf(last) - below
                } else {
                    self.sf(first - 1) - self.sf(last)
                }
            }
        }
    }

    /// min{k : F(k) ≥ q}, as SciPy's `ppf`.
    fn ppf(&self, q: f64) -> u64 {
        match self {
            Dist::Zero => 0,
            Dist::Poisson(_) => first_true(0, |k| self.cdf(k) >= q).unwrap_or(u64::MAX),
            Dist::Geometric { theta } => {
                // F(k) ≥ q ⇔ k + 1 ≥ −ln(1 − q)/θ; then mend rounding.
                let guess = (-(-q).ln_1p() / theta).ceil() - 1.0;
                let mut k = guess.max(0.0) as u64;
                while k > 0 && self.cdf(k - 1) >= q {
                    k -= 1;
                }
                while self.cdf(k) < q {
                    k += 1;
                }
                k
            }
        }
    }
}

impl Usual {
    /// max(0, t − t_max): the overhead of one time.
    pub fn overhead(&self, t: f64) -> f64 {
        (t - self.tmax_s).max(0.0)
    }

    /// The overhead of each observation, in order.
    pub fn overheads(&self, observations: &[f64]) -> Vec<f64> {
        observations.iter().map(|&t| self.overhead(t)).collect()
    }

    /// Keeps the times t ≤ t_max, in input order, and counts those dropped.
    pub fn within_tmax(&self, observations: &[f64]) -> (Vec<f64>, usize) {
        let kept: Vec<f64> = observations
            .iter()
            .copied()
            .filter(|&t| t <= self.tmax_s)
            .collect();
        let dropped = observations.len() - kept.len();
        (kept, dropped)
    }

    /// The window index of time `t` (0 for times below t_min).
    pub fn window_of(&self, t: f64) -> u64 {
        window_of(t, self.tmin_s, self.resolution_s, self.window_ticks)
    }

    /// Windows 0 … up to `max_windows − 1` (fewer when no observation lies
    /// further), their counts and the chosen model's expected counts.
    pub fn histogram(&self, observations: &[f64], max_windows: usize) -> Histogram {
        self.histogram_binned(observations, 1, max_windows)
    }

    /// [`Usual::histogram`] with bins of `windows_per_bin` consecutive
    /// windows (0 is taken for 1): bin j holds windows j·g … j·g + g − 1,
    /// at most `max_bins` bins, fewer when no observation lies further.
    /// Memory is bounded by `max_bins` whatever the spread of the times.
    pub fn histogram_binned(
        &self,
        observations: &[f64],
        windows_per_bin: u64,
        max_bins: usize,
    ) -> Histogram {
        let mut occupied: Vec<(u64, u64)> = observations
            .iter()
            .map(|&t| (self.window_of(t), 1))
            .collect();
        occupied.sort_unstable();
        self.histogram_of_windows(&occupied, windows_per_bin, max_bins)
    }

    /// [`Usual::histogram_binned`] of observations given as (window index,
    /// count) pairs, as [`Windows`] holds them for the fitted ones.
    pub fn histogram_of_windows(
        &self,
        occupied: &[(u64, u64)],
        windows_per_bin: u64,
        max_bins: usize,
    ) -> Histogram {
        let g = windows_per_bin.max(1);
        let last_occupied = occupied.iter().map(|&(k, _)| k / g).max().unwrap_or(0);
        let shown = (last_occupied.saturating_add(1)).min(max_bins as u64) as usize;
        let mut counts = vec![0u64; shown];
        let mut beyond = 0;
        let mut total = 0;
        for &(k, count) in occupied {
            total += count;
            match counts.get_mut((k / g) as usize) {
                Some(c) => *c += count,
                None => beyond += count,
            }
        }
        let dist = Dist::new(self.model, self.lambda, self.window_s);
        let n = total as f64;
        let expected: Vec<f64> = (0..shown as u64)
            .map(|j| n * dist.mass(j * g, j * g + g - 1))
            .collect();
        let expected_beyond = match shown {
            0 => n,
            _ => n * dist.sf(shown as u64 * g - 1),
        };
        // Window k starts half a tick below its first tick, k·m.
        let r = self.resolution_s;
        let edges_s = (0..=shown as u64)
            .map(|j| self.tmin_s + ((j * g * self.window_ticks) as f64 - 0.5) * r)
            .collect();
        Histogram {
            windows_per_bin: g,
            edges_s,
            counts,
            expected,
            beyond,
            expected_beyond,
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use statrs::distribution::Poisson as PoissonLaw;

    use super::*;

    const NS: f64 = 1e-9;

    fn times(t0: f64, ticks: &[u64], resolution: f64) -> Vec<f64> {
        ticks.iter().map(|&k| t0 + k as f64 * resolution).collect()
    }

    fn poisson_ticks(rng: &mut ChaCha8Rng, lambda: f64, n: usize) -> Vec<u64> {
        let law = PoissonLaw::new(lambda).unwrap();
        (0..n).map(|_| rng.sample(law) as u64).collect()
    }

    /// An exponential time of mean `mean_ticks` ticks, truncated to ticks
    /// as a timer does: exactly geometric, P(k) ∝ e^{−k/mean_ticks}.
    fn exponential_ticks(rng: &mut ChaCha8Rng, mean_ticks: f64, n: usize) -> Vec<u64> {
        (0..n)
            .map(|_| (-(1.0 - rng.gen::<f64>()).ln() * mean_ticks).floor() as u64)
            .collect()
    }

    #[test]
    fn hand_checked_example() {
        // Ticks 0×8, 1×6, 2×4, 3×2: IQR 2, m = ⌊4/∛20⌋ = 1, k̄ = 1.
        let mut ticks = vec![0; 8];
        ticks.extend([1; 6].iter().chain(&[2; 4]).chain(&[3; 2]));
        let t = times(5e-6, &ticks, 1e-6);
        let u = fit(&t, 1e-6, 0.9).unwrap();
        // ln L: Poisson −20 − 4 ln 2 − 2 ln 6, geometric (θ = ln 2) −40 ln 2.
        let poisson_ll = -20.0 - 4.0 * 2f64.ln() - 2.0 * 6f64.ln();
        assert!((u.log_likelihood - poisson_ll).abs() < 1e-12);
        assert!((u.other_log_likelihood + 40.0 * 2f64.ln()).abs() < 1e-12);
        assert_eq!((u.model, u.window_ticks, u.n), (Model::Poisson, 1, 20));
        assert!((u.lambda - 1.0).abs() < 1e-15);
        // Poisson(1): F(1) = 0.736, F(2) = 0.920: windows 0..=2 are usual.
        assert_eq!(u.quantile_window, 2);
        assert!((u.tmax_s - 7.5e-6).abs() < 1e-18);
        assert_eq!(u.above_tmax, 2);
        let share = 2.0 * 0.5e-6 / t.iter().sum::<f64>();
        assert!((u.overhead_share - share).abs() < 1e-15);
        // Bins {0}, {1}, {2, 3, …}: observed 8, 6, 6 against 20/e, 20/e,
        // 20 − 40/e; χ² = 0.4034 on 1 degree of freedom.
        let e = 20.0 / std::f64::consts::E;
        let chi2 = (8.0 - e).powi(2) / e
            + (6.0 - e).powi(2) / e
            + (6.0 - (20.0 - 2.0 * e)).powi(2) / (20.0 - 2.0 * e);
        assert!((u.fit_chi2.unwrap() - chi2).abs() < 1e-12);
        assert_eq!(u.fit_df, 1);
        // scipy.stats.chi2.sf(0.40337, 1) = 0.52535
        let p = ChiSquared::new(1.0).unwrap().sf(chi2);
        assert!((u.fit_p.unwrap() - p).abs() < 1e-15 && (p - 0.52535).abs() < 1e-5);
    }

    #[test]
    fn discrete_quantiles_are_scipy_ppf() {
        // min{k : F(k) ≥ q}, checked by summing the probabilities.
        for theta in [0.01, 0.3, 1.0, 2.5] {
            let d = Dist::Geometric { theta };
            for q in [0.5, 0.8, 0.9, 0.95, 0.99] {
                let k = d.ppf(q);
                let cdf = |k: u64| (0..=k).map(|j| d.pmf(j)).sum::<f64>();
                assert!(cdf(k) >= q - 1e-12, "θ {theta} q {q}");
                assert!(k == 0 || cdf(k - 1) < q, "θ {theta} q {q}");
            }
        }
        let d = Dist::new(Model::Poisson, 1.0, 1.0);
        assert_eq!(d.ppf(0.73), 1);
        assert_eq!(d.ppf(0.74), 2);
        assert_eq!(d.ppf(0.99), 4);
        assert_eq!(Dist::Zero.ppf(0.99), 0);
    }

    /// Fits of known laws: the true λ in the 95% interval, the right model.
    struct Recovery {
        cases: usize,
        covered: usize,
        right_model: usize,
    }

    fn recover(model: Model, truths: &[f64], sizes: &[usize], seeds: u64) -> Recovery {
        let mut r = Recovery {
            cases: 0,
            covered: 0,
            right_model: 0,
        };
        for &truth in truths {
            for &n in sizes {
                for seed in 0..seeds {
                    let mut rng = ChaCha8Rng::seed_from_u64(seed * 1000 + n as u64);
                    let t0 = rng.gen_range(2e-6..50e-6);
                    let (ticks, lambda) = match model {
                        // λ in windows: the rule keeps windows of 1 tick here.
                        Model::Poisson => (poisson_ticks(&mut rng, truth, n), truth),
                        // Mean in ticks; rate 1 / (mean · r) per second.
                        Model::Exponential => {
                            (exponential_ticks(&mut rng, truth, n), 1.0 / (truth * NS))
                        }
                    };
                    let t = times(t0, &ticks, NS);
                    let windows = Windows::new(&t, NS, window_ticks(&t, NS).unwrap()).unwrap();
                    if model == Model::Poisson {
                        assert_eq!(windows.window_ticks, 1, "λ {truth} n {n}");
                    }
                    let f = windows.fit(model);
                    r.cases += 1;
                    r.covered += usize::from(f.lambda_ci[0] <= lambda && lambda <= f.lambda_ci[1]);
                    r.right_model += usize::from(fit(&t, NS, 0.9).unwrap().model == model);
                }
            }
        }
        eprintln!(
            "{model:?}: λ in the 95% interval {}/{}, model chosen {}/{}",
            r.covered, r.cases, r.right_model, r.cases
        );
        r
    }

    #[test]
    fn fits_recover_poisson_errors() {
        // λ ≤ 3 windows, n ≥ 100: some error is 0 (min(S) = t_min) but for
        // a chance below 0.6%.
        recovers(Model::Poisson, &[0.5, 1.0, 2.0, 3.0]);
    }

    #[test]
    fn fits_recover_exponential_errors() {
        recovers(Model::Exponential, &[2.0, 10.0, 50.0, 300.0]);
    }

    /// At 4 sample sizes × 8 seeds per parameter, the true λ is in the
    /// 95 % interval and the right model is chosen in at least 90 % of the
    /// cases.
    fn recovers(model: Model, parameters: &[f64]) {
        let r = recover(model, parameters, &[100, 300, 1000, 3000], 8);
        assert_eq!(r.cases, parameters.len() * 32);
        assert!(r.covered as f64 >= 0.9 * r.cases as f64, "{}", r.covered);
        assert!(
            r.right_model as f64 >= 0.9 * r.cases as f64,
            "{}",
            r.right_model
        );
    }

    #[test]
    fn overheads_and_filter_agree_with_windows() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let t = times(20e-6, &exponential_ticks(&mut rng, 40.0, 500), NS);
        let u = fit(&t, NS, 0.9).unwrap();
        let (kept, dropped) = u.within_tmax(&t);
        assert_eq!(dropped, u.above_tmax);
        assert_eq!(kept.len() + dropped, t.len());
        for &x in &t {
            let usual = u.window_of(x) <= u.quantile_window;
            assert_eq!(usual, x <= u.tmax_s, "{x}");
            assert_eq!(usual, u.overhead(x) == 0.0, "{x}");
        }
        let total: f64 = t.iter().sum();
        let overhead: f64 = u.overheads(&t).iter().sum();
        assert!((overhead / total - u.overhead_share).abs() < 1e-15);
        assert!(u.overhead_share > 0.0 && dropped > 0);
        // The empirical q_max quantile is near the model's for a good fit.
        assert!((u.empirical_tmax_s - u.tmax_s).abs() < 0.2 * u.terr_max_s);
    }

    #[test]
    fn histogram_for_a_plot() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let t = times(20e-6, &poisson_ticks(&mut rng, 2.0, 400), NS);
        let u = fit(&t, NS, 0.9).unwrap();
        let h = u.histogram(&t, 1000);
        let shown = h.counts.len();
        assert_eq!(h.beyond, 0);
        assert_eq!(h.counts.iter().sum::<u64>(), 400);
        assert_eq!(h.edges_s.len(), shown + 1);
        assert!((h.edges_s[0] - (20e-6 - 0.5 * NS)).abs() < 1e-20);
        assert!((h.edges_s[1] - h.edges_s[0] - u.window_s).abs() < 1e-20);
        let expected: f64 = h.expected.iter().sum::<f64>() + h.expected_beyond;
        assert!((expected - 400.0).abs() < 1e-9);
        let short = u.histogram(&t, 2);
        assert_eq!(short.counts, h.counts[..2]);
        assert_eq!(short.beyond, 400 - h.counts[0] - h.counts[1]);
    }

    #[test]
    fn binned_histogram_sums_windows() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let t = times(20e-6, &exponential_ticks(&mut rng, 40.0, 600), NS);
        let u = fit(&t, NS, 0.95).unwrap();
        let fine = u.histogram(&t, 100_000);
        let coarse = u.histogram_binned(&t, 3, 5);
        assert_eq!(coarse.counts.len(), 5);
        for j in 0..5 {
            let windows = 3 * j..3 * j + 3;
            assert_eq!(
                coarse.counts[j],
                fine.counts[windows.clone()].iter().sum::<u64>()
            );
            let expected: f64 = fine.expected[windows].iter().sum();
            assert!((coarse.expected[j] - expected).abs() < 1e-9 * (1.0 + expected));
            assert!((coarse.edges_s[j] - fine.edges_s[3 * j]).abs() < 1e-20);
        }
        assert_eq!(coarse.beyond, 600 - coarse.counts.iter().sum::<u64>());
        let total = coarse.expected.iter().sum::<f64>() + coarse.expected_beyond;
        assert!((total - 600.0).abs() < 1e-9);
        assert_eq!(u.histogram_binned(&t, 1, 7), u.histogram(&t, 7));
    }

    #[test]
    fn serializes_with_lowercase_models() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let t = times(20e-6, &exponential_ticks(&mut rng, 40.0, 300), NS);
        let u = fit(&t, NS, 0.95).unwrap();
        let json = serde_json::to_string(&u).unwrap();
        assert!(json.contains(r#""model":"exponential""#), "{json}");
        assert_eq!(serde_json::from_str::<Usual>(&json).unwrap(), u);
        assert_eq!(
            serde_json::to_string(&Model::Poisson).unwrap(),
            r#""poisson""#
        );
    }

    #[test]
    fn all_observations_equal() {
        let t = vec![12.5e-6; 50];
        let u = fit(&t, NS, 0.9).unwrap();
        assert_eq!(
            (u.model, u.lambda, u.lambda_ci),
            (Model::Poisson, 0.0, [0.0; 2])
        );
        assert_eq!((u.window_ticks, u.quantile_window, u.above_tmax), (1, 0, 0));
        assert_eq!(u.tmax_s, 12.5e-6 + 0.5 * NS);
        assert_eq!(
            (u.overhead_share, u.fit_p, u.other_fit_p),
            (0.0, None, None)
        );
        assert_eq!((u.log_likelihood, u.other_log_likelihood), (0.0, 0.0));
        assert_eq!(u.empirical_tmax_s, 12.5e-6);
        assert_eq!(u.within_tmax(&t), (t.clone(), 0));
        let h = u.histogram(&t, 10);
        assert_eq!((h.counts, h.expected, h.beyond), (vec![50], vec![50.0], 0));
        // Round trips: no infinity or NaN reaches the JSON.
        let json = serde_json::to_string(&u).unwrap();
        assert_eq!(serde_json::from_str::<Usual>(&json).unwrap(), u);
        let exponential = Windows::new(&t, NS, 1).unwrap().fit(Model::Exponential);
        assert_eq!(exponential.lambda, f64::INFINITY);
    }

    #[test]
    fn ticks_round_as_f64_round() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let halves = (0..60).flat_map(|e| {
            let x = 2f64.powi(e) + 0.5;
            [x, x.next_down(), x.next_up()]
        });
        let special = [
            0.0,
            -0.0,
            0.5,
            0.5f64.next_down(),
            1.5,
            2.5,
            -0.5,
            -0.7,
            -3.0,
            2f64.powi(52) + 1.0,
            2f64.powi(53),
            2f64.powi(63),
            2f64.powi(64),
            2f64.powi(64).next_down(),
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let random = (0..10_000).map(|_| rng.gen_range(0.0..1e4) * rng.gen_range(0.0..1e3));
        for x in halves.chain(special).chain(random) {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
    }

    #[test]
    fn too_few_or_invalid_inputs() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let t = times(20e-6, &poisson_ticks(&mut rng, 2.0, MIN_OBSERVATIONS), NS);
        assert!(fit(&t, NS, 0.9).is_some());
        assert_eq!(fit(&t[1..], NS, 0.9), None);
        assert_eq!(fit(&[], NS, 0.9), None);
        for qmax in [0.0, 1.0, -0.1, f64::NAN] {
            assert_eq!(fit(&t, NS, qmax), None, "q_max {qmax}");
        }
        for resolution in [0.0, -NS, f64::NAN, f64::INFINITY] {
            assert_eq!(fit(&t, resolution, 0.9), None, "resolution {resolution}");
        }
        assert_eq!(fit_windowed(&t, NS, 0, 0.9), None);
        let mut bad = t.clone();
        bad[3] = f64::NAN;
        assert_eq!(fit(&bad, NS, 0.9), None);
        bad[3] = f64::INFINITY;
        assert_eq!(fit(&bad, NS, 0.9), None);
    }

    #[test]
    fn resolution_larger_than_the_spread() {
        // Spread 2 µs under a 1 ms timer: every error rounds to tick 0.
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let t: Vec<f64> = (0..100).map(|_| 1e-3 + rng.gen_range(0.0..2e-6)).collect();
        let u = fit(&t, 1e-3, 0.9).unwrap();
        assert_eq!(
            (u.model, u.lambda, u.window_ticks),
            (Model::Poisson, 0.0, 1)
        );
        assert_eq!(u.tmax_s, u.tmin_s + 0.5e-3);
        assert_eq!((u.above_tmax, u.overhead_share, u.fit_p), (0, 0.0, None));
    }

    #[test]
    fn single_huge_outlier() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let bulk = times(20e-6, &exponential_ticks(&mut rng, 40.0, 999), NS);
        let clean = fit(&bulk, NS, 0.9).unwrap();
        let mut t = bulk.clone();
        t.insert(500, 0.5);
        let u = fit(&t, NS, 0.9).unwrap();
        // The window rule ignores it; the sparse windows need no 10⁸ slots.
        assert!(u.window_ticks.abs_diff(clean.window_ticks) <= 1);
        // It is overhead, and the only time beyond t_max ...
        assert_eq!(u.above_tmax, 1);
        assert_eq!(u.within_tmax(&t), (bulk, 1));
        assert!((u.overhead(0.5) - (0.5 - u.tmax_s)).abs() < 1e-15);
        assert!(u.overhead_share > 0.9);
        // ... but maximum likelihood is not robust: it drags t_max far out
        // (k̄ grows by 5·10⁸ ticks / 1000), and the χ² test says so.
        assert!(u.terr_max_s > 100.0 * clean.terr_max_s);
        assert!(u.fit_p.unwrap() < 1e-6 && clean.fit_p.unwrap() > 1e-3);
    }
}
