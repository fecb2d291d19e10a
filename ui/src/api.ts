// The one way the dashboard talks to the gateway: the public management API under /manage/v1, with
// the signed-in key as a Bearer header (or the single sign-on session cookie), as any client would.
// Every failure becomes an ApiError carrying the API's own message, code and param, so pages can
// show it as sent.

export const API_BASE = '/manage/v1';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
    readonly param: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export type QueryValue = string | number | boolean | null | undefined;
export type Query = Record<string, QueryValue>;

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  signal?: AbortSignal;
  /** Another key than the session's (the sign-in check); its 401 does not end the session. */
  key?: string;
  /** Read the answer as a Blob (an NDJSON export) instead of JSON. */
  blob?: boolean;
}

let sessionKey: string | null = null;

/**
 * The CSRF token of a single sign-on session (the readable cookie set beside the HttpOnly session
 * cookie); the gateway refuses a write made with the session cookie unless it comes back as a header.
 */
export function csrfToken(): string | null {
  const m = /(?:^|;\s*)sy_csrf=([^;]+)/.exec(document.cookie);
  return m?.[1] ? decodeURIComponent(m[1]) : null;
}
let onUnauthorized: (() => void) | null = null;

export function setSessionKey(key: string | null): void {
  sessionKey = key;
}

/** Called when the session's key is refused (revoked, or the gateway's store was reset). */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

// Requests in flight, so that <main aria-busy> tells assistive technology (and the browser tests)
// when a page is still loading.
let inFlight = 0;
const busyListeners = new Set<(busy: boolean) => void>();

export function onBusyChange(fn: (busy: boolean) => void): () => void {
  busyListeners.add(fn);
  return () => busyListeners.delete(fn);
}

function track(delta: number): void {
  const was = inFlight > 0;
  inFlight += delta;
  if (was !== inFlight > 0) for (const fn of busyListeners) fn(inFlight > 0);
}

export function isBusy(): boolean {
  return inFlight > 0;
}

export function queryString(query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '') continue;
    params.set(k, String(v));
  }
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

interface ErrorBody {
  error?: { message?: string; code?: string | null; param?: string | null };
}

async function failure(res: Response): Promise<ApiError> {
  const text = await res.text().catch(() => '');
  let body: ErrorBody | null = null;
  try {
    body = JSON.parse(text) as ErrorBody;
  } catch {
    body = null;
  }
  const e = body?.error;
  const message = e?.message ?? (text.trim() || `${res.status} ${res.statusText}`);
  return new ApiError(res.status, message, e?.code ?? null, e?.param ?? null);
}

export async function api<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const key = opts.key ?? sessionKey;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  else if (method !== 'GET') {
    const csrf = csrfToken();
    if (csrf !== null) headers['x-csrf-token'] = csrf;
  }
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  track(1);
  try {
    let res: Response;
    try {
      res = await fetch(`${API_BASE}${path}${queryString(opts.query)}`, {
        method,
        headers,
        body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
        signal: opts.signal,
        // A key goes in the header; without one the single sign-on cookie is the credential.
        credentials: key ? 'omit' : 'same-origin',
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new ApiError(0, 'Could not reach the gateway: check that it is running and the network is up.');
    }
    if (!res.ok) {
      const err = await failure(res);
      if (res.status === 401 && opts.key === undefined) onUnauthorized?.();
      throw err;
    }
    if (res.status === 204) return undefined as T;
    if (opts.blob) return (await res.blob()) as T;
    return (await res.json()) as T;
  } finally {
    track(-1);
  }
}

export const get = <T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> =>
  api<T>('GET', path, { query, signal });
export const post = <T>(path: string, body: unknown = {}): Promise<T> => api<T>('POST', path, { body });
export const patch = <T>(path: string, body: unknown): Promise<T> => api<T>('PATCH', path, { body });
export const del = <T>(path: string, query?: Query): Promise<T> => api<T>('DELETE', path, { query });

export function isAbort(err: unknown): boolean {
  return err instanceof DOMException && err.name === 'AbortError';
}

export const enc = encodeURIComponent;

/** The sign-in routes of single sign-on, outside the management API: they set and end the session cookie. */
export const SSO_BASE = '/sso';

/** A JSON read of a sign-in route; null when it fails (single sign-on then reads as off). */
export async function ssoGet<T>(path: string): Promise<T | null> {
  try {
    const res = await fetch(`${SSO_BASE}${path}`, { credentials: 'omit' });
    return res.ok ? ((await res.json()) as T) : null;
  } catch {
    return null;
  }
}

/** A write to a sign-in route with the session cookie and its CSRF token; failures are ignored (the session is forgotten locally anyway). */
export async function ssoPost(path: string, token: string | null): Promise<void> {
  await fetch(`${SSO_BASE}${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: token === null ? {} : { 'x-csrf-token': token },
  }).catch(() => undefined);
}
