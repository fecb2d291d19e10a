// The files API of the OpenAI wire (`openai`, and `azure-openai` at `{base}/openai/files?api-version=`):
// upload, list, get, delete and content. Each function makes one upstream call and hands back the
// upstream's status, headers and body unread, errors included: the caller decides whether to pass
// them on (the gateway forwards an upstream's refusal, e.g. an oversize file, verbatim) or to read
// them. Only a call that got no answer at all throws (UpstreamTransportError, 502 or 504).
//
// These calls do I/O here, unlike the chat adapters: an upload's body is a list of already-received
// chunks sent with an exact Content-Length, and content is a long byte stream, neither of which fits
// the executor's single-buffer bodies. They get their own pool with long deadlines for the same reason.
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher, request } from 'undici';
import { transportError, UpstreamTransportError } from '../http.ts';
import type { Credential } from '../types.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

/** The vendors with an OpenAI-wire files API the gateway forwards to. */
export type FilesVendor = 'openai' | 'azure-openai';

export const FILES_VENDORS: readonly FilesVendor[] = ['openai', 'azure-openai'];

export interface FilesTarget {
  vendor: FilesVendor;
  /** The stored credential's base URL with its key, or with the caller's BYOK key in its place. */
  credential: Credential;
}

/** A response body not yet read: `text()` or `json()` it, iterate or pipe it, or `dump()` it. */
export type UpstreamBody = Dispatcher.ResponseData['body'];

export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: UpstreamBody;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface UploadRequest {
  purpose: string;
  filename: string;
  /** The file part's own content type, as the caller sent it. */
  contentType: string;
  /** The file's bytes in the pieces they arrived in; sent as they are, never joined into one copy. */
  chunks: readonly Uint8Array[];
  /** Total length of `chunks`. */
  bytes: number;
  /** Other form fields to pass on (e.g. `expires_after[seconds]`), in order. */
  fields?: ReadonlyArray<readonly [string, string]>;
}

export interface ListQuery {
  purpose?: string;
  limit?: number;
  order?: 'asc' | 'desc';
  after?: string;
}

const agent = new Agent({
  connections: 64,
  keepAliveTimeout: 30_000,
  // Large uploads are answered only once the upstream has them whole; downloads may pause a while.
  headersTimeout: 600_000,
  bodyTimeout: 600_000,
});

/** `{base}/files[/...]` (Azure: `{base}/openai/files[/...]?api-version=`), with a query string. */
export function filesUrl(target: FilesTarget, path = '', query: Record<string, string | undefined> = {}): string {
  const base = baseUrl(target.vendor, target.credential);
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  if (target.vendor === 'azure-openai') params.set('api-version', AZURE_API_VERSION);
  const qs = params.toString();
  const root = target.vendor === 'azure-openai' ? `${base}/openai/files` : `${base}/files`;
  return `${root}${path}${qs === '' ? '' : `?${qs}`}`;
}

async function send(
  url: string,
  method: Dispatcher.HttpMethod,
  headers: Record<string, string>,
  body: Dispatcher.DispatchOptions['body'],
  opts: CallOptions,
): Promise<UpstreamAnswer> {
  try {
    const res = await request(url, { dispatcher: agent, method, headers, body, signal: opts.signal });
    return { status: res.statusCode, headers: res.headers, body: res.body };
  } catch (err) {
    throw new UpstreamTransportError(transportError(err, opts.signal));
  }
}

/** What a header parameter may not contain unescaped (the WHATWG FormData encoding, as browsers send it). */
export function quoted(value: string): string {
  return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** The multipart framing around the file's bytes: text fields and the file part's head, then the close. */
export function multipartFrame(req: UploadRequest, boundary: string): { head: Buffer; tail: Buffer } {
  const parts: string[] = [];
  const field = (name: string, value: string) =>
    parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`);
  field('purpose', req.purpose);
  for (const [name, value] of req.fields ?? []) field(name, value);
  parts.push(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quoted(req.filename)}"\r\n` +
      `Content-Type: ${req.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
  );
  return { head: Buffer.from(parts.join(''), 'utf8'), tail: Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8') };
}

/** POST /files as multipart/form-data with an exact Content-Length (vendors refuse chunked uploads). */
export function uploadFile(target: FilesTarget, req: UploadRequest, opts: CallOptions = {}): Promise<UpstreamAnswer> {
  const boundary = `----switchyard${randomBytes(12).toString('hex')}`;
  const { head, tail } = multipartFrame(req, boundary);
  async function* body(): AsyncGenerator<Uint8Array> {
    yield head;
    for (const chunk of req.chunks) yield chunk;
    yield tail;
  }
  const headers = {
    ...authHeaders(target.vendor, target.credential),
    'content-type': `multipart/form-data; boundary=${boundary}`,
    'content-length': String(head.length + req.bytes + tail.length),
  };
  return send(filesUrl(target), 'POST', headers, Readable.from(body(), { objectMode: false }), opts);
}

/** GET /files with the caller's filters and cursor. */
export function listFiles(target: FilesTarget, q: ListQuery = {}, opts: CallOptions = {}): Promise<UpstreamAnswer> {
  const query = { purpose: q.purpose, limit: q.limit?.toString(), order: q.order, after: q.after };
  return send(filesUrl(target, '', query), 'GET', authHeaders(target.vendor, target.credential), null, opts);
}

/** GET /files/{id}: the file object (a batch's output and error files are found this way too). */
export function getFile(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<UpstreamAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}`);
  return send(url, 'GET', authHeaders(target.vendor, target.credential), null, opts);
}

/** DELETE /files/{id}. */
export function deleteFile(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<UpstreamAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}`);
  return send(url, 'DELETE', authHeaders(target.vendor, target.credential), null, opts);
}

/** GET /files/{id}/content: the body is the file's bytes as a stream, read as the caller reads it. */
export function fileContent(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<UpstreamAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}/content`);
  return send(url, 'GET', authHeaders(target.vendor, target.credential), null, opts);
}
