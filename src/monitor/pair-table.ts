import type { ActivePair, IspTrend, WatchedRun } from './types.js';

/**
 * Where each pair of one classification stands, found by domain id and ISP: its pair in the
 * history, its listed run, its entry in today's list. An open-addressing hash table whose slots
 * hold indexes into those three lists, in typed arrays that one classification after another
 * reuses: classification is synchronous, so one table serves a whole process. A Map of domains
 * to Maps of ISPs, with an object a pair, was ~6 MiB of garbage a 50,000-pair run (target P6,
 * docs/performance.md), and typed arrays are no work for the garbage collector.
 *
 * A slot is taken by the first item of the three lists that names its pair; the pair's domain
 * id is kept, its ISP is read back from the item when a lookup compares (`ispAt`).
 */
export class PairTable {
  private active: readonly ActivePair[] = [];
  private watched: readonly WatchedRun[] = [];
  private entries: readonly IspTrend[] = [];
  private mask = 0;
  private taken = new Uint8Array(0);
  private domain = new Float64Array(0);
  /** 1 + the index of the slot's pair in each list; 0: not in it. */
  private prev = new Int32Array(0);
  private run = new Int32Array(0);
  private entry = new Int32Array(0);
  /** The slots of the history's pairs, in its order, each once (`addPrev`). */
  private order = new Int32Array(0);
  private filed = 0;

  /**
   * Empties the table for one classification of these lists (kept until the next `reset`; they
   * are not modified), with room for every pair they name.
   */
  reset(
    active: readonly ActivePair[],
    watched: readonly WatchedRun[],
    entries: readonly IspTrend[],
  ): void {
    this.active = active;
    this.watched = watched;
    this.entries = entries;
    // At most three quarters full, so that a probe ends soon.
    const pairs = active.length + watched.length + entries.length;
    let size = 16;
    while (size * 3 < pairs * 4) size *= 2;
    if (this.taken.length < size) {
      this.taken = new Uint8Array(size);
      this.domain = new Float64Array(size);
      this.prev = new Int32Array(size);
      this.run = new Int32Array(size);
      this.entry = new Int32Array(size);
    } else {
      this.taken.fill(0, 0, size);
      this.prev.fill(0, 0, size);
      this.run.fill(0, 0, size);
      this.entry.fill(0, 0, size);
    }
    this.mask = size - 1;
    if (this.order.length < active.length) this.order = new Int32Array(active.length);
    this.filed = 0;
  }

  /** Lets go of the lists (the table's arrays stay for the next classification). */
  release(): void {
    this.active = [];
    this.watched = [];
    this.entries = [];
  }

  /** Files `active[index]`; returns its slot, or -1 when the history named that pair before. */
  addPrev(index: number): number {
    const pair = this.active[index]!;
    const slot = this.slot(pair.domainId, pair.isp, PREV, index);
    if (this.prev[slot] !== 0 && this.prev[slot] !== index + 1) return -1;
    this.prev[slot] = index + 1;
    this.order[this.filed++] = slot;
    return slot;
  }

  /** Files `watched[index]` (a later run of the same pair replaces an earlier one). */
  addRun(index: number): void {
    const run = this.watched[index]!;
    this.run[this.slot(run.domainId, run.isp, RUN, index)] = index + 1;
  }

  /** Files `entries[index]`; returns its slot, or -1 when today's list named that pair before. */
  addEntry(index: number): number {
    const entry = this.entries[index]!;
    const slot = this.slot(entry.network_tracking_domain_id, entry.isp, ENTRY, index);
    if (this.entry[slot] !== 0 && this.entry[slot] !== index + 1) return -1;
    this.entry[slot] = index + 1;
    return slot;
  }

  /** How many pairs of the history were filed, and the slot of the n-th. */
  get historySize(): number {
    return this.filed;
  }

  historySlot(n: number): number {
    return this.order[n]!;
  }

  prevOf(slot: number): ActivePair | undefined {
    const i = this.prev[slot]!;
    return i === 0 ? undefined : this.active[i - 1];
  }

  runOf(slot: number): WatchedRun | undefined {
    const i = this.run[slot]!;
    return i === 0 ? undefined : this.watched[i - 1];
  }

  listed(slot: number): boolean {
    return this.entry[slot] !== 0;
  }

  /**
   * The slot of the pair (domainId, isp). A pair seen for the first time takes a free slot,
   * which names it by the list item that brought it (`list`, `index`).
   */
  private slot(domainId: number, isp: string, list: number, index: number): number {
    const mask = this.mask;
    for (let s = hashPair(domainId, isp) & mask; ; s = (s + 1) & mask) {
      if (this.taken[s] === 0) {
        this.taken[s] = 1;
        this.domain[s] = domainId;
        if (list === PREV) this.prev[s] = index + 1;
        else if (list === RUN) this.run[s] = index + 1;
        else this.entry[s] = index + 1;
        return s;
      }
      if (sameNumber(this.domain[s]!, domainId) && this.ispAt(s) === isp) return s;
    }
  }

  private ispAt(slot: number): string {
    const p = this.prev[slot]!;
    if (p !== 0) return this.active[p - 1]!.isp;
    const r = this.run[slot]!;
    if (r !== 0) return this.watched[r - 1]!.isp;
    return this.entries[this.entry[slot]! - 1]!.isp;
  }
}

const PREV = 0;
const RUN = 1;
const ENTRY = 2;

/** Equal as numbers, NaN to itself (a slot holds a domain id however odd). */
function sameNumber(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** FNV-1a over the domain id's 32-bit halves and the ISP's UTF-16 code units, mixed. */
function hashPair(domainId: number, isp: string): number {
  let h = Math.imul(0x811c9dc5 ^ (domainId | 0), 0x01000193);
  h = Math.imul(h ^ ((domainId / 0x1_0000_0000) | 0), 0x01000193);
  for (let i = 0; i < isp.length; i++) h = Math.imul(h ^ isp.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return (h ^ (h >>> 13)) >>> 0;
}
