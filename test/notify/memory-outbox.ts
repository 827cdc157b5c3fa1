import type {
  Notification,
  OutboxClaim,
  OutboxEntry,
  OutboxStore,
} from '../../src/notify/types.js';

/**
 * TEST DOUBLE of the store's outbox (the OutboxStore interface that RedisStore implements), so
 * the sender can be tested against real SMTP before the store exists. It keeps the semantics
 * the sender relies on: due = pending and nextAttemptAt <= now, oldest first; recordAttempt
 * counts attempts; a claim leases a pending entry until a transition; entries are copies, as a store that serialises would hand out.
 */
export class MemoryOutbox implements OutboxStore {
  readonly entries = new Map<string, OutboxEntry>();
  /** id -> holder and expiry (by this outbox's clock). */
  readonly leases = new Map<string, { owner: string; until: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  add(notification: Notification): void {
    if (!this.entries.has(notification.id)) {
      this.entries.set(notification.id, { notification, state: 'pending', attempts: 0 });
    }
  }

  entry(id: string): OutboxEntry {
    const entry = this.entries.get(id);
    if (!entry) throw new Error(`no entry ${id}`);
    return entry;
  }

  async getNotification(id: string): Promise<OutboxEntry | undefined> {
    const entry = this.entries.get(id);
    return entry ? structuredClone(entry) : undefined;
  }

  async pendingNotificationIds(limit: number, now: number): Promise<string[]> {
    return [...this.entries.values()]
      .filter((e) => e.state === 'pending' && (e.nextAttemptAt ?? 0) <= now)
      .sort((a, b) => a.notification.createdAt - b.notification.createdAt)
      .slice(0, limit)
      .map((e) => e.notification.id);
  }

  async claimNotification(
    id: string,
    owner: string,
    leaseMs: number,
    now: number,
  ): Promise<OutboxClaim> {
    const entry = this.entries.get(id);
    if (!entry) return { status: 'missing' };
    if (entry.state !== 'pending') return { status: entry.state };
    if ((entry.nextAttemptAt ?? 0) > now) return { status: 'not-due', dueAt: entry.nextAttemptAt! };
    const lease = this.leases.get(id);
    if (lease && lease.until > this.now()) return { status: 'busy' };
    this.leases.set(id, { owner, until: this.now() + leaseMs });
    return { status: 'claimed', entry: structuredClone(entry) };
  }

  async releaseNotification(id: string, owner: string): Promise<void> {
    if (this.leases.get(id)?.owner === owner) this.leases.delete(id);
  }

  async recordAttempt(id: string, error: string, nextAttemptAt: number): Promise<void> {
    this.leases.delete(id);
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.lastError = error;
    entry.nextAttemptAt = nextAttemptAt;
  }

  async markSent(id: string, at: number): Promise<void> {
    this.leases.delete(id);
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.state = 'sent';
    entry.sentAt = at;
  }

  async markFailed(id: string, error: string, at: number): Promise<void> {
    this.leases.delete(id);
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.state = 'failed';
    entry.lastError = error;
    entry.failedAt = at;
  }
}
