// What a vendor can do besides chat and embeddings, as interfaces the registry hands out: files,
// batches, the Responses API passed through, and media (images, audio). The features (files/,
// batches/, responses/, media/) program against these and never against a vendor folder, so a vendor
// gains a capability in its own folder plus one registry line. Unlike the chat adapters these do
// I/O, through the transport's `sendStreamed`, because their answers are forwarded, piped or
// streamed as they came rather than decoded: every method returns the upstream's answer unread,
// refusals included, and only a call that got no answer throws (UpstreamTransportError).
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { CallSignal } from '../ir/call-signal.ts';
import type { UpstreamErrorInfo, Usage } from '../ir/types.ts';
import type { Credential, HttpMethod } from './types.ts';

/** A body not yet read: `text()` or `json()` it, iterate or pipe it, or `dump()` it. */
export type UnreadBody = Readable & {
  text(): Promise<string>;
  json(): Promise<unknown>;
  dump(): Promise<void>;
};

/** An upstream's answer, status and headers read, body not. */
export interface UpstreamAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: UnreadBody;
}

export interface CallOptions {
  signal?: CallSignal;
}

/** The vendors with an OpenAI-wire files API the gateway forwards to. */
export type FilesVendor = 'openai' | 'azure-openai';

export interface FilesTarget {
  vendor: FilesVendor;
  /** The stored credential's base URL with its key, or with the caller's BYOK key in its place. */
  credential: Credential;
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

/** A files answer that can also say what its refusal means, so a forwarder needs no vendor name. */
export interface FilesAnswer extends UpstreamAnswer {
  /** The normalized error of this answer, given its body text (meaningful for a status >= 400). */
  decodeError(bodyText: string): UpstreamErrorInfo;
}

/** One vendor's files API. */
export interface FilesApi {
  /** multipart/form-data with an exact Content-Length. */
  upload(credential: Credential, req: UploadRequest, opts?: CallOptions): Promise<FilesAnswer>;
  list(credential: Credential, q?: ListQuery, opts?: CallOptions): Promise<FilesAnswer>;
  /** The file object (a batch's output and error files are found this way too). */
  get(credential: Credential, fileId: string, opts?: CallOptions): Promise<FilesAnswer>;
  delete(credential: Credential, fileId: string, opts?: CallOptions): Promise<FilesAnswer>;
  /** The file's bytes as a stream, read as the caller reads it. */
  content(credential: Credential, fileId: string, opts?: CallOptions): Promise<FilesAnswer>;
}

export interface BatchCallOptions {
  /** The API version the caller asked for (Anthropic's `anthropic-version`); the default otherwise. */
  version?: string;
}

/** A batch API the vendor runs: the body of `create` is the vendor's own. */
export interface BatchesApi {
  create(credential: Credential, body: unknown, opts?: BatchCallOptions): Promise<UpstreamAnswer>;
  get(credential: Credential, batchId: string, opts?: BatchCallOptions): Promise<UpstreamAnswer>;
  cancel(credential: Credential, batchId: string, opts?: BatchCallOptions): Promise<UpstreamAnswer>;
  /** The usage of one result's answer, in IR terms; undefined when it reports none. */
  usage(raw: unknown): Usage | undefined;
}

/** A batch API whose requests travel inline and whose results the vendor streams (Anthropic's). */
export interface InlineBatchesApi extends BatchesApi {
  delete(credential: Credential, batchId: string, opts?: BatchCallOptions): Promise<UpstreamAnswer>;
  /** The JSONL results: at `resultsUrl` when the vendor gave one, else its documented path. */
  results(
    credential: Credential,
    batchId: string,
    resultsUrl: string | null,
    opts?: BatchCallOptions,
  ): Promise<UpstreamAnswer>;
  usage(raw: unknown): Usage;
}

export interface PassthroughRequest {
  method: HttpMethod;
  /** Relative to the API root: `/responses`, `/responses/{id}/cancel`... */
  path: string;
  /** Sent as is; a content type goes in `headers`. */
  body?: string | Buffer | Uint8Array | null;
  headers?: Record<string, string>;
  signal?: CallSignal;
}

/** The Responses API, passed through: the caller's body out, the upstream's answer back unread. */
export interface ResponsesApi {
  send(credential: Credential, req: PassthroughRequest): Promise<UpstreamAnswer>;
  /** The usage of a response object, in IR terms. */
  usage(raw: unknown): Usage | undefined;
}

export type MediaOperation = '/images/generations' | '/audio/speech' | '/audio/transcriptions' | '/audio/translations';

/** Images and audio, passed through; the vendor decides how a model is addressed (a deployment on Azure). */
export interface MediaApi {
  send(
    credential: Credential,
    model: string,
    operation: MediaOperation,
    body: string | Buffer,
    contentType: string,
    signal?: CallSignal,
  ): Promise<UpstreamAnswer>;
}
