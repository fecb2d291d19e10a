// The five /alpha/v1/files endpoints. Every file, gateway-held or upstream, has a row in the
// gateway's file store, which says where it lives and whose it is: list answers from those rows, and
// get, delete and content go to the place the row names. A key scoped to a project sees that
// project's files only; anything else is 404, as an unknown id is. Each call leaves one log row.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { fromUpstream, GatewayError } from '../errors/gateway-error.ts';
import type { CallSignal } from '../ir/call-signal.ts';
import type { Principal } from '../live/principals.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import { type EndpointCall, endpointCall, recordEndpointCall } from '../pipeline/endpoint-record.ts';
import type { UpstreamAnswer } from '../providers/capabilities.ts';
import { UpstreamTransportError } from '../providers/http.ts';
import { filesApi } from '../providers/registry.ts';
import { type FileBlobs, newFileId } from '../store/file-blobs.ts';
import type { FileRecord, FileStore } from '../store/files.ts';
import { isRecord, parseBoundedJson } from '../util/json.ts';
import { fileObject, listPage, parseListQuery } from './objects.ts';
import { GATEWAY_PROVIDER as GATEWAY, placeUpload, reachFile, type UpstreamPlace } from './placement.ts';
import {
  asGatewayError,
  errorReply,
  type FilesReply,
  jsonReply,
  makeReply,
  methodOf,
  type Note,
  passOn,
  tracedReply,
} from './replies.ts';
import { type FormPart, type ReceivedUpload, receiveUpload } from './upload.ts';

export type { FilesReply, ReplyBody } from './replies.ts';
export type { FormPart } from './upload.ts';

export interface FilesDeps {
  pipeline: PipelineDeps;
  files: FileStore;
  blobs: FileBlobs;
  /** Bytes of gateway-held files one project may keep (SWITCHYARD_FILE_QUOTA_MB); none when unset. */
  quotaBytes?: number;
}

/** Who is calling, as the HTTP layer knows it. */
export interface FilesCaller {
  principal: Principal;
  requestId: string;
  headers: IncomingHttpHeaders;
  /** Aborted when the caller goes away. */
  signal: CallSignal;
}

const firstHeader = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

function notFound(id: string): GatewayError {
  // OpenAI's wording and type for an unknown file, with our registry code.
  return new GatewayError('not_found', {
    message: `No such File object: ${id.slice(0, 100)}`,
    param: 'id',
    alphaType: 'invalid_request_error',
  });
}

/** The upstream's file object, as far as the gateway's record needs it. */
function upstreamRecord(body: unknown, base: Omit<FileRecord, 'id' | 'bytes' | 'createdAt' | 'status' | 'expiresAt'>) {
  if (!isRecord(body) || typeof body.id !== 'string' || body.id === '') return undefined;
  const seconds = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v * 1000 : null);
  const record: FileRecord = {
    ...base,
    id: body.id,
    bytes: typeof body.bytes === 'number' ? body.bytes : 0,
    filename: typeof body.filename === 'string' ? body.filename : base.filename,
    purpose: typeof body.purpose === 'string' ? body.purpose : base.purpose,
    status: typeof body.status === 'string' ? body.status : 'processed',
    // The gateway's own clock, not the upstream's whole seconds: list order then follows upload order
    // across both places (a gateway-held file made the same second sorts where it belongs).
    createdAt: Date.now(),
    expiresAt: seconds(body.expires_at),
  };
  return record;
}

export class FilesService {
  readonly #deps: FilesDeps;

  constructor(deps: FilesDeps) {
    this.#deps = deps;
  }

  get #pipeline(): PipelineDeps {
    return this.#deps.pipeline;
  }

  /** Runs one endpoint call: a refusal becomes its error answer; a fault is recorded, then rethrown. */
  async #run(
    c: FilesCaller,
    requestType: string,
    note: Note,
    body: (call: EndpointCall) => Promise<FilesReply>,
  ): Promise<FilesReply> {
    const call = endpointCall(requestType, c.principal, c.requestId, c.headers);
    // With tracing on, the call's server span (the pipeline's hooks do not see these calls).
    const span = this.#pipeline.hooks.traceLinks?.openCall(
      requestType,
      firstHeader(c.headers.traceparent),
      firstHeader(c.headers.tracestate),
    );
    try {
      const reply = await body(call);
      return span === undefined ? reply : tracedReply(reply, span, requestType, c.requestId);
    } catch (err) {
      const known =
        err instanceof UpstreamTransportError && !c.signal.aborted
          ? fromUpstream(err.info)
          : asGatewayError(err, c.signal);
      if (known !== undefined) {
        const reply = errorReply(this.#pipeline, call, known, note);
        return span === undefined ? reply : tracedReply(reply, span, requestType, c.requestId);
      }
      recordEndpointCall(this.#pipeline, call, { ...note, status: 500, error: { message: 'internal error' } });
      const attrs = { 'http.request.method': methodOf(requestType), 'http.response.status_code': 500 };
      span?.end({ ...attrs, 'switchyard.request_id': c.requestId }, '500');
      throw err;
    }
  }

  /** A live file the caller may see; 404 otherwise (another project's file looks unknown). */
  async #find(principal: Principal, id: string): Promise<FileRecord> {
    const f = await this.#deps.files.get(principal.orgId, id);
    if (f === undefined || (principal.projectId !== null && f.projectId !== principal.projectId)) throw notFound(id);
    return f;
  }

  upload(c: FilesCaller, parts: AsyncIterable<FormPart>): Promise<FilesReply> {
    const note: Note = {};
    return this.#run(c, 'file_upload', note, async (call) => {
      const place = placeUpload(this.#pipeline.live, c.principal.orgId, c.headers);
      if (place.location === 'upstream') return this.#uploadUpstream(c, call, place, parts, note);
      const id = newFileId();
      const { blobs, files } = this.#deps;
      let wrote = false;
      let record: FileRecord;
      const quota = this.#deps.quotaBytes ?? Number.POSITIVE_INFINITY;
      const held = () => files.heldBytes(c.principal.orgId, c.principal.projectId);
      try {
        const room = quota - (await held());
        const up = await receiveUpload(parts, (file) => {
          wrote = true;
          return blobs.write(id, withinQuota(file.content, room, quota));
        });
        note.requestBody = describe(up);
        // Uploads of the project that ran meanwhile count too; the later one is refused.
        if ((await held()) + up.bytes > quota) throw quotaExceeded(quota);
        record = {
          id,
          orgId: c.principal.orgId,
          projectId: c.principal.projectId,
          purpose: up.purpose,
          filename: up.filename,
          bytes: up.bytes,
          contentType: up.contentType,
          location: 'gateway',
          storage: blobs.storage,
          credentialId: null,
          vendor: null,
          origin: 'upload',
          status: 'processed',
          createdAt: Date.now(),
          expiresAt: null,
        };
        // The content is stored before its row: a crash in between leaves an orphan blob, never a row without content.
        await files.insert(record);
      } catch (err) {
        if (wrote) await blobs.remove(id).catch(() => {});
        throw err;
      }
      return jsonReply(this.#pipeline, call, 200, fileObject(record), note, { 'x-svc-provider': GATEWAY });
    });
  }

  async #uploadUpstream(
    c: FilesCaller,
    call: EndpointCall,
    place: UpstreamPlace,
    parts: AsyncIterable<FormPart>,
    note: Note,
  ): Promise<FilesReply> {
    note.vendor = place.vendor;
    note.credentialId = place.credentialId;
    // The upstream wants a Content-Length, so the file is held once, as the chunks it arrived in.
    const chunks: Uint8Array[] = [];
    const up = await receiveUpload(parts, async (file) => {
      let bytes = 0;
      for await (const chunk of file.content) {
        chunks.push(chunk);
        bytes += chunk.byteLength;
      }
      return bytes;
    });
    note.requestBody = describe(up);
    const res = await filesApi(place.vendor).upload(place.target.credential, { ...up, chunks }, { signal: c.signal });
    const headers = { 'x-svc-provider': place.vendor };
    const reply = await passOn(this.#pipeline, call, res, note, headers);
    if (res.status >= 300) return reply;
    const record = upstreamRecord(parseText(reply), {
      orgId: c.principal.orgId,
      projectId: c.principal.projectId,
      purpose: up.purpose,
      filename: up.filename,
      contentType: up.contentType,
      location: 'upstream',
      storage: null,
      credentialId: place.credentialId,
      vendor: place.vendor,
      origin: 'upload',
    });
    if (record === undefined)
      throw new GatewayError('upstream_error', { message: `${place.vendor} answered the upload without a file id` });
    await this.#deps.files.insert(record);
    return reply;
  }

  list(c: FilesCaller, query: Record<string, unknown>): Promise<FilesReply> {
    const note: Note = { requestBody: query };
    return this.#run(c, 'file_list', note, async (call) => {
      const q = parseListQuery(query, c.principal.projectId);
      const rows = await this.#deps.files.list(c.principal.orgId, { ...q, limit: q.limit + 1 });
      const page = listPage(rows, q.limit);
      const summary = { object: 'list', count: page.data.length, first_id: page.first_id, last_id: page.last_id };
      // The row keeps what the page was, not the page: it can be ten thousand file objects.
      return makeReply(
        this.#pipeline,
        call,
        200,
        { 'content-type': 'application/json; charset=utf-8' },
        { json: page },
        {
          ...note,
          responseBody: { ...summary, has_more: page.has_more },
        },
      );
    });
  }

  retrieve(c: FilesCaller, id: string): Promise<FilesReply> {
    const note: Note = { requestBody: { file_id: id } };
    return this.#run(c, 'file_retrieve', note, async (call) => {
      const f = await this.#find(c.principal, id);
      if (f.location === 'gateway')
        return jsonReply(this.#pipeline, call, 200, fileObject(f), note, { 'x-svc-provider': GATEWAY });
      const place = this.#reach(f, c, note);
      const res = await filesApi(place.vendor).get(place.target.credential, f.id, { signal: c.signal });
      return passOn(this.#pipeline, call, res, note, { 'x-svc-provider': place.vendor });
    });
  }

  remove(c: FilesCaller, id: string): Promise<FilesReply> {
    const note: Note = { requestBody: { file_id: id } };
    return this.#run(c, 'file_delete', note, async (call) => {
      const f = await this.#find(c.principal, id);
      const { files, blobs } = this.#deps;
      if (f.location === 'gateway') {
        // The row goes first: once it is gone nobody reaches the content, whatever happens to it.
        if (!(await files.markDeleted(f.orgId, f.id, Date.now()))) throw notFound(id);
        await blobs.remove(f.id);
        const body = { id: f.id, object: 'file', deleted: true };
        return jsonReply(this.#pipeline, call, 200, body, note, { 'x-svc-provider': GATEWAY });
      }
      const place = this.#reach(f, c, note);
      const res = await filesApi(place.vendor).delete(place.target.credential, f.id, { signal: c.signal });
      // Gone upstream either way: the record follows.
      if (res.status < 300 || res.status === 404) await files.markDeleted(f.orgId, f.id, Date.now());
      return passOn(this.#pipeline, call, res, note, { 'x-svc-provider': place.vendor });
    });
  }

  content(c: FilesCaller, id: string): Promise<FilesReply> {
    const note: Note = { requestBody: { file_id: id } };
    return this.#run(c, 'file_download', note, async (call) => {
      const f = await this.#find(c.principal, id);
      if (f.location === 'gateway') {
        const stream = await started(this.#deps.blobs.open(f.id), f);
        const headers = {
          'content-type': f.contentType,
          'content-length': String(f.bytes),
          'content-disposition': attachment(f.filename),
          'x-content-type-options': 'nosniff',
          'x-svc-provider': GATEWAY,
        };
        note.responseBody = { bytes: f.bytes };
        return makeReply(this.#pipeline, call, 200, headers, { stream }, note);
      }
      const place = this.#reach(f, c, note);
      const res = await filesApi(place.vendor).content(place.target.credential, f.id, { signal: c.signal });
      if (res.status >= 300) return passOn(this.#pipeline, call, res, note, { 'x-svc-provider': place.vendor });
      return makeReply(
        this.#pipeline,
        call,
        res.status,
        streamHeaders(res, f, place.vendor),
        { stream: res.body },
        note,
      );
    });
  }

  #reach(f: FileRecord, c: FilesCaller, note: Note): UpstreamPlace {
    const place = reachFile(this.#pipeline.live, f, c.headers);
    note.vendor = place.vendor;
    note.credentialId = place.credentialId;
    return place;
  }
}

function quotaExceeded(quota: number): GatewayError {
  return new GatewayError('file_quota_exceeded', { vars: { limit: Math.floor(quota / (1024 * 1024)) }, param: 'file' });
}

/** A file's bytes, refused as soon as they pass what the project's quota has room for. */
async function* withinQuota(content: AsyncIterable<Uint8Array>, room: number, quota: number) {
  if (room <= 0) throw quotaExceeded(quota);
  let bytes = 0;
  for await (const chunk of content) {
    bytes += chunk.byteLength;
    if (bytes > room) throw quotaExceeded(quota);
    yield chunk;
  }
}

function describe(up: ReceivedUpload): { purpose: string; filename: string; bytes: number } {
  return { purpose: up.purpose, filename: up.filename, bytes: up.bytes };
}

function parseText(reply: FilesReply): unknown {
  if (!('text' in reply.body)) return undefined;
  const parsed = parseBoundedJson(reply.body.text);
  return parsed.ok ? parsed.value : undefined;
}

function attachment(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

function streamHeaders(res: UpstreamAnswer, f: FileRecord, vendor: string): Record<string, string> {
  const out: Record<string, string> = { 'x-svc-provider': vendor, 'x-content-type-options': 'nosniff' };
  for (const name of ['content-type', 'content-length', 'content-disposition']) {
    const v = res.headers[name];
    if (typeof v === 'string') out[name] = v;
  }
  out['content-type'] ??= 'application/octet-stream';
  out['content-disposition'] ??= attachment(f.filename);
  return out;
}

/**
 * The content stream once its first piece (or its end) is in: a blob that cannot be read fails here,
 * while the answer can still be an error, instead of after a 200 went out. It ends right after the
 * file's last byte instead of after one more read finds the end: a caller holding all the bytes
 * Content-Length announced counts the answer as done, and the connection should be idle by then.
 */
async function started(source: Readable, f: FileRecord): Promise<Readable> {
  const it = source[Symbol.asyncIterator]();
  let first: IteratorResult<Buffer>;
  try {
    first = await it.next();
  } catch (err) {
    source.destroy();
    throw new Error(`the content of file ${f.id} cannot be read`, { cause: err });
  }
  async function* rest(): AsyncGenerator<Buffer> {
    let sent = 0;
    try {
      for (let r = first; !r.done; r = await it.next()) {
        yield r.value;
        sent += r.value.length;
        if (sent >= f.bytes) return;
      }
    } finally {
      // Also when a caller who hung up ends this early: the file handle or query goes with it.
      source.destroy();
    }
  }
  return Readable.from(rest(), { objectMode: false });
}
