// `switchyard serve`: the gateway, with graceful shutdown (stop accepting, drain in-flight requests,
// flush the request-log writer, close the database).
import cluster from 'node:cluster';
import { setFlagsFromString } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { type Config, loadConfig } from '../config.ts';
import { trimHeapWhenIdle } from './idle-heap.ts';
import { type MallocTuning, tuneMalloc } from './malloc.ts';
import { runPrimary } from './workers.ts';
import { capYoungGeneration, nodeFlagsGiven, type YoungGenerationCap } from './young-generation.ts';

/** Flags of `switchyard serve`; each one given wins over its SWITCHYARD_* variable. */
export interface ServeOptions {
  port?: number;
  host?: string;
  dataDir?: string;
}

function overridesFrom(opts: ServeOptions): Partial<Config> {
  const out: Partial<Config> = {};
  if (opts.port !== undefined) out.port = opts.port;
  if (opts.host !== undefined) out.host = opts.host;
  if (opts.dataDir !== undefined) out.dataDir = opts.dataDir;
  return out;
}

/** The address a browser on this machine can open (a wildcard bind is reachable on loopback). */
function browsable(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
}

/** What a person starting the gateway looks for first: where it answers and where the dashboard is. */
function banner(app: FastifyInstance): string {
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : app.svc.config.port;
  const base = browsable(app.svc.config.host, port);
  const ui = app.hasRoute({ method: 'GET', url: '/ui/' }) ? `${base}/ui/` : 'not built (npm run build)';
  return [
    '',
    `Switchyard is listening on ${base}`,
    `  Dashboard      ${ui}`,
    `  OpenAI SDK     baseURL ${base}/v1`,
    `  Anthropic SDK  baseURL ${base}`,
    '',
    '',
  ].join('\n');
}

/** How long in-flight requests may take to finish on SIGTERM before they are ended with an error. */
const DRAIN_MS = Number(process.env.SWITCHYARD_SHUTDOWN_DRAIN_MS ?? '') || 10_000;
/** After the drain: time for the error answers and log rows to go out before the process exits anyway. */
const FINISH_MS = 5_000;

// Under load V8 lets the old generation grow to about four times the live set before a full
// collection (a 26 MB live set swung to 127 MB); a gateway would rather stay small and steady, at the
// price of more frequent, cheap collections (~1-2% CPU at saturation). The growth factor is read at
// every collection, so it can be set here; a value given in NODE_OPTIONS or on the command line wins.
const HEAP_GROWING_PERCENT = 50;

function tuneHeap(): { young: YoungGenerationCap; malloc: MallocTuning } {
  if (!nodeFlagsGiven().includes('heap-growing-percent'))
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  // Before the log worker starts: a thread keeps the malloc arena it first allocated from.
  return { young: capYoungGeneration(), malloc: tuneMalloc() };
}

export async function serveCommand(opts: ServeOptions = {}): Promise<number | undefined> {
  const overrides = overridesFrom(opts);
  // Workers are forked with this process's arguments, so each one reads the same flags.
  const { workers } = loadConfig(process.env, overrides);
  if (workers > 1 && cluster.isPrimary) return runPrimary(workers);
  const { young, malloc } = tuneHeap();
  // Loaded once the heap is tuned: evaluating the gateway's modules is what first grows the young
  // generation, and a space grown past the cap would stay that size until the next quiet spell.
  const { buildApp } = await import('../app.ts');
  const app = await buildApp({ config: overrides });
  const { config, bootstrap } = app.svc;
  const generated = bootstrap.generatedAdminKey;
  if (generated !== null) {
    // Printed once, to stdout only, never to the structured log.
    process.stdout.write(
      `\nAdmin API key (shown once, store it now):\n\n  ${generated}\n\nSet SWITCHYARD_ADMIN_KEY to choose your own.\n\n`,
    );
  }
  const configFile = process.env.SWITCHYARD_CONFIG;
  // One worker applies the file (two would race to create the same resources); the others follow
  // the store through the change feed like any other instance.
  if (configFile !== undefined && configFile !== '' && (config.workerId === null || config.workerId === 1)) {
    const { applyAtStart, reloadOnHangup } = await import('../config-file/reload.ts');
    try {
      await applyAtStart(app.svc, configFile);
    } catch (err) {
      await app.close();
      throw err;
    }
    reloadOnHangup(app.svc, configFile);
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  app.log.info({ storage: app.svc.dialect, nativeMalloc: malloc.native }, 'switchyard ready');
  young.started();
  trimHeapWhenIdle(malloc.release);
  // One banner per gateway, not one per worker.
  if (config.workerId === null || config.workerId === 1) process.stdout.write(banner(app));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    // Past the drain time, calls still running are answered with 503 shutting_down (an error record
    // on streams) and logged, so no caller is left with a reset connection and no row is lost.
    const drain = setTimeout(() => {
      app.log.warn({ inFlight: app.inFlight.size }, 'drain time over; ending the calls still in flight');
      app.inFlight.abortAll();
    }, DRAIN_MS);
    drain.unref();
    // Connections that go idle after the close began (a stream that just ended) would otherwise
    // stay open until their keep-alive runs out.
    const idle = setInterval(() => app.server.closeIdleConnections(), 100);
    idle.unref();
    const force = setTimeout(() => {
      app.log.error('shutdown did not finish; exiting');
      process.exit(1);
    }, DRAIN_MS + FINISH_MS);
    force.unref();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        app.log.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  return undefined;
}
