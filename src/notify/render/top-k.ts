/**
 * The first `k` items of `items` in the order `[...items].sort(compare)` would give (a stable
 * sort: among equal items, the earlier first), without sorting the rest. The alert e-mail lists
 * a few dozen of up to 50,000 pairs; sorting them all was most of its rendering time. O(n log k):
 * a candidate no better than the current k-th is dropped with one comparison.
 */
export function topK<T>(items: readonly T[], k: number, compare: (a: T, b: T) => number): T[] {
  if (k <= 0) return [];
  if (items.length <= k) return [...items].sort(compare);
  const top: T[] = [];
  // Indexed, not for...of: an iterator result per item until V8 optimises the loop.
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (top.length === k && compare(item, top[k - 1]!) >= 0) continue;
    // After every item it is not better than: an equal one keeps its earlier place.
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(item, top[mid]!) < 0) hi = mid;
      else lo = mid + 1;
    }
    // Shifted by hand: splice returns an array of what it removed, one a call.
    let at = top.length < k ? top.length : k - 1;
    if (at === top.length) top.push(item);
    for (; at > lo; at--) top[at] = top[at - 1]!;
    top[lo] = item;
  }
  return top;
}
