// Cluster adapters chosen by configuration. Embedded mode (and, until the Redis adapters in
// cluster/redis/ exist, every mode) uses the in-process ones in cluster/local/: other processes
// sharing the database then see changes through the live mirrors' periodic poll.
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Counters } from '../ports/counters.ts';
import { LocalChangeBus } from './local/change-bus.ts';
import { LocalCounters } from './local/counters.ts';

export function createChangeBus(_config: Pick<Config, 'redisUrl'>, logger: Logger): ChangeBus {
  return new LocalChangeBus({
    onError: (err, ev) =>
      logger.warn({ err, topic: ev.topic, id: ev.id }, 'change subscriber failed; the poll will catch up'),
  });
}

/** Rate-limit and budget counters: in process memory until the Redis adapter exists. */
export function createCounters(_config: Pick<Config, 'redisUrl'>): Counters {
  return new LocalCounters();
}
