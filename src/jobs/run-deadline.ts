/**
 * The deadline of one run's API calls together: `api.requestTimeoutMs` also bounds each request
 * on its own, but a run makes several, and a slow API must not hold a worker slot (and the
 * networks queued behind it) for a multiple of it. Passed to the client as an AbortSignal; the
 * reason is the failure's message.
 */
export interface RunDeadline {
  signal: AbortSignal;
  clear(): void;
}

export function startRunDeadline(ms: number, kind: string): RunDeadline {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new Error(`the ${kind}'s API calls took longer than api.requestTimeoutMs (${ms} ms)`),
      ),
    ms,
  );
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
