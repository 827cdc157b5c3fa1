/** How long the store keeps things (one place). */

/** Run records and sent pair events, counted back from today (UTC, the wall clock) at each commit. */
export const RUN_RETENTION_DAYS = 60;

/** Sent notifications stay visible this long ... */
export const SENT_NOTIFICATION_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** ... but no more than this many. */
export const SENT_NOTIFICATION_MAX = 10_000;
