// The lingering close's bounds (src/http/linger.ts), on a plain Node server that answers before
// reading the body: a body sent to its end leaves the connection usable, one that stalls is cut
// after the time limit, one larger than the byte limit is cut once past it. In every case the
// client has the answer first.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { discardRest } from '../../src/http/linger.ts';

let server: Server;
let port = 0;

before(async () => {
  server = createServer((req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain', 'retry-after': '1', 'content-length': '4' });
    res.end('busy');
    discardRest(req, { maxBytes: 1024 * 1024, maxMs: 300 });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

interface Client {
  socket: Socket;
  /** Everything read so far. */
  text(): string;
  closed: Promise<void>;
}

function open(): Promise<Client> {
  return new Promise((resolve) => {
    let read = '';
    const socket = connect(port, '127.0.0.1', () => resolve({ socket, text: () => read, closed }));
    socket.on('data', (b: Buffer) => {
      read += b.toString('latin1');
    });
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
  });
}

const head = (length: number) =>
  `POST /upload HTTP/1.1\r\nHost: x\r\ncontent-type: application/octet-stream\r\ncontent-length: ${length}\r\n\r\n`;

const until = async (check: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

test('a body sent to its end is dropped and the connection serves the next request', async () => {
  const c = await open();
  c.socket.write(head(300_000));
  await until(() => c.text().includes('busy'));
  c.socket.write(Buffer.alloc(300_000, 97));
  c.socket.write(head(0));
  await until(() => c.text().split('HTTP/1.1 503').length === 3);
  assert.ok(!c.socket.destroyed);
  c.socket.destroy();
});

test('a body that stalls is cut after the time limit, the answer read first', async () => {
  const c = await open();
  const started = Date.now();
  c.socket.write(head(500_000));
  c.socket.write(Buffer.alloc(1000, 97));
  await c.closed;
  assert.match(c.text(), /^HTTP\/1\.1 503/);
  const took = Date.now() - started;
  assert.ok(took >= 250 && took < 3000, `cut after ${took} ms`);
});

test('a body past the byte limit is cut', async () => {
  const c = await open();
  c.socket.write(head(50 * 1024 * 1024));
  await until(() => c.text().includes('busy'));
  const chunk = Buffer.alloc(64 * 1024, 97);
  let sent = 0;
  while (!c.socket.destroyed && sent < 8 * 1024 * 1024) {
    sent += chunk.length;
    if (!c.socket.write(chunk))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          c.socket.off('drain', done);
          c.socket.off('close', done);
          resolve();
        };
        c.socket.once('drain', done);
        c.socket.once('close', done);
      });
  }
  await c.closed;
  assert.ok(sent > 1024 * 1024 && sent < 8 * 1024 * 1024, `sent ${sent} bytes before the cut`);
});
