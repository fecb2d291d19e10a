// The files API of the OpenAI wire (`openai`, and `azure-openai` at `{base}/openai/files?api-version=`):
// upload, list, get, delete and content. Each function makes one upstream call and hands back the
// upstream's status, headers and body unread, errors included: the caller decides whether to pass
// them on (the gateway forwards an upstream's refusal, e.g. an oversize file, verbatim) or to read
// them. Only a call that got no answer at all throws (UpstreamTransportError, 502 or 504).
//
// The calls go out on the transport's files lane (long deadlines): an upload's body is the list of
// already-received chunks framed as multipart with an exact Content-Length, and content is a long
// byte stream, neither of which fits the chat path's single-buffer bodies.
import { Readable } from 'node:stream';
import type {
  CallOptions,
  FilesAnswer,
  FilesApi,
  FilesTarget,
  FilesVendor,
  ListQuery,
  UploadRequest,
} from '../capabilities.ts';
import { sendStreamed } from '../http.ts';
import { fileHead, fileTail, formField, newBoundary } from '../multipart.ts';
import type { Credential, HttpMethod } from '../types.ts';
import { decodeOpenAIError } from './decode-error.ts';
import { AZURE_API_VERSION, authHeaders, baseUrl } from './vendors.ts';

export const FILES_VENDORS: readonly FilesVendor[] = ['openai', 'azure-openai'];

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
  method: HttpMethod,
  headers: Record<string, string>,
  body: Readable | null,
  opts: CallOptions,
): Promise<FilesAnswer> {
  const res = await sendStreamed({ lane: 'files', method, url, headers, body, signal: opts.signal });
  return { ...res, decodeError: (bodyText) => decodeOpenAIError(res.status, bodyText, res.headers) };
}

/** The multipart framing around the file's bytes: text fields and the file part's head, then the close. */
export function multipartFrame(req: UploadRequest, boundary: string): { head: Buffer; tail: Buffer } {
  const parts = [formField(boundary, 'purpose', req.purpose)];
  for (const [name, value] of req.fields ?? []) parts.push(formField(boundary, name, value));
  parts.push(fileHead(boundary, req.filename, req.contentType));
  return { head: Buffer.from(parts.join(''), 'utf8'), tail: Buffer.from(fileTail(boundary), 'utf8') };
}

/** POST /files as multipart/form-data with an exact Content-Length (vendors refuse chunked uploads). */
export function uploadFile(target: FilesTarget, req: UploadRequest, opts: CallOptions = {}): Promise<FilesAnswer> {
  const boundary = newBoundary();
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
export function listFiles(target: FilesTarget, q: ListQuery = {}, opts: CallOptions = {}): Promise<FilesAnswer> {
  const query = { purpose: q.purpose, limit: q.limit?.toString(), order: q.order, after: q.after };
  return send(filesUrl(target, '', query), 'GET', authHeaders(target.vendor, target.credential), null, opts);
}

/** GET /files/{id}: the file object (a batch's output and error files are found this way too). */
export function getFile(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<FilesAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}`);
  return send(url, 'GET', authHeaders(target.vendor, target.credential), null, opts);
}

/** DELETE /files/{id}. */
export function deleteFile(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<FilesAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}`);
  return send(url, 'DELETE', authHeaders(target.vendor, target.credential), null, opts);
}

/** GET /files/{id}/content: the body is the file's bytes as a stream, read as the caller reads it. */
export function fileContent(target: FilesTarget, fileId: string, opts: CallOptions = {}): Promise<FilesAnswer> {
  const url = filesUrl(target, `/${encodeURIComponent(fileId)}/content`);
  return send(url, 'GET', authHeaders(target.vendor, target.credential), null, opts);
}

/** The files capability of one OpenAI-wire vendor, as the registry hands it out. */
export function openaiFilesApi(vendor: FilesVendor): FilesApi {
  const at = (credential: Credential): FilesTarget => ({ vendor, credential });
  return {
    upload: (c, req, opts) => uploadFile(at(c), req, opts),
    list: (c, q, opts) => listFiles(at(c), q, opts),
    get: (c, id, opts) => getFile(at(c), id, opts),
    delete: (c, id, opts) => deleteFile(at(c), id, opts),
    content: (c, id, opts) => fileContent(at(c), id, opts),
  };
}
