// A periodic "what changed since" poll: the safety net that lets mirrors see writes made by other
// processes (the CLI, other instances) within one interval; in-process writes reach them through change events.
import type { Logger } from 'pino';

export interface Refresher {
  /** Runs one poll now (tests and start-up use it to avoid waiting for the timer). */
  tick(): Promise<void>;
  stop(): void;
}

export function startRefresher(
  name: string,
  intervalMs: number,
  logger: Logger,
  poll: (sinceIso: string) => Promise<string | undefined>,
): Refresher {
  // Overlap by one second: rows written with a slightly older clock (another process) are not missed,
  // and applying a change twice is harmless because caches replace whole entries.
  let high = new Date(Date.now() - 1000).toISOString();
  let running: Promise<void> | undefined;
  const tick = (): Promise<void> => {
    running ??= (async () => {
      try {
        const since = new Date(Date.parse(high) - 1000).toISOString();
        const newest = await poll(since);
        if (newest !== undefined && newest > high) high = newest;
      } catch (err) {
        logger.warn({ err, cache: name }, 'cache refresh failed; will retry');
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const timer = setInterval(() => void tick(), intervalMs);
  timer.unref();
  return { tick, stop: () => clearInterval(timer) };
}

export function newestOf(rows: Array<{ updatedAt: string }>): string | undefined {
  let max: string | undefined;
  for (const r of rows) if (max === undefined || r.updatedAt > max) max = r.updatedAt;
  return max;
}
