import { messageIdDomain } from './notification.js';
import type { OutboxNotification } from './types.js';

/**
 * The headers every automated sender should set, beside From/To/Subject/Message-ID:
 *
 * - `Auto-Submitted: auto-generated` (RFC 3834) and `X-Auto-Response-Suppress: All` (Exchange
 *   and Outlook): no vacation replies or out-of-office loops back to `mail.from`.
 * - `List-Id` (RFC 2919), one per network, `<acme.thm.example.com>` from the From domain, so a
 *   recipient can filter a network's mail by one header whatever the subject says.
 * - Threading: every e-mail of one network and calendar month (of its as-of date) refers to
 *   the same root id, which is never sent itself. Clients that thread by References (Apple
 *   Mail, Thunderbird, Outlook) then show a network's month as one conversation; a new month
 *   starts a new one, so a thread never grows without end.
 *
 * Derived from what the outbox already stores (network, as-of date) and `mail.from`, so
 * notifications recorded before these headers existed get them too.
 */
export interface AutomatedHeaders {
  listId: string;
  threadRootId: string;
  headers: Record<string, string>;
}

export function automatedHeaders(
  n: Pick<OutboxNotification, 'networkId' | 'asOf'>,
  from: string,
): AutomatedHeaders {
  const domain = messageIdDomain(from);
  // Network ids are slugs (config schema); anything else is made dot-atom safe anyway.
  const label = n.networkId.replace(/[^A-Za-z0-9_-]/g, '-').slice(0, 63) || 'network';
  const month = /^\d{4}-\d{2}/.exec(n.asOf)?.[0] ?? 'undated';
  const listId = `<${label}.${domain}>`;
  return {
    listId,
    threadRootId: `<thm-thread.${label}.${month}@${domain}>`,
    headers: {
      'Auto-Submitted': 'auto-generated',
      'X-Auto-Response-Suppress': 'All',
      'List-Id': listId,
    },
  };
}
