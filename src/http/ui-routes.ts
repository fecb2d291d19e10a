// Serves the dashboard (ui/, built by scripts/build-ui.js into ui/build) at /ui. Every path under
// /ui that is not an asset answers index.html, so the app's own routes (/ui/logs/req_...) survive
// a reload or a shared link. Assets are named by content hash: cached for a year and never
// revalidated; index.html is revalidated on every load, so a new build is picked up at once. The
// build writes a gzipped twin of each file, sent to clients that accept gzip, so nothing is
// compressed per request. The page reaches the gateway only through the public management API, as
// any client does; it is public itself (the API key is entered in the page).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface UiRoutesOptions {
  /** The built dashboard; default `<package root>/ui/build`. */
  root?: string;
}

interface Asset {
  raw: Buffer;
  gzip: Buffer | null;
  type: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

// Same-origin only: no CDN, no third-party request can be made by the page even if one slipped
// into the bundle. Inline styles are allowed because the chart library sizes its canvas with them.
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** The directory holding package.json, from this file in src/http or dist/src/http. */
function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}

function typeOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return TYPES[dot >= 0 ? name.slice(dot) : ''] ?? 'application/octet-stream';
}

function read(file: string): Buffer | null {
  try {
    return readFileSync(file);
  } catch {
    return null;
  }
}

function acceptsGzip(request: FastifyRequest): boolean {
  const header = request.headers['accept-encoding'];
  if (typeof header !== 'string') return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().split(';');
    if (coding?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

function send(request: FastifyRequest, reply: FastifyReply, asset: Asset): FastifyReply {
  reply.header('vary', 'accept-encoding');
  if (asset.gzip && acceptsGzip(request)) {
    return reply.type(asset.type).header('content-encoding', 'gzip').send(asset.gzip);
  }
  return reply.type(asset.type).send(asset.raw);
}

export function uiRoutes(opts: UiRoutesOptions = {}) {
  const root = opts.root ?? join(packageRoot(), 'ui', 'build');
  // Hashed assets never change under their name, so one read each is enough.
  const assets = new Map<string, Asset>();
  let index: { asset: Asset; mtimeMs: number; etag: string } | null = null;

  /** index.html, re-read when a build replaced it; null when the dashboard was never built. */
  function loadIndex(): typeof index {
    const file = join(root, 'index.html');
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) return null;
    if (index && index.mtimeMs === mtimeMs) return index;
    const raw = read(file);
    if (!raw) return null;
    const etag = `"${createHash('sha256').update(raw).digest('base64url').slice(0, 27)}"`;
    index = { asset: { raw, gzip: read(`${file}.gz`), type: TYPES['.html'] as string }, mtimeMs, etag };
    return index;
  }

  function notBuilt(reply: FastifyReply): FastifyReply {
    return reply
      .code(503)
      .headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
      .type('text/plain; charset=utf-8')
      .send(
        'The Switchyard dashboard is not built.\n\n' +
          'Run `npm run build` (or `node scripts/build-ui.js`) in the package directory, with its devDependencies\n' +
          'installed, then reload this page. The management API at /manage/v1 works without it.\n',
      );
  }

  function serveIndex(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const current = loadIndex();
    if (!current) return notBuilt(reply);
    reply.headers({ ...SECURITY_HEADERS, 'cache-control': 'no-cache', etag: current.etag });
    if (request.headers['if-none-match'] === current.etag) return reply.code(304).send();
    return send(request, reply, current.asset);
  }

  function serveAsset(request: FastifyRequest, reply: FastifyReply, name: string): FastifyReply {
    let asset = assets.get(name);
    if (!asset && ASSET_NAME.test(name) && !name.endsWith('.gz')) {
      const file = join(root, 'assets', name);
      const raw = read(file);
      if (raw) {
        asset = { raw, gzip: read(`${file}.gz`), type: typeOf(name) };
        assets.set(name, asset);
      }
    }
    if (!asset) {
      if (!loadIndex()) return notBuilt(reply);
      return reply
        .code(404)
        .headers({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' })
        .type('text/plain; charset=utf-8')
        .send(`No dashboard asset named ${name}\n`);
    }
    reply.headers({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
    return send(request, reply, asset);
  }

  return async (app: FastifyInstance): Promise<void> => {
    // Async handlers that return the reply: fastify then knows the answer was already sent.
    app.get('/ui', async (request, reply) => serveIndex(request, reply));
    app.get('/ui/', async (request, reply) => serveIndex(request, reply));
    app.get('/ui/*', async (request, reply) => {
      const rest = (request.params as { '*'?: string })['*'] ?? '';
      if (rest.startsWith('assets/')) return serveAsset(request, reply, rest.slice('assets/'.length));
      return serveIndex(request, reply);
    });
  };
}
