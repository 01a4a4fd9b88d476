/** Two-sided 95 % quantiles of Student's t for 1–30 degrees of freedom. */
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12, 2.11, 2.101,
  2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

/** The two-sided 95 % quantile of the standard normal. */
export const Z975 = 1.959964;

/**
 * The two-sided 95 % quantile of t with `df` degrees of freedom: how much wider than 1.96 standard
 * errors a 95 % bound must be when the spread itself is estimated from `df` degrees of freedom.
 * Past the table, its first-order expansion z + (z³ + z) / 4df.
 */
export function t975(df: number): number {
  return df <= T975.length ? T975[Math.max(df, 1) - 1]! : Z975 + (Z975 ** 3 + Z975) / (4 * df);
}

/** ln Γ(x) for x > 0 (Lanczos, g = 7): enough digits for a t quantile to four places. */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = c[0]!;
  for (let i = 1; i < 9; i++) sum += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The regularized incomplete beta I_x(a, b), by its continued fraction (Lentz). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front = Math.exp(a * Math.log(x) + b * Math.log1p(-x) - (logGamma(a) + logGamma(b) - logGamma(a + b))) / a;
  const tiny = 1e-300;
  let f = 1;
  let c = 1;
  let d = 0;
  for (let i = 0; i <= 400; i++) {
    const m = i >> 1;
    const numerator = i === 0 ? 1 : i % 2 === 0 ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)) : -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + numerator * d;
    d = Math.abs(d) < tiny ? tiny : d;
    d = 1 / d;
    c = 1 + numerator / c;
    c = Math.abs(c) < tiny ? tiny : c;
    const step = c * d;
    f *= step;
    if (Math.abs(step - 1) < 1e-12) break;
  }
  return front * (f - 1);
}

/** P(|T| > t) for Student's t with `df` degrees of freedom. */
export function tTwoSidedP(t: number, df: number): number {
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

/** The t with P(|T| > t) = alpha for `df` degrees of freedom: the half-width, in standard errors, of a two-sided 1 − alpha interval. */
export function tCritical(alpha: number, df: number): number {
  const key = `${alpha} ${df}`;
  let t = criticalValues.get(key);
  if (t === undefined) criticalValues.set(key, (t = solveCritical(alpha, df)));
  return t;
}

/** Solved once per level and degrees of freedom: a run's looks and a history's comparisons ask for the same few. */
const criticalValues = new Map<string, number>();

function solveCritical(alpha: number, df: number): number {
  let low = 0;
  let high = 1;
  while (tTwoSidedP(high, df) > alpha) high *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (low + high) / 2;
    if (tTwoSidedP(mid, df) > alpha) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}
