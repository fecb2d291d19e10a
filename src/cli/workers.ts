// `SWITCHYARD_WORKERS=N`: N gateway processes behind one port (node:cluster), so that one machine's
// cores all serve. The primary serves nothing itself: it starts worker 1 alone (it creates the
// master key, runs the migrations and makes the admin key), then the others once that one listens;
// it starts a worker again when one dies, and on SIGTERM/SIGINT stops them all, each draining its
// own calls as a single gateway does. Workers share state through the same ports as instances do:
// the store, and Redis when it is set (else the primary relays change events between them).
import cluster, { type Worker } from 'node:cluster';
import { relayChanges } from '../cluster/worker-relay.ts';

/** A worker that dies is started again after this long (a crash loop then costs little). */
const RESTART_MS = 1000;

function fork(id: number): Worker {
  return cluster.fork({ SWITCHYARD_WORKER_ID: String(id) });
}

function listening(w: Worker): Promise<boolean> {
  return new Promise((resolve) => {
    w.once('listening', () => resolve(true));
    w.once('exit', () => resolve(false));
  });
}

export async function runPrimary(count: number): Promise<number | undefined> {
  const workers = new Map<number, Worker>();
  let stopping = false;
  const watch = (id: number, w: Worker) => {
    workers.set(id, w);
    relayChanges(w, () => [...workers.values()]);
    w.once('exit', (code, signal) => {
      if (workers.get(id) === w) workers.delete(id);
      if (stopping) {
        if (workers.size === 0) process.exit(0);
        return;
      }
      process.stderr.write(`switchyard: worker ${id} exited (${signal ?? code}); starting it again\n`);
      setTimeout(() => {
        if (!stopping) watch(id, fork(id));
      }, RESTART_MS).unref();
    });
  };
  const first = fork(1);
  watch(1, first);
  if (!(await listening(first))) {
    stopping = true;
    process.stderr.write('switchyard: the first worker exited before it could serve\n');
    return 1;
  }
  for (let id = 2; id <= count; id++) watch(id, fork(id));
  const stop = () => {
    if (stopping) return;
    stopping = true;
    if (workers.size === 0) process.exit(0);
    for (const w of workers.values()) w.process.kill('SIGTERM');
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return undefined;
}
