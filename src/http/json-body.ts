// Parses JSON bodies ourselves: the parsed object goes to validation and handlers, the raw text
// stays on the request for byte-exact pass-through. Malformed JSON is a 400, never a 500.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../util/json-depth.ts';

export { MAX_JSON_DEPTH };

/**
 * A request body's JSON value, undefined for a blank body; throws the GatewayError the caller is
 * answered with. Both doors parse with it (front-door.ts and the fastify parser below).
 */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, MAX_JSON_DEPTH))
    throw new GatewayError('json_too_deep', { vars: { limit: MAX_JSON_DEPTH } });
  try {
    return JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : 'parse error';
    throw new GatewayError('invalid_json', { vars: { detail } });
  }
}

export function registerJsonParser(app: FastifyInstance): void {
  // text/plain is dropped too: a JSON API given form text should say "wrong content type", not
  // fail later with a confusing schema message.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parse = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    let value: unknown;
    try {
      value = parseJsonBody(text);
    } catch (err) {
      done(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    done(null, value);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parse);
}
