// The one error type every layer throws for a failure the caller should see. Its status and both
// families' `type` come from the registry (codes.ts); the HTTP layer and the family codecs only
// choose the body shape.
import type { CallSignal } from '../ir/call-signal.ts';
import type { UpstreamErrorInfo } from '../ir/types.ts';
import { type ErrorCode, errorSpec, renderMessage } from './codes.ts';

export interface GatewayErrorOptions {
  /** A whole message; otherwise the registry template filled from `vars`. */
  message?: string;
  vars?: Record<string, string | number>;
  /** The request field at fault, as the caller wrote it. */
  param?: string | null;
  /** Only for codes whose status is the upstream's (`upstream_rejected`, `rate_limit_exceeded`). */
  status?: number;
  headers?: Record<string, string>;
  /** The wire `code` when it is not the registry code (an upstream's own code passed on). */
  wireCode?: string | null;
  /** Alpha `type` when an upstream's own type is passed on. */
  alphaType?: string;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | null;
  readonly headers: Record<string, string> | undefined;
  readonly wireCode: string | null;
  readonly alphaType: string;
  readonly betaType: string;

  constructor(code: ErrorCode, opts: GatewayErrorOptions = {}) {
    const spec = errorSpec(code);
    super(opts.message ?? renderMessage(spec.message, opts.vars));
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? spec.status;
    this.param = opts.param ?? null;
    this.headers = opts.headers;
    this.wireCode = opts.wireCode === undefined ? code : opts.wireCode;
    this.alphaType = opts.alphaType ?? spec.alpha;
    this.betaType = opts.status === undefined ? spec.beta : betaTypeForStatus(opts.status, spec.beta);
  }
}

/** Shorthand for a 400 naming the offending field: `<path>: <problem>`. */
export function invalid(path: string, problem: string, code: ErrorCode = 'invalid_request'): never {
  throw new GatewayError(code, { message: path ? `${path}: ${problem}` : problem, param: path || null });
}

/**
 * The codes the gateway itself puts on a failed attempt (UpstreamErrorInfo.code) instead of an
 * upstream's: a candidate that cannot serve, an answer the gateway refused. Any other code on an
 * attempt is an upstream's own and is passed on as `upstream_rejected` / `upstream_error`. A test
 * (test/families/error-registry.test.ts) checks that every code literal on an attempt failure in
 * src/ is listed here.
 */
export const OWN_OUTCOME_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'dimension_mismatch',
  'json_schema_validation_failed',
  'no_eligible_candidate',
  'no_embeddings_api',
  'provider_not_configured',
]);

function isOwnOutcomeCode(code: string): code is ErrorCode {
  return (OWN_OUTCOME_CODES as ReadonlySet<string>).has(code);
}

/**
 * What the caller sees for a failed upstream attempt: a 4xx keeps the upstream's status and words
 * (the caller's own key or request was refused), 429 keeps retry-after, a timeout is 504, anything
 * else (5xx, unreachable, malformed) is 502.
 */
export function fromUpstream(info: UpstreamErrorInfo): GatewayError {
  // Outcomes the gateway itself produced keep their registry entry (status included).
  if (info.code != null && isOwnOutcomeCode(info.code)) return new GatewayError(info.code, { message: info.message });
  if (info.kind === 'timeout') return new GatewayError('upstream_timeout', { message: info.message });
  if (info.status === 429) {
    return new GatewayError('rate_limit_exceeded', {
      message: info.message,
      wireCode: info.code ?? 'rate_limit_exceeded',
      headers: info.retryAfter ? { 'retry-after': info.retryAfter } : undefined,
    });
  }
  if (info.status >= 400 && info.status < 500) {
    return new GatewayError('upstream_rejected', {
      message: info.message,
      status: info.status,
      wireCode: info.code ?? null,
      param: info.param ?? null,
      alphaType: alphaTypeForStatus(info.status),
    });
  }
  if (info.kind === 'overloaded')
    return new GatewayError('upstream_overloaded', { message: info.message, wireCode: info.code ?? 'upstream_error' });
  return new GatewayError('upstream_error', { message: info.message, wireCode: info.code ?? 'upstream_error' });
}

/** Upstream 4xx statuses keep their status; the type follows the status like the vendor's own. */
function alphaTypeForStatus(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  return 'invalid_request_error';
}

/** The beta `type` for an upstream-status error. */
export function betaTypeForStatus(status: number, fallback: string): string {
  if (status === 401) return 'authentication_error';
  if (status === 402 || status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 529) return 'overloaded_error';
  return fallback;
}

/** Caller input quoted in an error message, cut so a huge value never comes back whole. */
export function echo(value: string, max = 80): string {
  return value.length <= max ? value : `${value.slice(0, max)}... (${value.length} characters)`;
}

/** The abort reason of calls cut short because the gateway is shutting down (not the caller leaving). */
export class ShutdownAbort extends Error {
  constructor() {
    super('the gateway is shutting down');
    this.name = 'ShutdownAbort';
  }
}

export function abortedByShutdown(signal: CallSignal): boolean {
  return signal.aborted && signal.reason instanceof ShutdownAbort;
}
