/**
 * The codecs' per-domain lists (active-codec.ts, runs-codec.ts), each allocated at its final
 * size: the items are counted per domain first, then filled by index. Pushing grew a 50,000
 * pair history's lists through copies that were megabytes of garbage a run (target P6,
 * docs/performance.md). Domains keep the order of their first item, as pushing did.
 *
 * Items come grouped by domain as a rule (today's list in the API's order, then the pairs of the
 * history that are not in it, stored by domain), so the maps are touched once per run of items
 * of one domain, not once per item: 20,000 Map operations were a third of encoding a 10,000-pair
 * history (target P1). Any order is still correct.
 */
export type Flat = (string | number)[];

export interface DomainList<E> {
  /** What the codec stores for the domain; it holds `flat`. */
  entry: E;
  flat: Flat;
  /** Values written so far. */
  filled: number;
}

export class DomainLists<T, E> {
  private readonly lists = new Map<number, DomainList<E>>();
  private lastId: number | undefined;
  private last: DomainList<E> | undefined;

  constructor(
    items: readonly T[],
    domainOf: (item: T) => number,
    stride: number,
    entryOf: (first: T, flat: Flat) => E,
  ) {
    const counts = new Map<number, number>();
    const firsts: T[] = [];
    for (let i = 0; i < items.length;) {
      const item = items[i]!;
      const id = domainOf(item);
      let end = i + 1;
      while (end < items.length && domainOf(items[end]!) === id) end++;
      const count = counts.get(id);
      if (count === undefined) {
        counts.set(id, end - i);
        firsts.push(item);
      } else counts.set(id, count + end - i);
      i = end;
    }
    for (let i = 0; i < firsts.length; i++) {
      const first = firsts[i]!;
      const id = domainOf(first);
      const flat: Flat = new Array<string | number>(counts.get(id)! * stride);
      this.lists.set(id, { entry: entryOf(first, flat), flat, filled: 0 });
    }
  }

  /** The list of one of the items' domains (the same as the item before's, as a rule: no lookup). */
  of(domainId: number): DomainList<E> {
    if (domainId !== this.lastId || this.last === undefined) {
      this.last = this.lists.get(domainId)!;
      this.lastId = domainId;
    }
    return this.last;
  }

  /** What the codec stores: each domain's entry, in the order of the domains' first items. */
  entries(): E[] {
    const entries: E[] = [];
    this.lists.forEach((list) => entries.push(list.entry));
    return entries;
  }
}
