// Shared by the job suites: polling waits instead of fixed sleeps, and a silent logger.
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';

export const silent = pino({ level: 'silent' });

/** Resolves once `check` returns true; fails after `timeoutMs` with `what` in the message. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/** A promise plus the function that settles it, for holding a handler until the test lets go. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
