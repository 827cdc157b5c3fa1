import { randomBytes } from 'node:crypto';
import type { ActivePair, IspTrend, WatchedRun } from './types.js';

/**
 * Where each pair of one classification stands, found by domain id and ISP: its pair in the
 * history, its listed run, its entry in today's list. An open-addressing hash table whose slots
 * hold indexes into those three lists, in typed arrays that one classification after another
 * reuses: classification is synchronous, so one table serves a whole process. A Map of domains
 * to Maps of ISPs, with an object a pair, was ~6 MiB of garbage a 50,000-pair run (target P6,
 * docs/performance.md), and typed arrays are no work for the garbage collector.
 *
 * A pair is keyed by its domain id and a number for its ISP, given by a Map of the ISP names
 * (a network has a few dozen; V8 hashes them once each). The slot's place comes from those two
 * numbers mixed with a seed drawn per process, so that no partner's list can be made to pile its
 * pairs into one chain of slots (V8 seeds the hashes of its own Maps for the same reason).
 */
export class PairTable {
  private active: readonly ActivePair[] = [];
  private watched: readonly WatchedRun[] = [];
  private entries: readonly IspTrend[] = [];
  private readonly isps = new Map<string, number>();
  private mask = 0;
  private domain = new Float64Array(0);
  /** 1 + the number of the slot's ISP (`isps`); 0: a free slot. */
  private isp = new Int32Array(0);
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
    this.isps.clear();
    if (this.isp.length < size) {
      this.isp = new Int32Array(size);
      this.domain = new Float64Array(size);
      this.prev = new Int32Array(size);
      this.run = new Int32Array(size);
      this.entry = new Int32Array(size);
    } else {
      this.isp.fill(0, 0, size);
      this.prev.fill(0, 0, size);
      this.run.fill(0, 0, size);
      this.entry.fill(0, 0, size);
    }
    this.mask = size - 1;
    if (this.order.length < active.length) this.order = new Int32Array(active.length);
    this.filed = 0;
  }

  /**
   * Lets go of the lists and the names. The arrays stay for the next classification up to
   * KEPT_SLOTS (~6 MB, a network of 50,000 pairs); a larger network's are dropped, so that one
   * huge run does not hold its memory for the life of the process.
   */
  release(): void {
    this.active = [];
    this.watched = [];
    this.entries = [];
    this.isps.clear();
    if (this.isp.length > KEPT_SLOTS) {
      this.isp = new Int32Array(0);
      this.domain = new Float64Array(0);
      this.prev = new Int32Array(0);
      this.run = new Int32Array(0);
      this.entry = new Int32Array(0);
      this.order = new Int32Array(0);
    }
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
    let id = this.isps.get(isp);
    if (id === undefined) {
      id = this.isps.size + 1;
      this.isps.set(isp, id);
    }
    const mask = this.mask;
    for (let s = hashPair(domainId, id) & mask; ; s = (s + 1) & mask) {
      const taken = this.isp[s]!;
      if (taken === 0) {
        this.isp[s] = id;
        this.domain[s] = domainId;
        if (list === PREV) this.prev[s] = index + 1;
        else if (list === RUN) this.run[s] = index + 1;
        else this.entry[s] = index + 1;
        return s;
      }
      if (taken === id && sameNumber(this.domain[s]!, domainId)) return s;
    }
  }
}

/** Slots whose arrays a table keeps between classifications (2^18: 24 bytes each). */
const KEPT_SLOTS = 2 ** 18;

const PREV = 0;
const RUN = 1;
const ENTRY = 2;

/** Equal as numbers, NaN to itself (a slot holds a domain id however odd). */
function sameNumber(a: number, b: number): boolean {
  return a === b || (a !== a && b !== b);
}

/** Drawn once per process: where a pair's slot is cannot be known outside it. */
const SEED = randomBytes(4).readInt32LE(0);

/** The domain id's two 32-bit halves and the ISP's number, each mixed in (murmur3's finalizer). */
function hashPair(domainId: number, ispId: number): number {
  let h = mix(SEED ^ (domainId | 0));
  h = mix(h ^ ((domainId / 0x1_0000_0000) | 0));
  return mix(h ^ ispId) >>> 0;
}

function mix(value: number): number {
  let h = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}
