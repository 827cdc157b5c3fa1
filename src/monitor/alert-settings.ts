/**
 * The alert settings a run is decided by: the monitor's own view of the config's `alerts`
 * section. Each option is documented, with its default, where the config file is parsed into
 * this shape (alertsSchema, config/schema.ts); thresholds.ts computes what they mean.
 */
export interface AlertSettings {
  minBaselineClicks: number;
  minDropPercent: number;
  minSignificance: number;
  criticalDropPercent: number;
  renotifyAfterDays: number;
  clearAfterRuns: number;
  notifyCleared: boolean;
}
