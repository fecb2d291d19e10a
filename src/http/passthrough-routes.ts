// The pass-through endpoints of family alpha: /responses (create and its four follow-ups), images
// and audio. The services decide; this reads bodies (JSON, or the transcription form) and writes
// their replies, JSON as it came, or bytes piped as they arrive (SSE, audio).
import { Readable } from 'node:stream';
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import type { AudioForm, Media, MediaCaller } from '../media/service.ts';
import type { RawReply } from '../pipeline/raw-call.ts';
import type { Responses } from '../responses/service.ts';
import { megabytes } from './errors.ts';
import { safeHeaders } from './header-value.ts';
import type { InFlight } from './proxy-routes.ts';
import { type ProxyRequest, registerProxyGroup } from './route-table.ts';

/** OpenAI takes audio files up to 25 MB; the form is held whole, so it is bounded a little above that. */
const AUDIO_FORM_LIMIT = 30 * 1024 * 1024;

function write(reply: FastifyReply, out: RawReply): FastifyReply {
  reply.code(out.status).headers(safeHeaders(out.headers));
  if (out.kind === 'pipe') {
    // 'close' comes once for a finished, failed or abandoned response alike.
    reply.raw.once('close', () => out.done(reply.raw.writableFinished));
    return reply.send(Readable.from(out.body, { objectMode: false }));
  }
  // A body without its own type is JSON: a passed-on text or an error object alike.
  if (out.headers['content-type'] === undefined) reply.type('application/json; charset=utf-8');
  // As on the proxy routes: the row is journaled before the caller can see the answer.
  out.done();
  return reply.send(typeof out.body === 'string' ? out.body : JSON.stringify(out.body));
}

function malformed(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (err instanceof Error && 'code' in err && err.code === 'FST_REQ_FILE_TOO_LARGE')
    return new GatewayError('request_too_large', { vars: { limit: megabytes(AUDIO_FORM_LIMIT) } });
  const detail = err instanceof Error ? err.message : String(err);
  return new GatewayError('invalid_request', { message: `Malformed multipart/form-data body: ${detail}` });
}

async function readForm(req: FastifyRequest): Promise<AudioForm> {
  if (!req.isMultipart())
    throw new GatewayError('invalid_request', {
      message: "Expected a multipart/form-data body with 'file' and 'model'",
    });
  const form: AudioForm = { fields: [], file: undefined };
  try {
    for await (const p of req.parts()) {
      if (p.type === 'file') {
        const data = await p.toBuffer();
        if (p.fieldname === 'file') form.file = { filename: p.filename, contentType: p.mimetype, data };
      } else {
        form.fields.push([p.fieldname, typeof p.value === 'string' ? p.value : JSON.stringify(p.value)]);
      }
    }
  } catch (err) {
    throw malformed(err);
  }
  return form;
}

/** The query string as the caller wrote it, passed on to the upstream (`starting_after`, `include[]`). */
function queryOf(req: FastifyRequest): string {
  const i = req.url.indexOf('?');
  return i < 0 ? '' : req.url.slice(i);
}

export function passthroughRoutes(responses: Responses, media: Media, inFlight: InFlight) {
  return async (app: FastifyInstance): Promise<void> => {
    await app.register(multipart, { limits: { fileSize: AUDIO_FORM_LIMIT, fields: 50, parts: 60 } });
    const caller = (req: FastifyRequest, reply: FastifyReply): MediaCaller => ({
      principal: req.principal,
      requestId: req.svcId,
      headers: req.headers,
      signal: inFlight.track(reply.raw),
      rawBody: req.rawBody,
    });
    registerProxyGroup(app, 'responses', {
      create: async (req, reply) => write(reply, await responses.create(caller(req, reply), req.body)),
      retrieve: async (req, reply) =>
        write(reply, await responses.followUp(caller(req, reply), 'retrieve', req.params.id, queryOf(req))),
      delete: async (req, reply) =>
        write(reply, await responses.followUp(caller(req, reply), 'delete', req.params.id, '')),
      cancel: async (req, reply) =>
        write(reply, await responses.followUp(caller(req, reply), 'cancel', req.params.id, '')),
      input_items: async (req, reply) =>
        write(reply, await responses.followUp(caller(req, reply), 'input_items', req.params.id, queryOf(req))),
    });
    const transcribe = (op: 'transcriptions' | 'translations') => ({
      bodyLimit: AUDIO_FORM_LIMIT,
      handler: async (req: ProxyRequest, reply: FastifyReply) =>
        write(reply, await media.transcribe(caller(req, reply), await readForm(req), op)),
    });
    registerProxyGroup(app, 'media', {
      images: async (req, reply) => write(reply, await media.images(caller(req, reply), req.body)),
      speech: async (req, reply) => write(reply, await media.speech(caller(req, reply), req.body)),
      transcriptions: transcribe('transcriptions'),
      translations: transcribe('translations'),
    });
  };
}
