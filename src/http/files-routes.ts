// /alpha/v1/files: the multipart reader and the writer of the files service's replies. The API-key
// gate (auth.ts) covers these paths like every other /alpha/ route.
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/gateway-error.ts';
import { type FilesCaller, type FilesReply, FilesService, type FormPart } from '../files/service.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { safeHeaders } from './header-value.ts';
import type { InFlight } from './proxy-routes.ts';
import { registerProxyGroup } from './route-table.ts';

/**
 * The gateway sets no size cap of its own on uploads (SPEC: an oversize file gets the upstream's
 * error); this only keeps fastify's default from being the cap. Multipart bodies are not parsed by
 * fastify, so nothing is held because of it.
 */
const UPLOAD_BODY_LIMIT = 1024 * 1024 * 1024;

function malformed(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new GatewayError('invalid_request', { message: `Malformed multipart/form-data body: ${detail}` });
}

/** A file part's bytes; a broken body shows as a 400, not as a fault of whoever was storing them. */
async function* fileBytes(file: AsyncIterable<Buffer>): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of file) yield chunk;
  } catch (err) {
    throw malformed(err);
  }
}

async function* formParts(req: FastifyRequest): AsyncGenerator<FormPart> {
  if (!req.isMultipart())
    throw new GatewayError('invalid_request', {
      message: "Expected a multipart/form-data body with 'file' and 'purpose'",
    });
  try {
    for await (const p of req.parts()) {
      if (p.type === 'file') {
        yield {
          kind: 'file',
          name: p.fieldname,
          filename: p.filename,
          contentType: p.mimetype,
          content: fileBytes(p.file),
        };
      } else {
        const value = typeof p.value === 'string' ? p.value : JSON.stringify(p.value);
        yield { kind: 'field', name: p.fieldname, value };
      }
    }
  } catch (err) {
    throw malformed(err);
  }
}

function write(reply: FastifyReply, out: FilesReply): FastifyReply {
  reply.code(out.status).headers(safeHeaders(out.headers));
  const body = out.body;
  if ('stream' in body) {
    // 'close' comes once for a finished, failed or abandoned response alike.
    reply.raw.once('close', () => out.done(reply.raw.writableFinished));
    return reply.send(body.stream);
  }
  // Recorded before the write, as the proxy routes do: the row is journaled before the caller can see the answer.
  out.done(true);
  return reply.send('json' in body ? JSON.stringify(body.json) : body.text);
}

export function filesRoutes(deps: PipelineDeps, inFlight: InFlight) {
  return async (app: FastifyInstance): Promise<void> => {
    // Encapsulated here: no other route reads multipart bodies. Parts stay streams (never buffered by
    // the plugin), and the file size cap is the service's: none.
    await app.register(multipart, { limits: { fileSize: Number.POSITIVE_INFINITY, fields: 100, parts: 200 } });
    const { stores, fileBlobs, config } = app.svc;
    const service = new FilesService({
      pipeline: deps,
      files: stores.files,
      blobs: fileBlobs,
      quotaBytes: config.fileQuotaBytes,
    });
    const caller = (req: FastifyRequest, reply: FastifyReply): FilesCaller => ({
      principal: req.principal,
      requestId: req.svcId,
      headers: req.headers,
      signal: inFlight.track(reply.raw),
    });

    registerProxyGroup(app, 'files', {
      upload: {
        bodyLimit: UPLOAD_BODY_LIMIT,
        handler: async (req, reply) => write(reply, await service.upload(caller(req, reply), formParts(req))),
      },
      list: async (req, reply) =>
        write(reply, await service.list(caller(req, reply), (req.query ?? {}) as Record<string, unknown>)),
      retrieve: async (req, reply) => write(reply, await service.retrieve(caller(req, reply), req.params.id)),
      delete: async (req, reply) => write(reply, await service.remove(caller(req, reply), req.params.id)),
      content: async (req, reply) => write(reply, await service.content(caller(req, reply), req.params.id)),
    });
  };
}
