import type { Queue } from 'bullmq';

/*
 * `/queues`: a small read-only page of the BullMQ queues (counts, schedulers, active, delayed
 * and the latest failed jobs with their reasons), served only with `monitoring.dashboardAuth`.
 *
 * Why not Bull Board: it needs `@bull-board/api`, `@bull-board/ui` and a server adapter
 * (express, fastify, ...), none of them dependencies of this project. This page answers the
 * questions an operator has at 3 a.m. ("is anything stuck, what failed and why") with no new
 * dependency, and cannot change anything: no retry or delete buttons to protect.
 *
 * Everything shown comes from Redis and is escaped. Job data holds network ids, dates and
 * notification ids, never a key or a password; failure reasons are the jobs' own one-line
 * messages, which never carry a secret (src/api/error-mapping.ts).
 */

export interface JobRow {
  id: string;
  name: string;
  data: string;
  attemptsMade: number;
  /** Epoch ms: when it failed, started or is due, depending on the list. */
  at?: number;
  failedReason?: string;
}

export interface QueueView {
  name: string;
  counts: Record<string, number>;
  schedulers: Array<{ id: string; pattern?: string; tz?: string; next?: number }>;
  active: JobRow[];
  delayed: JobRow[];
  failed: JobRow[];
}

const LIST_LIMIT = 20;
const DATA_MAX = 200;
const REASON_MAX = 1_000;

export async function loadQueueViews(queues: readonly Queue[]): Promise<QueueView[]> {
  return Promise.all(
    queues.map(async (queue) => {
      const [counts, schedulers, active, delayed, failed] = await Promise.all([
        queue.getJobCounts(
          'waiting',
          'active',
          'delayed',
          'prioritized',
          'paused',
          'completed',
          'failed',
        ),
        queue.getJobSchedulers(0, LIST_LIMIT - 1, true),
        queue.getActive(0, LIST_LIMIT - 1),
        queue.getDelayed(0, LIST_LIMIT - 1),
        queue.getFailed(0, LIST_LIMIT - 1),
      ]);
      return {
        name: queue.name,
        counts,
        schedulers: schedulers.map((s) => ({
          id: s.id ?? s.key,
          ...(s.pattern !== undefined ? { pattern: s.pattern } : {}),
          ...(s.tz !== undefined ? { tz: s.tz } : {}),
          ...(s.next !== undefined ? { next: s.next } : {}),
        })),
        active: active.map((j) => jobRow(j, j.processedOn)),
        delayed: delayed.map((j) => jobRow(j, j.timestamp + (j.opts?.delay ?? 0))),
        failed: failed.map((j) => jobRow(j, j.finishedOn)),
      };
    }),
  );
}

interface JobLike {
  id?: string | undefined;
  name: string;
  data: unknown;
  attemptsMade: number;
  failedReason?: string;
}

function jobRow(job: JobLike, at: number | undefined): JobRow {
  const data = JSON.stringify(job.data ?? null);
  return {
    id: job.id ?? '',
    name: job.name,
    data: data.length > DATA_MAX ? `${data.slice(0, DATA_MAX - 1)}…` : data,
    attemptsMade: job.attemptsMade,
    ...(at !== undefined ? { at } : {}),
    ...(job.failedReason ? { failedReason: job.failedReason.slice(0, REASON_MAX) } : {}),
  };
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

const time = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());

function jobTable(title: string, rows: JobRow[], atLabel: string, withReason = false): string {
  if (rows.length === 0) return `<h3>${escapeHtml(title)}</h3><p class="none">none</p>`;
  const head = `<tr><th>id</th><th>name</th><th>data</th><th>attempts</th><th>${atLabel}</th>${
    withReason ? '<th>reason</th>' : ''
  }</tr>`;
  const body = rows
    .map(
      (r) =>
        `<tr><td>${escapeHtml(r.id)}</td><td>${escapeHtml(r.name)}</td><td><code>${escapeHtml(
          r.data,
        )}</code></td><td>${r.attemptsMade}</td><td>${time(r.at)}</td>${
          withReason ? `<td class="reason">${escapeHtml(r.failedReason ?? '')}</td>` : ''
        }</tr>`,
    )
    .join('');
  return `<h3>${escapeHtml(title)}</h3><table>${head}${body}</table>`;
}

/** The page; pure, for tests. */
export function renderDashboard(views: readonly QueueView[], generatedAt: number): string {
  const sections = views.map((v) => {
    const counts = Object.entries(v.counts)
      .map(([state, n]) => `<td><b>${n}</b><br>${escapeHtml(state)}</td>`)
      .join('');
    const schedulers =
      v.schedulers.length === 0
        ? ''
        : `<h3>schedulers</h3><table><tr><th>id</th><th>pattern</th><th>timezone</th><th>next</th></tr>${v.schedulers
            .map(
              (s) =>
                `<tr><td>${escapeHtml(s.id)}</td><td><code>${escapeHtml(
                  s.pattern ?? '',
                )}</code></td><td>${escapeHtml(s.tz ?? '')}</td><td>${time(s.next)}</td></tr>`,
            )
            .join('')}</table>`;
    return `<section><h2>queue ${escapeHtml(v.name)}</h2><table class="counts"><tr>${counts}</tr></table>${schedulers}${jobTable(
      'active',
      v.active,
      'started',
    )}${jobTable('delayed', v.delayed, 'due')}${jobTable(
      `latest failed (up to ${LIST_LIMIT})`,
      v.failed,
      'failed at',
      true,
    )}</section>`;
  });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>thm queues</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse;margin:.3em 0 1em}
td,th{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
.counts td{text-align:center;min-width:5em}
.reason{color:#a00;white-space:pre-wrap;max-width:50em}
.none{color:#777}
code{font-size:12px}
</style></head><body>
<h1>Traffic Health Monitor: queues</h1>
<p>Read-only, as of ${time(generatedAt)}. Reload to refresh.</p>
${sections.join('\n')}
</body></html>
`;
}
