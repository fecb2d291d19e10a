// Redis connections for the cluster adapters, set to fail fast: a proxy call must never wait on a
// Redis that is gone. Without a connection a command is refused at once (no offline queue). The
// change bus gives up on a command after `commandTimeout`; the counters' connection has none, since
// a slow answer is still the answer (FailoverCounters judges when a silent Redis is away).
// ioredis keeps reconnecting in the background and says so with 'ready'.
import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';

/** The narrow logger the adapters need (pino's Logger fits). */
export interface ClusterLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export const SILENT_LOG: ClusterLog = { info() {}, warn() {}, error() {} };

/** Where a cluster adapter answers from: the shared Redis, or this process alone. */
export type LinkState = 'redis' | 'local';

export interface ClientOptions {
  /** Gives up on a command after this long (default 100 ms: well above a loopback round trip); null: never. */
  commandTimeoutMs?: number | null;
  /** A subscriber connection blocks on nothing, so it keeps no command timeout. */
  subscriber?: boolean;
}

export function createRedisClient(url: string, opts: ClientOptions = {}): Redis {
  const options: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A command given up on was answered without Redis: sending it again after a reconnect would
    // count the call twice.
    autoResendUnfulfilledCommands: false,
    // The change bus subscribes on every 'ready' itself (see RedisChangeBus).
    autoResubscribe: false,
    connectTimeout: 1000,
    // Retry quickly at first, then every 2 s, forever: Redis coming back is noticed within seconds.
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
    ...(opts.subscriber || opts.commandTimeoutMs === null ? {} : { commandTimeout: opts.commandTimeoutMs ?? 100 }),
  };
  const client = new Redis(url, options);
  // ioredis prints unhandled 'error' events to the console; the adapters report outages themselves.
  client.on('error', () => {});
  return client;
}

/**
 * A command refused before it was written (no connection): it certainly did not run. Any other
 * failure (a timeout, a connection lost mid-command: "Connection is closed", "max retries") may
 * have run on the server.
 */
export function neverSent(err: unknown): boolean {
  return err instanceof Error && err.message.includes("isn't writeable");
}

// Answers Redis gives when it cannot serve for now (loading, a read-only replica after a failover,
// a busy script): an outage like a lost connection. Any other error reply is a bug to report.
const UNAVAILABLE = /^(LOADING|READONLY|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOREPLICAS|MISCONF)\b/;

export function isOutage(err: unknown): boolean {
  if (!(err instanceof Error)) return true;
  return err.name !== 'ReplyError' || UNAVAILABLE.test(err.message);
}

/** A Lua script run by EVALSHA: one round trip, except the first time a server sees it. */
export class LuaScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash('sha1').update(source).digest('hex');
  }

  async run(client: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await client.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (err) {
      // A restarted server has an empty script cache; EVAL loads the script and runs it.
      if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return client.eval(this.#source, keys.length, ...keys, ...args);
    }
  }
}

/** A script's reply as strings (every script here answers a flat array of strings). */
export function strings(reply: unknown): string[] {
  if (!Array.isArray(reply) || !reply.every((v) => typeof v === 'string')) {
    throw new Error(`unexpected reply from a counters script: ${JSON.stringify(reply)}`);
  }
  return reply;
}
