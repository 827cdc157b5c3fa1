import { PAIR_CLASSES, type ClassCounts } from './types.js';

/** A count of 0 for each pair class. */
export function emptyClassCounts(): ClassCounts {
  const counts = {} as ClassCounts;
  for (const c of PAIR_CLASSES) counts[c] = 0;
  return counts;
}
