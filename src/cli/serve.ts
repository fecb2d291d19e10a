// `switchyard serve`: the gateway, with graceful shutdown (stop accepting, drain in-flight requests,
// flush the request-log writer, close the database).
import { buildApp } from '../app.ts';

const SHUTDOWN_GRACE_MS = 15_000;

export async function serveCommand(_args: string[]): Promise<number | undefined> {
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
