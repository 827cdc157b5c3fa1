/**
 * The codecs' per-domain lists (active-codec.ts, runs-codec.ts), each allocated at its final
 * size: the items are counted per domain first, then filled by index. Pushing grew a 50,000
 * pair history's lists through copies that were megabytes of garbage a run (target P6,
 * docs/performance.md). Domains keep the order of their first item, as pushing did.
 */
export type Flat = (string | number)[];

export interface DomainList<E> {
  /** What the codec stores for the domain; it holds `flat`. */
  entry: E;
  flat: Flat;
  /** Values written so far. */
  filled: number;
}

export function domainLists<T, E>(
  items: readonly T[],
  domainOf: (item: T) => number,
  stride: number,
  entryOf: (first: T, flat: Flat) => E,
): Map<number, DomainList<E>> {
  const counts = new Map<number, number>();
  const firsts: T[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const id = domainOf(item);
    const count = counts.get(id);
    if (count === undefined) {
      counts.set(id, 1);
      firsts.push(item);
    } else counts.set(id, count + 1);
  }
  const lists = new Map<number, DomainList<E>>();
  for (let i = 0; i < firsts.length; i++) {
    const first = firsts[i]!;
    const id = domainOf(first);
    const flat: Flat = new Array<string | number>(counts.get(id)! * stride);
    lists.set(id, { entry: entryOf(first, flat), flat, filled: 0 });
  }
  return lists;
}
