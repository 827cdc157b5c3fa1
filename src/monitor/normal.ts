/**
 * The few facts of the normal and chi-square distributions the monitor's estimators use
 * (monitor/variation.ts, monitor/judged-variation.ts): plain numeric approximations, no state.
 */

export function normalDensity(x: number): number {
  return Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
}

/** P(Z > z) for a standard normal Z. */
export function normalTail(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

/** The complementary error function (Numerical Recipes' erfcc; relative error under 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const poly =
    -1.26551223 +
    t *
      (1.00002368 +
        t *
          (0.37409196 +
            t *
              (0.09678418 +
                t *
                  (-0.18628806 +
                    t *
                      (0.27886807 +
                        t *
                          (-1.13520398 +
                            t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  const r = t * Math.exp(-z * z + poly);
  return x >= 0 ? r : 2 - r;
}

/** ln Gamma(x) for x > 0 (Lanczos, g = 7; relative error under 1e-13). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = LANCZOS[0]!;
  const t = z + 7.5;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];

/** ln of the chi-square density with `df` degrees of freedom (any df > 0) at x > 0. */
export function logChiSquareDensity(x: number, df: number): number {
  const half = df / 2;
  return (half - 1) * Math.log(x) - x / 2 - half * Math.LN2 - logGamma(half);
}
