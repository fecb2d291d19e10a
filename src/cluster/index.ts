// Cluster adapters chosen by configuration. Embedded mode (no Redis URL) uses the in-process ones
// in cluster/local/: nothing on the hot path changes, and other processes sharing the database see
// changes through the live mirrors' periodic poll (workers of one machine: through their primary). With a Redis URL (scale-out mode) counters and
// change events are shared through Redis (cluster/redis/); while Redis is away, change events stay
// on this instance and limits follow SWITCHYARD_LIMITS_WITHOUT_REDIS (redis/failover-counters.ts).
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Counters } from '../ports/counters.ts';
import { IpcChangeBus } from './ipc-change-bus.ts';
import { LocalChangeBus } from './local/change-bus.ts';
import { LocalCounters } from './local/counters.ts';
import type { ClusterLog, LinkState } from './redis/client.ts';
import type { RedisFeed } from './redis/feed.ts';
import type { OnceClaims } from './types.ts';

// The Redis adapters are imported only when a Redis URL is set: ioredis alone is ~20 MB resident,
// which an embedded gateway (most of them) would carry for nothing.

export type { LinkState } from './redis/client.ts';
export type { OnceClaims } from './types.ts';

export interface ClusterOptions {
  /**
   * Namespace of this deployment's keys and channel in a shared Redis (`sy:<prefix>:`; default
   * `sy:`). Instances see each other's counters and events only under the same prefix.
   */
  keyPrefix?: string;
  /** Names this instance in Redis (default: random per process). */
  instanceId?: string;
  /** Told when the adapter starts or stops sharing through Redis (not called in embedded mode). */
  onStateChange?: (state: LinkState) => void;
  /** A change event's publish without an answer after this long reaches only this instance (default 100 ms). */
  commandTimeoutMs?: number;
  /** Counters: how long Redis may stay silent before it counts as away (default 1 s; see ReplyWatch). */
  deadlineMs?: number;
  /** Counters: told of each admission answered without Redis. */
  onWithoutRedis?: (outcome: 'admitted' | 'refused') => void;
}

const prefixOf = (opts: ClusterOptions): string => (opts.keyPrefix ? `sy:${opts.keyPrefix}:` : 'sy:');

export async function createChangeBus(
  config: Pick<Config, 'redisUrl' | 'workerId'>,
  logger: Logger,
  opts: ClusterOptions = {},
): Promise<ChangeBus> {
  const onError = (err: unknown, ev: { topic: string; id: string }) =>
    logger.warn({ err, topic: ev.topic, id: ev.id }, 'change subscriber failed; the poll will catch up');
  if (config.redisUrl === null)
    // A worker of SWITCHYARD_WORKERS: its primary relays events between the workers.
    return config.workerId === null ? new LocalChangeBus({ onError }) : new IpcChangeBus({ onError });
  const { RedisChangeBus } = await import('./redis/change-bus.ts');
  return new RedisChangeBus({
    url: config.redisUrl,
    keyPrefix: prefixOf(opts),
    instanceId: opts.instanceId,
    commandTimeoutMs: opts.commandTimeoutMs,
    logger: logger satisfies ClusterLog,
    onError,
    onStateChange: opts.onStateChange,
  });
}

/** Rate-limit and budget counters, with once-claims for cluster-wide deduplication. */
export async function createCounters(
  config: Pick<Config, 'redisUrl'> & Partial<Pick<Config, 'limitsWithoutRedis'>>,
  opts: ClusterOptions & { logger?: Logger } = {},
): Promise<Counters & OnceClaims> {
  if (config.redisUrl === null) return new LocalCounters();
  const [{ createRedisClient }, { RedisCounters }, { FailoverCounters }] = await Promise.all([
    import('./redis/client.ts'),
    import('./redis/counters.ts'),
    import('./redis/failover-counters.ts'),
  ]);
  const keyPrefix = prefixOf(opts);
  const redis = new RedisCounters({
    client: createRedisClient(config.redisUrl, { commandTimeoutMs: null }),
    keyPrefix,
    instanceId: opts.instanceId,
  });
  return new FailoverCounters({
    redis,
    logger: opts.logger,
    onStateChange: opts.onStateChange,
    mode: config.limitsWithoutRedis,
    deadlineMs: opts.deadlineMs,
    registryKey: `${keyPrefix}inst`,
    onWithoutRedis: opts.onWithoutRedis,
  });
}

/** Small observations every instance shares (health samples); undefined without Redis. */
export async function createFeed<T>(
  config: Pick<Config, 'redisUrl'>,
  name: string,
  opts: Pick<ClusterOptions, 'keyPrefix'> = {},
): Promise<RedisFeed<T> | undefined> {
  if (config.redisUrl === null) return undefined;
  const { RedisFeed } = await import('./redis/feed.ts');
  return new RedisFeed<T>({ url: config.redisUrl, keyPrefix: prefixOf(opts), name });
}
