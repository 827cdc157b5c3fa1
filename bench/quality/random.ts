/**
 * A seeded random source for the alert-quality simulation: the same seed gives the same
 * networks, incidents and clicks on every machine, so a regression is reproducible.
 */
export class Random {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1) (mulberry32). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /**
   * A source of its own, seeded from this one: independent of it and of every other split (the
   * same seed still gives the same world).
   */
  split(): Random {
    return new Random(Math.floor(this.next() * 4294967296));
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new RangeError('pick from an empty list');
    return item;
  }

  normal(): number {
    // Box-Muller; 1 - next() keeps the logarithm finite.
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** A Poisson draw: Knuth's product method for small means, PTRS (Hoermann 1993) above. */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean < 30) {
      const limit = Math.exp(-mean);
      let k = 0;
      let p = this.next();
      while (p > limit) {
        k += 1;
        p *= this.next();
      }
      return k;
    }
    const slam = Math.sqrt(mean);
    const logLam = Math.log(mean);
    const b = 0.931 + 2.53 * slam;
    const a = -0.059 + 0.02483 * b;
    const invAlpha = 1.1239 + 1.1328 / (b - 3.4);
    const vr = 0.9277 - 3.6224 / (b - 2);
    for (;;) {
      const u = this.next() - 0.5;
      const v = this.next();
      const us = 0.5 - Math.abs(u);
      const k = Math.floor(((2 * a) / us + b) * u + mean + 0.43);
      if (us >= 0.07 && v <= vr) return k;
      if (k < 0 || (us < 0.013 && v > us)) continue;
      const lhs = Math.log(v) + Math.log(invAlpha) - Math.log(a / (us * us) + b);
      const rhs = -mean + k * logLam - logFactorial(k);
      if (lhs <= rhs) return k;
    }
  }
}

const LOG_FACTORIALS: number[] = [0];

function logFactorial(k: number): number {
  for (let i = LOG_FACTORIALS.length; i <= Math.min(k, 1000); i++) {
    LOG_FACTORIALS[i] = (LOG_FACTORIALS[i - 1] as number) + Math.log(i);
  }
  if (k <= 1000) return LOG_FACTORIALS[k] as number;
  // Stirling's series; exact to double precision this far out.
  return (k + 0.5) * Math.log(k) - k + 0.5 * Math.log(2 * Math.PI) + 1 / (12 * k);
}
