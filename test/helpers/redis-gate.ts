// A TCP path to Redis that a test opens and cuts: while cut, every connection through it is dropped
// and new ones are refused, so the gateway behind it sees Redis go away and come back (a gap in the
// change bus) without touching the Redis other gateways use.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { TEST_REDIS_URL } from '../../src/cluster/redis/test-support.ts';

export class RedisGate {
  #open: boolean;
  readonly #sockets = new Set<Socket>();
  readonly #server: Server;
  readonly #target = new URL(TEST_REDIS_URL);

  private constructor(open: boolean) {
    this.#open = open;
    this.#server = createServer((client) => {
      if (!this.#open) return void client.destroy();
      const upstream = tcpConnect(Number(this.#target.port || 6379), this.#target.hostname);
      for (const s of [client, upstream]) this.#sockets.add(s);
      client.pipe(upstream).pipe(client);
      const end = () => {
        for (const s of [client, upstream]) {
          s.destroy();
          this.#sockets.delete(s);
        }
      };
      client.on('close', end).on('error', end);
      upstream.on('close', end).on('error', end);
    });
  }

  /** A gate listening on loopback, open or not yet. */
  static async start(opts: { open: boolean }): Promise<RedisGate> {
    const gate = new RedisGate(opts.open);
    await new Promise<void>((resolve) => gate.#server.listen(0, '127.0.0.1', resolve));
    return gate;
  }

  get url(): string {
    const address = this.#server.address();
    if (address === null || typeof address === 'string') throw new Error('not listening');
    return `redis://127.0.0.1:${address.port}`;
  }

  open(): void {
    this.#open = true;
  }

  cut(): void {
    this.#open = false;
    for (const s of this.#sockets) s.destroy();
    this.#sockets.clear();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
