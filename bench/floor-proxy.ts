// The floor of issue 32: the least a Node proxy can do (node:http in, an undici pool out, bytes
// relayed both ways), so the bench can say what Switchyard costs beyond its runtime. It must stay
// this bare: every feature added here raises the floor and flatters the gateway.
// Usage: node --import tsx bench/floor-proxy.ts <port> <upstream origin>
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';

// undici refuses these on a request, and on a reply they describe our hop, not the upstream's
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'expect']);

function forwardable(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  return out;
}

// the same pool size and keep-alive as the gateway's chat lane (src/providers/pools.ts)
const pool = new Pool(process.argv[3] ?? 'http://127.0.0.1:0', { connections: 256, keepAliveTimeout: 30_000 });

// The body is read whole because a gateway must read it whole too (it rewrites the model), and
// undici sends a buffer for less than a streamed body; `stream` writes the answer straight into
// the reply, without the Readable that `request` would build for each call.
const server = createServer(async (req, res) => {
  const method = req.method ?? 'GET';
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length === 0 ? null : Buffer.concat(chunks);
  pool
    .stream({ method, path: req.url ?? '/', headers: forwardable(req.headers), body }, ({ statusCode, headers }) => {
      res.writeHead(statusCode, forwardable(headers));
      return res;
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});

server.keepAliveTimeout = 30_000;
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`floor proxy listening on ${JSON.stringify(server.address())}\n`);
});
const stop = () => server.close(() => void pool.close().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
