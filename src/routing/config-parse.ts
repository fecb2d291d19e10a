// Small validators shared by the strategy files: candidate references, timeouts, retry rules.
// Errors name the exact field so that a management API caller can fix the config.
import { resolveDirectModel } from '../providers/registry.ts';
import { isRecord } from '../util/json.ts';
import { type CandidateRef, ConfigError, type RetryRule } from './types.ts';

export { isRecord };

export function positiveInt(v: unknown, field: string): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0)
    throw new ConfigError(field, 'expected a positive integer');
  return v;
}

function priceOf(v: unknown, field: string): CandidateRef['price'] {
  if (v === undefined) return undefined;
  if (!isRecord(v) || typeof v.input !== 'number' || typeof v.output !== 'number') {
    throw new ConfigError(field, 'expected {input, output} in USD per 1M tokens');
  }
  return { input: v.input, output: v.output };
}

/** A candidate is a model string or `{model, provider_credential_id?, timeout_ms?, price?}`. */
export function parseCandidate(v: unknown, field: string): CandidateRef {
  const obj = typeof v === 'string' ? { model: v } : v;
  if (!isRecord(obj) || typeof obj.model !== 'string' || obj.model === '') {
    throw new ConfigError(field, 'expected a model name or an object with a "model" string');
  }
  if (obj.model.startsWith('@'))
    throw new ConfigError(`${field}.model`, 'a routing config cannot point at another config');
  const resolved = resolveDirectModel(obj.model);
  if (!resolved) {
    throw new ConfigError(
      `${field}.model`,
      `unknown model "${obj.model}"; use "<vendor>/<model>" or a known bare name`,
    );
  }
  const cred = obj.provider_credential_id ?? obj.providerCredentialId;
  if (cred !== undefined && typeof cred !== 'string') {
    throw new ConfigError(`${field}.provider_credential_id`, 'expected a string');
  }
  const ref: CandidateRef = { vendor: resolved.vendor, vendorAsSent: resolved.vendorAsSent, model: resolved.model };
  if (cred) ref.credentialId = cred;
  const timeoutMs = positiveInt(obj.timeout_ms ?? obj.timeoutMs, `${field}.timeout_ms`);
  if (timeoutMs !== undefined) ref.timeoutMs = timeoutMs;
  const price = priceOf(obj.price, `${field}.price`);
  if (price) ref.price = price;
  return ref;
}

export function parseCandidateList(v: unknown, field: string, min = 1): CandidateRef[] {
  if (!Array.isArray(v) || v.length < min)
    throw new ConfigError(field, `expected an array of at least ${min} model(s)`);
  return v.map((c, i) => parseCandidate(c, `${field}[${i}]`));
}

/** The candidate list under `models` or `attempts` (the two body forms). */
export function modelsOrAttempts(config: Record<string, unknown>, min = 1): CandidateRef[] {
  if (config.attempts !== undefined) return parseCandidateList(config.attempts, 'config.attempts', min);
  if (config.models !== undefined) return parseCandidateList(config.models, 'config.models', min);
  if (config.model !== undefined && min <= 1) return [parseCandidate(config.model, 'config.model')];
  throw new ConfigError('config.models', 'required: an array of models (or "attempts")');
}

export const DEFAULT_RETRY_ON = ['429', '5xx', 'timeout'];

/** `retry_on` values: `429`, `5xx`, `4xx`, `timeout`, or any specific status such as `503`. */
export function parseRetryOn(v: unknown, field = 'config.retry_on'): RetryRule {
  const list = v === undefined ? DEFAULT_RETRY_ON : v;
  if (!Array.isArray(list)) throw new ConfigError(field, 'expected an array such as ["429", "5xx", "timeout"]');
  const statuses = new Set<number>();
  const classes = new Set<'4xx' | '5xx'>();
  let timeout = false;
  list.forEach((raw, i) => {
    const s = String(raw).toLowerCase();
    if (s === 'timeout') timeout = true;
    else if (s === '4xx' || s === '5xx') classes.add(s);
    else if (/^[45]\d\d$/.test(s)) statuses.add(Number(s));
    else throw new ConfigError(`${field}[${i}]`, `unknown value "${s}"; use 429, 5xx, 4xx, timeout or a status code`);
  });
  return { statuses, classes, timeout };
}

export const NO_RETRY: RetryRule = { statuses: new Set(), classes: new Set(), timeout: false };

/** Failures that are never the request's fault: used where a strategy has no `retry_on`. */
export const RETRY_TRANSIENT: RetryRule = parseRetryOn(DEFAULT_RETRY_ON);

export function optionalString(v: unknown, field: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new ConfigError(field, 'expected a string');
  return v;
}
