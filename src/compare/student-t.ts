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
