// A loopback server that answers every request with what a family's stream encoder writes for a list
// of IR events, so a test reads the encoder's output through an official SDK the way a caller would.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StreamEncoder } from '../../src/families/shared/codec.ts';
import type { StreamEvent } from '../../src/ir/types.ts';

export interface EncoderServer {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** What the next request streams; a test may swap it. */
  events: StreamEvent[];
  close(): Promise<void>;
}

export async function serveEncoder(newEncoder: () => StreamEncoder, events: StreamEvent[]): Promise<EncoderServer> {
  const state = { events };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const enc = newEncoder();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const ev of state.events) for (const rec of enc.push(ev)) res.write(rec);
      for (const rec of enc.end()) res.write(rec);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get events() {
      return state.events;
    },
    set events(next) {
      state.events = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** One assistant turn with every block kind both families carry: thinking, text and two tool calls. */
export const TOOL_TURN: readonly StreamEvent[] = [
  { type: 'start', id: 'up_1', model: 'up', usage: { input: 0 } },
  { type: 'block_start', index: 0, block: { type: 'thinking' } },
  { type: 'thinking_delta', index: 0, text: 'Need ' },
  { type: 'thinking_delta', index: 0, text: 'weather.' },
  { type: 'signature_delta', index: 0, signature: 'sig-1' },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'text_delta', index: 1, text: 'Checking ' },
  { type: 'text_delta', index: 1, text: 'now.' },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_use', id: 'toolu_a', name: 'weather' } },
  { type: 'tool_args_delta', index: 2, partialJson: '{"city":"Pa' },
  { type: 'tool_args_delta', index: 2, partialJson: 'ris"}' },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_use', id: 'toolu_b', name: 'time' } },
  { type: 'tool_args_delta', index: 3, partialJson: '{}' },
  { type: 'block_stop', index: 3 },
  { type: 'stop', stopReason: 'tool_use' },
  // After the stop, as alpha-wire upstreams report it.
  { type: 'usage', usage: { input: 25, output: 40, cacheRead: 5 } },
];
