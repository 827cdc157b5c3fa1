import { describe, expect, it } from 'vitest';
import { topK } from '../../src/notify/render/top-k.js';

describe('topK', () => {
  it('gives the first k of a stable full sort, ties in their original order', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    // Few distinct keys: many ties, which a stable sort keeps in input order.
    const items = Array.from({ length: 500 }, (_, i) => ({ key: Math.floor(random() * 20), i }));
    const compare = (a: { key: number }, b: { key: number }) => b.key - a.key;
    const sorted = [...items].sort(compare);
    for (const k of [0, 1, 2, 19, 40, 499, 500, 800]) {
      expect(topK(items, k, compare)).toEqual(sorted.slice(0, Math.max(0, k)));
    }
  });

  it('does not reorder its input', () => {
    const items = [3, 1, 2];
    topK(items, 2, (a, b) => a - b);
    topK(items, 5, (a, b) => a - b);
    expect(items).toEqual([3, 1, 2]);
  });
});
