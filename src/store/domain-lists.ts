/**
 * The codecs' per-domain lists (active-codec.ts, runs-codec.ts), written and read back.
 *
 * Written: each list allocated at its final
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

/** A codec's stored format: {"v":version,"d":[[domainId,("domainUrl",)[...values]],...]}. */
export interface StoredFormat {
  version: number;
  /** Values per item: a string (the ISP), then numbers. */
  stride: number;
  /** Whether a domain stores its URL between its id and its values. */
  withUrl: boolean;
  /** The values' name in an error: "bad pair list". */
  list: string;
  corrupt: (detail: string) => Error;
}

export interface StoredDomain {
  id: number;
  /** '' when the format stores none. */
  url: string;
  flat: Flat;
}

/**
 * A codec's blob parsed and checked whole (every domain's shape, every item's values): a
 * reader that only counts (`thm status`) still tells a damaged blob as a run would, and one
 * that decodes need not check again. Empty (null, '') is no domains.
 */
export function readDomains(blob: string | null | undefined, format: StoredFormat): StoredDomain[] {
  const domains: StoredDomain[] = [];
  if (blob === null || blob === undefined || blob === '') return domains;
  const { corrupt, stride } = format;
  let parsed: unknown;
  try {
    parsed = JSON.parse(blob);
  } catch {
    throw corrupt('not JSON');
  }
  const doc = parsed as { v?: unknown; d?: unknown };
  if (
    doc === null ||
    typeof doc !== 'object' ||
    doc.v !== format.version ||
    !Array.isArray(doc.d)
  ) {
    throw corrupt('unknown version');
  }
  for (const domain of doc.d as unknown[]) {
    if (!Array.isArray(domain) || domain.length !== (format.withUrl ? 3 : 2)) {
      throw corrupt('bad domain');
    }
    const id: unknown = domain[0];
    const url: unknown = format.withUrl ? domain[1] : '';
    const flat: unknown = domain[domain.length - 1];
    if (typeof id !== 'number' || typeof url !== 'string' || !Array.isArray(flat)) {
      throw corrupt('bad domain');
    }
    if (flat.length % stride !== 0) throw corrupt(`bad ${format.list}`);
    for (let i = 0; i < flat.length; i += stride) {
      if (typeof flat[i] !== 'string') throw corrupt('bad ISP');
      for (let j = 1; j < stride; j++) {
        if (typeof flat[i + j] !== 'number') throw corrupt('bad number');
      }
    }
    domains.push({ id, url, flat: flat as Flat });
  }
  return domains;
}
