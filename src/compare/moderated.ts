/**
 * A spread borrowed from the other cells of one comparison: the empirical Bayes variance of
 * Smyth's moderated t (limma; Smyth 2004, "Linear models and empirical Bayes methods for assessing
 * differential expression in microarray experiments", section 6.2).
 *
 * A one-off comparison of two runtimes in a quick run has two pairs of trials per cell: one degree
 * of freedom, so the 95 % t quantile is 12.7 and even a 3.7× gap reads as undecided. But the run
 * measured dozens of cells of the same suite on the same two subjects, and their spreads between
 * pairs tell how noisy such a cell is. Each cell's variance s² (d degrees of freedom) is taken as
 * drawn from a scaled inverse χ² prior with d0 degrees of freedom and scale s0², fitted to all the
 * cells' variances by the method of moments on log s²; the cell is then judged on
 * s̃² = (d0·s0² + d·s²) / (d0 + d) with d0 + d degrees of freedom. A cell far noisier than the rest
 * keeps most of its own spread (the fit makes d0 small when the cells' spreads disagree), and the
 * borrowed degrees of freedom are capped (MAX_PRIOR_DF).
 */

/** Cells with a spread a fit needs before it borrows anything: fewer say too little about the others. */
export const MIN_PRIOR_CELLS = 8;

/**
 * The most degrees of freedom a prior lends. Past it little is gained (t at 95 % is 2.26 with 9,
 * 1.96 at the limit), and a cap keeps a fit that saw calm cells by chance from lending too much:
 * in simulation (tests/unit/compare-moderated.test.ts) single looks of two pairs then cross 95 %
 * in 3–6.5 % of A/A cells (the test's bounds), the more the more the cells' true spreads differ.
 */
export const MAX_PRIOR_DF = 8;

/** ψ(x), the digamma function, for x > 0: the recurrence up to 6, then its asymptotic series. */
export function digamma(x: number): number {
  let shift = 0;
  while (x < 6) {
    shift -= 1 / x;
    x += 1;
  }
  const f = 1 / (x * x);
  return shift + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}

/** ψ'(x), the trigamma function, for x > 0: the recurrence up to 6, then its asymptotic series. */
export function trigamma(x: number): number {
  let shift = 0;
  while (x < 6) {
    shift += 1 / (x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return shift + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}

/** The x > 0 with ψ'(x) = y, by Smyth's Newton iteration on 1/ψ'(x), which is nearly linear in x. */
export function trigammaInverse(y: number): number {
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 50; i++) {
    const t = trigamma(x);
    const step = (t * (1 - t / y)) / trigammaDerivative(x);
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}

/** ψ''(x), by the recurrence up to 6 and its asymptotic series: the Newton step's slope. */
function trigammaDerivative(x: number): number {
  let shift = 0;
  while (x < 6) {
    shift -= 2 / (x * x * x);
    x += 1;
  }
  const f = 1 / (x * x);
  return shift - f - f / x - f * f * (1 / 2 - f * (1 / 6 - f * (1 / 6 - (3 * f) / 10)));
}

/** One cell's spread between its pairs: the variance of its log ratios and its degrees of freedom. */
export interface CellSpread {
  readonly variance: number;
  readonly df: number;
}

/** The prior a comparison's cells share: d0 degrees of freedom at scale s0², fitted over `cells` cells. */
export interface SpreadPrior {
  readonly df: number;
  readonly variance: number;
  readonly cells: number;
}

/**
 * The prior fitted to the cells' spreads (cells with no spread at all say nothing of the scale and
 * are left out), or null with fewer than MIN_PRIOR_CELLS. Where the cells' log variances scatter no
 * more than sampling alone explains, the spreads are pooled: d0 is MAX_PRIOR_DF, and never more
 * than the cells' degrees of freedom together.
 */
export function fitSpreadPrior(spreads: readonly CellSpread[]): SpreadPrior | null {
  const usable = spreads.filter((s) => s.variance > 0 && Number.isFinite(s.variance) && s.df > 0);
  if (usable.length < MIN_PRIOR_CELLS) return null;
  const e = usable.map((s) => Math.log(s.variance) - digamma(s.df / 2) + Math.log(s.df / 2));
  const eMean = e.reduce((a, b) => a + b, 0) / e.length;
  const eVar = e.reduce((a, b) => a + (b - eMean) ** 2, 0) / (e.length - 1);
  const sampling = usable.reduce((a, s) => a + trigamma(s.df / 2), 0) / usable.length;
  const held = usable.reduce((a, s) => a + s.df, 0);
  // The scatter beyond sampling, taken one standard error above its estimate: with one or two
  // degrees of freedom a cell, the estimate itself scatters widely, and too large a d0 lends a
  // noisy cell a calm spread.
  const m4 = e.reduce((a, b) => a + (b - eMean) ** 4, 0) / e.length;
  const excess = eVar - sampling + Math.sqrt(Math.max(0, (m4 - (eVar ** 2 * (e.length - 3)) / (e.length - 1)) / e.length));
  const fitted = excess > 0 ? 2 * trigammaInverse(excess) : Number.POSITIVE_INFINITY;
  const df = Math.min(fitted, held, MAX_PRIOR_DF);
  return { df, variance: Math.exp(eMean + digamma(df / 2) - Math.log(df / 2)), cells: usable.length };
}

/** A cell's variance and degrees of freedom once the prior's are added to its own. */
export function moderate(own: CellSpread, prior: SpreadPrior): CellSpread {
  const df = prior.df + own.df;
  return { variance: (prior.df * prior.variance + own.df * own.variance) / df, df };
}
