// The ChangeBus of scale-out mode: every event goes to this process's subscribers directly (publish
// resolves once they have applied it, as on the local bus) and to the other instances over one Redis
// pub/sub channel. An instance skips its own events when Redis echoes them back (each message names
// its sender), so no subscriber sees an event twice.
//
// Pub/sub delivers at most once: a message sent while an instance is disconnected is lost to it.
// That is acceptable because an event carries no data, only what to reload, and the live mirrors'
// periodic poll of the store repairs whatever was missed. For the same reason a Redis outage never
// fails a publish: local delivery goes on, the other instances catch up through their poll. So that
// the repair does not wait for the poll's timer, each subscription (the first one included: it
// completes some time after the mirrors have loaded) tells the onResume handlers to re-read at once.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { ChangeBus, ChangeEvent, ChangeTopic } from '../../ports/change-bus.ts';
import { LocalChangeBus } from '../local/change-bus.ts';
import { type ClusterLog, createRedisClient, type LinkState, SILENT_LOG } from './client.ts';

export interface RedisChangeBusOptions {
  url: string;
  /** The channel is `<keyPrefix>changes` (default `sy:`): instances with one prefix share events. */
  keyPrefix?: string;
  /** Names this bus in its messages (default: a random UUID). */
  instanceId?: string;
  /** How long a publish waits for Redis before giving up on the other instances (default 100 ms). */
  commandTimeoutMs?: number;
  logger?: ClusterLog;
  /** Called once per failed subscriber call (the publish itself still resolves). */
  onError?: (err: unknown, ev: ChangeEvent) => void;
  /** Told when events start or stop reaching the other instances (for a metric and /healthz). */
  onStateChange?: (state: LinkState) => void;
}

// Satisfies forces an entry per topic, so a new topic cannot be forgotten here.
const TOPICS = {
  api_key: true,
  credential: true,
  project: true,
  routing_config: true,
  budget: true,
  webhook_endpoint: true,
  cache_entry: true,
  guardrail: true,
  model_setting: true,
} satisfies Record<ChangeTopic, true>;

const isTopic = (t: unknown): t is ChangeTopic => typeof t === 'string' && Object.hasOwn(TOPICS, t);

interface Message {
  v: 1;
  from: string;
  topic: ChangeTopic;
  id: string;
  orgId: string;
}

export class RedisChangeBus implements ChangeBus {
  readonly #local: LocalChangeBus;
  readonly #pub: Redis;
  readonly #sub: Redis;
  readonly #channel: string;
  readonly #instance: string;
  readonly #log: ClusterLog;
  readonly #onStateChange: (state: LinkState) => void;
  readonly #resumeHandlers = new Set<() => void>();
  #subscribed = false;
  #state: LinkState = 'local';
  #outageLogged = false;
  #closed = false;

  constructor(opts: RedisChangeBusOptions) {
    this.#local = new LocalChangeBus({ onError: opts.onError });
    this.#channel = `${opts.keyPrefix ?? 'sy:'}changes`;
    this.#instance = opts.instanceId ?? randomUUID();
    this.#log = opts.logger ?? SILENT_LOG;
    this.#onStateChange = opts.onStateChange ?? (() => {});
    this.#pub = createRedisClient(opts.url, { commandTimeoutMs: opts.commandTimeoutMs });
    this.#sub = createRedisClient(opts.url, { subscriber: true });
    this.#sub.on('message', this.#onMessage);
    // Subscribed anew on every connection: ioredis's own resubscription is off (see client.ts).
    this.#sub.on('ready', () => {
      this.#sub.subscribe(this.#channel).then(
        () => {
          this.#subscribed = true;
          this.#check();
          this.#resumed();
        },
        (err: unknown) => this.#down(err),
      );
    });
    this.#sub.on('close', () => {
      this.#subscribed = false;
      this.#down(new Error('subscriber connection to Redis closed'));
    });
    this.#pub.on('ready', () => this.#check());
    this.#pub.on('close', () => this.#down(new Error('connection to Redis closed')));
    for (const client of [this.#pub, this.#sub]) client.on('error', (err: unknown) => this.#down(err));
  }

  /** 'redis' while events reach the other instances (both connections up), else 'local'. */
  get state(): LinkState {
    return this.#state;
  }

  /** Resolves once this process's subscribers are done and Redis took the event (or gave up). */
  publish(ev: ChangeEvent): Promise<void> {
    const local = this.#local.publish(ev);
    if (this.#closed) return local;
    const message: Message = { v: 1, from: this.#instance, topic: ev.topic, id: ev.id, orgId: ev.orgId };
    // Refused at once without a connection, given up after the command timeout without an answer.
    const remote = this.#pub.publish(this.#channel, JSON.stringify(message)).then(
      () => this.#check(),
      (err: unknown) => this.#down(err),
    );
    return Promise.all([local, remote]).then(() => {});
  }

  subscribe(topic: ChangeTopic, handler: (ev: ChangeEvent) => void | Promise<void>): () => void {
    return this.#local.subscribe(topic, handler);
  }

  onResume(handler: () => void): () => void {
    // Its own entry, as for subscribe: one function added twice is called twice.
    const entry = () => handler();
    this.#resumeHandlers.add(entry);
    return () => {
      this.#resumeHandlers.delete(entry);
    };
  }

  /** Stops delivery, waits for deliveries under way, and closes both connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#resumeHandlers.clear();
    await this.#local.close();
    await Promise.all(
      [this.#sub, this.#pub].map((client) =>
        client.quit().then(
          () => {},
          () => client.disconnect(),
        ),
      ),
    );
  }

  readonly #onMessage = (channel: string, raw: string): void => {
    if (channel !== this.#channel || this.#closed) return;
    let msg: unknown;
    try {
      msg = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const { from, topic, id, orgId } = msg as Partial<Record<keyof Message, unknown>>;
    // Our own event, echoed: its subscribers here already had it. An unknown topic comes from a
    // newer instance: nothing here subscribes to it.
    if (from === this.#instance || !isTopic(topic) || typeof id !== 'string' || typeof orgId !== 'string') return;
    // Subscriber failures go to onError inside the local bus; nothing waits for this delivery.
    void this.#local.publish({ topic, id, orgId });
  };

  #resumed(): void {
    if (this.#closed) return;
    for (const handler of [...this.#resumeHandlers]) {
      try {
        handler();
      } catch (err) {
        // One broken handler must not keep the others from catching up; their poll still runs.
        this.#log.error({ err }, 'a change subscriber could not catch up after subscribing');
      }
    }
  }

  #check(): void {
    if (this.#closed || !this.#subscribed || this.#pub.status !== 'ready' || this.#state === 'redis') return;
    this.#state = 'redis';
    if (this.#outageLogged) this.#log.info({}, 'Redis is back: changes reach the other instances again');
    this.#outageLogged = false;
    this.#onStateChange('redis');
  }

  #down(err: unknown): void {
    if (this.#closed) return;
    if (!this.#outageLogged) {
      this.#outageLogged = true;
      this.#log.warn(
        { err },
        'Redis unreachable: changes reach the other instances through their periodic poll until it returns',
      );
    }
    if (this.#state === 'redis') {
      this.#state = 'local';
      this.#onStateChange('local');
    }
  }
}
