/**
 * A promise that rejects after `ms`. The Redis connections retry commands forever while Redis
 * is down (BullMQ needs that), so a scrape, a health check or a page that reads Redis must not
 * wait for an answer: it would hang exactly when the operator needs it.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  // The losing promise may still settle later; its rejection is nobody's business then.
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
