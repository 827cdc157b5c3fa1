import type { Notification, OutboxEntry, OutboxStore } from '../../src/notify/types.js';

/**
 * TEST DOUBLE of the store's outbox (the OutboxStore interface that RedisStore implements), so
 * the sender can be tested against real SMTP before the store exists. It keeps the semantics
 * the sender relies on: due = pending and nextAttemptAt <= now, oldest first; recordAttempt
 * counts attempts; entries are copies, as a store that serialises would hand out.
 */
export class MemoryOutbox implements OutboxStore {
  readonly entries = new Map<string, OutboxEntry>();
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

  async pendingNotifications(limit = 100): Promise<OutboxEntry[]> {
    const now = this.now();
    return [...this.entries.values()]
      .filter((e) => e.state === 'pending' && (e.nextAttemptAt ?? 0) <= now)
      .sort((a, b) => a.notification.createdAt - b.notification.createdAt)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }

  async recordAttempt(id: string, error: string, nextAttemptAt: number): Promise<void> {
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.lastError = error;
    entry.nextAttemptAt = nextAttemptAt;
  }

  async markSent(id: string, at: number): Promise<void> {
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.state = 'sent';
    entry.sentAt = at;
  }

  async markFailed(id: string, error: string, at: number): Promise<void> {
    const entry = this.entry(id);
    entry.attempts += 1;
    entry.state = 'failed';
    entry.lastError = error;
    entry.failedAt = at;
  }
}
