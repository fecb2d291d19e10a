// The fake upstream's start does not report a port that is taken (node raises it as an unhandled
// 'error' event and the process dies with a stack trace), so the commands that start it ask first
// and say which flag to change.
import { createServer } from 'node:net';

export function portInUse(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'EADDRINUSE';
}

/** Resolves when `port` can be listened on (0 always can); rejects naming `flag` when it is taken. */
export function ensurePortFree(port: number, host: string, flag: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) => {
      reject(portInUse(err) ? new Error(`port ${port} is in use: choose another ${flag} (0 = any free port)`) : err);
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
