// `switchyard serve`: the gateway, with graceful shutdown (stop accepting, drain in-flight requests,
// flush the request-log writer, close the database).
import { setFlagsFromString } from 'node:v8';
import { buildApp } from '../app.ts';

const SHUTDOWN_GRACE_MS = 15_000;

// Under load V8 lets the old generation grow to about four times the live set before a full
// collection (a 26 MB live set swung to 127 MB); a gateway would rather stay small and steady, at the
// price of more frequent, cheap collections (~1-2% CPU at saturation). The growth factor is read at
// every collection, so it can be set here; a value given in NODE_OPTIONS or on the command line wins.
const HEAP_GROWING_PERCENT = 50;

function tuneHeap(): void {
  const given = `${process.env.NODE_OPTIONS ?? ''} ${process.execArgv.join(' ')}`;
  if (!given.includes('heap-growing-percent')) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

export async function serveCommand(_args: string[]): Promise<number | undefined> {
  tuneHeap();
  const app = await buildApp();
  const { config, bootstrap } = app.svc;
  const generated = bootstrap.generatedAdminKey;
  if (generated !== null) {
    // Printed once, to stdout only, never to the structured log.
    process.stdout.write(
      `\nAdmin API key (shown once, store it now):\n\n  ${generated}\n\nSet SWITCHYARD_ADMIN_KEY to choose your own.\n\n`,
    );
  }
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    throw err;
  }
  app.log.info({ storage: app.svc.dialect }, 'switchyard ready');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining in-flight requests');
    const force = setTimeout(() => {
      app.log.warn('shutdown grace period over; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
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
