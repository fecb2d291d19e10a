// Parses JSON bodies ourselves: the parsed object goes to validation and handlers, the raw text
// stays on the request for byte-exact pass-through. Malformed JSON is a 400, never a 500.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../util/json-depth.ts';

export { MAX_JSON_DEPTH };

export function registerJsonParser(app: FastifyInstance): void {
  // text/plain is dropped too: a JSON API given form text should say "wrong content type", not
  // fail later with a confusing schema message.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  const parse = (request: FastifyRequest, body: string | Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    request.rawBody = text;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) {
      done(new GatewayError('json_too_deep', { vars: { limit: MAX_JSON_DEPTH } }));
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      const detail = err instanceof Error ? err.message : 'parse error';
      done(new GatewayError('invalid_json', { vars: { detail } }));
    }
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json$/, { parseAs: 'string' }, parse);
}
