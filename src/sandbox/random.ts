/**
 * Deterministic randomness for the sandbox: every generated number is a pure function of the
 * scenario seed and what it is for (pair, day), so a scenario gives the same API answers on
 * every run, in any order of requests, without storing anything.
 */

/** 32-bit FNV-1a of a string. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** mulberry32: a small, fast PRNG with a 32-bit state; uniform in [0, 1). */
export function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function rngFor(...parts: Array<string | number>): () => number {
  return rng(hash32(parts.join('\u0000')));
}

/** A standard normal variate (Box-Muller). */
export function gaussian(random: () => number): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/**
 * A Poisson variate: exact (Knuth) for small means, the normal approximation above 30, where
 * it is indistinguishable for click counts and costs O(1).
 */
export function poisson(mean: number, random: () => number): number {
  if (mean <= 0) return 0;
  if (mean > 30) return Math.max(0, Math.round(mean + Math.sqrt(mean) * gaussian(random)));
  const limit = Math.exp(-mean);
  let k = 0;
  let p = random();
  while (p > limit) {
    k += 1;
    p *= random();
  }
  return k;
}

/** A binomial variate by the normal approximation (exact enough for conversion counts). */
export function binomial(n: number, p: number, random: () => number): number {
  if (n <= 0 || p <= 0) return 0;
  const mean = n * p;
  if (mean < 30) {
    let k = 0;
    for (let i = 0; i < n; i += 1) if (random() < p) k += 1;
    return k;
  }
  const sd = Math.sqrt(mean * (1 - p));
  return Math.min(n, Math.max(0, Math.round(mean + sd * gaussian(random))));
}
