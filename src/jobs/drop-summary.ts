import { EMAILED_DROP_CLASSES } from '../monitor/common-drops.js';
import type { DropClass, RunDrop } from '../monitor/types.js';

/**
 * A run's common drops as its one-line summary (`thm run --wait`, the demo) names them, beside
 * the pairs by class: "network down 35% (e-mailed)", "1 domain down 83% (e-mailed)", "2
 * domains down 40-83% (ongoing)". A drop that is news says "e-mailed" when the run decided an
 * alert e-mail, else its class (a network without recipients, a date already done).
 */
export function describeDrops(
  drops: readonly RunDrop[] | undefined,
  alertDecided: boolean,
): string[] {
  if (!drops || drops.length === 0) return [];
  const status = (c: DropClass) =>
    EMAILED_DROP_CLASSES.includes(c) && alertDecided ? 'e-mailed' : c;
  const groups = new Map<string, RunDrop[]>();
  for (const drop of drops) {
    const key = `${drop.scope}|${status(drop.class)}`;
    const group = groups.get(key);
    if (group) group.push(drop);
    else groups.set(key, [drop]);
  }
  const parts: string[] = [];
  for (const [key, group] of groups) {
    const [scope, word] = key.split('|');
    const percents = group.map((d) => d.dropPercent);
    const low = Math.min(...percents);
    const high = Math.max(...percents);
    const depth = low === high ? `${high}%` : `${low}-${high}%`;
    const what =
      scope === 'network'
        ? 'network'
        : `${group.length} ${group.length === 1 ? 'domain' : 'domains'}`;
    parts.push(`${what} down ${depth} (${word})`);
  }
  return parts;
}
