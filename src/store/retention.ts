/** How long the store keeps things (one place). */

/**
 * Run records and sent pair events, counted back from the day (UTC) each commit's run finished:
 * the clock, never the as-of date.
 */
export const RUN_RETENTION_DAYS = 60;

/** Sent notifications stay visible this long ... */
export const SENT_NOTIFICATION_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** ... but no more than this many. */
export const SENT_NOTIFICATION_MAX = 10_000;

/** Expired silences stay listable (`thm silence list --expired`) this long, as Alertmanager's 120 h. */
export const EXPIRED_SILENCE_RETENTION_MS = 5 * 24 * 60 * 60 * 1000;
