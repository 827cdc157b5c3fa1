import { createRequire } from 'node:module';
import cronParser from 'cron-parser';

/**
 * cron-parser, as the monitor uses it: the same parser (and version) as BullMQ's job schedulers.
 *
 * It computes with luxon's DateTimes, and luxon gives each one the system's locale, which it asks
 * of a new Intl.DateTimeFormat the first time: that loads ICU's locale data, ~18 ms of every
 * command that reads a config (its crons are parsed to be checked), `thm status` among them
 * (target P7, docs/performance.md). Nothing here formats a date with luxon, so its locale is
 * fixed instead. This is the luxon cron-parser requires: one CommonJS instance, left out of the
 * CLI's bundle so that it stays one (scripts/bundle-cli.js).
 */
const require = createRequire(import.meta.url);
(require('luxon') as { Settings: { defaultLocale: string } }).Settings.defaultLocale = 'en-US';

export default cronParser;
