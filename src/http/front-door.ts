// The common model call, served without the framework. Most proxy calls are alike: a POST of a
// small JSON body with a known API key to one of the pipeline's routes. For those the framework's
// router, hook runners, content-type parser and reply object cost about a sixth of the gateway's
// CPU per call (issue 32), so the server's request listener looks at the request line and headers
// first. A call it can admit from headers alone is read, parsed and handed to the same route
// handler fastify would have called (proxy-routes.ts); every other request (a body that is large,
// chunked or not JSON, an unknown or refused key, a session cookie, a query string, a shutdown
// under way) goes to fastify untouched, and its hooks answer it exactly as before.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { GatewayError } from '../errors/gateway-error.ts';
import type { PrincipalMirror } from '../live/principals.ts';
import { newId } from '../util/ids.ts';
import { admittedNow } from './auth.ts';
import { UNCOUNTED_BYTES } from './body-budget.ts';
import { errorBodyFor } from './errors.ts';
import { parseJsonBody } from './json-body.ts';
import {
  type OnFault,
  type ProxyCallRequest,
  type ProxyServe,
  type ProxyServeTable,
  writeJson,
} from './proxy-routes.ts';
import { rootAlias } from './root-alias.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

export interface FrontDoorOptions {
  principals: PrincipalMirror;
  routes: ProxyServeTable;
  /** The gateway's body limit: a larger body is fastify's to refuse. */
  maxBodyBytes: number;
  onFault: OnFault;
}

/** `application/json`, with or without parameters, as the SDKs send it. */
function isJson(contentType: string | undefined): boolean {
  if (contentType?.startsWith('application/json') !== true) return false;
  return contentType.length === 16 || contentType.charCodeAt(16) === 59;
}

export class FrontDoor {
  readonly #opts: FrontDoorOptions;
  /** Bodies the door reads whole: small enough that the process-wide body budget does not count them. */
  readonly #maxBytes: number;
  #open = true;
  #taken = 0;

  constructor(opts: FrontDoorOptions) {
    this.#opts = opts;
    this.#maxBytes = Math.min(UNCOUNTED_BYTES, opts.maxBodyBytes);
  }

  /** Requests served here since start (the rest went to fastify). */
  get taken(): number {
    return this.#taken;
  }

  /** From now on every request goes to fastify (which answers 503 while it closes). */
  close(): void {
    this.#open = false;
  }

  /** Puts the door in front of the server's own request listener (fastify's). */
  install(server: Server): void {
    const behind = server.listeners('request') as Listener[];
    if (behind.length !== 1) throw new Error(`front door: expected one request listener, found ${behind.length}`);
    const fallback = behind[0];
    server.removeListener('request', fallback);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!this.#take(req, res)) fallback(req, res);
    });
  }

  /** Serves the request and returns true, or returns false having touched nothing. */
  #take(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.#open || req.method !== 'POST') return false;
    const path = rootAlias(req);
    const serve = this.#opts.routes.get(path);
    if (serve === undefined) return false;
    const headers = req.headers;
    if (!isJson(headers['content-type']) || headers['transfer-encoding'] !== undefined) return false;
    const length = Number(headers['content-length']);
    if (!(length > 0 && length <= this.#maxBytes)) return false;
    const principal = admittedNow(this.#opts.principals, headers, path);
    if (principal === undefined) return false;
    this.#taken++;
    const chunks: Buffer[] = [];
    // A caller who leaves mid-body ends the request with an error; there is no one left to answer.
    req.on('error', noop);
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      const svcId = newId('req');
      let body: unknown;
      try {
        body = parseJsonBody(rawBody);
        if (body === undefined) throw new GatewayError('empty_body');
      } catch (err) {
        const e =
          err instanceof GatewayError ? err : new GatewayError('invalid_json', { vars: { detail: String(err) } });
        writeJson(res, e.status, { ...e.headers }, errorBodyFor(path, e), svcId);
        return;
      }
      this.#serve(serve, { principal, svcId, body, rawBody, headers }, res, path);
    });
    return true;
  }

  #serve(serve: ProxyServe, call: ProxyCallRequest, res: ServerResponse, path: string): void {
    // `serve` answers the flow's own faults; this catches one in writing the answer.
    serve(call, res).catch((err: unknown) => {
      this.#opts.onFault(err, call.svcId);
      if (res.headersSent) res.destroy();
      else writeJson(res, 500, {}, errorBodyFor(path, new GatewayError('internal_error')), call.svcId);
    });
  }
}

function noop(): void {}
