// The guardrail policy as stored and served, shared by the engine (this folder) and the management
// surface (store, routes, MCP tools). Validation lives here too so the API and the engine agree on
// what a well-formed check is: the engine may assume every invariant checked below.

export const GUARDRAIL_SCOPE_TYPES = ['org', 'project', 'api_key', 'routing_config'] as const;
export type GuardrailScopeType = (typeof GUARDRAIL_SCOPE_TYPES)[number];

export const GUARDRAIL_MODES = ['enforce', 'shadow'] as const;
export type GuardrailMode = (typeof GUARDRAIL_MODES)[number];

export const GUARDRAIL_STAGES = ['input', 'output', 'both'] as const;
export type GuardrailStage = (typeof GUARDRAIL_STAGES)[number];

export const GUARDRAIL_ACTIONS = ['block', 'mask', 'flag'] as const;
export type GuardrailAction = (typeof GUARDRAIL_ACTIONS)[number];

export const PII_ENTITIES = ['email', 'phone', 'credit_card', 'iban', 'us_ssn', 'ip_address', 'secret'] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

export const GUARDRAIL_CHECK_TYPES = [
  'pii',
  'regex',
  'keywords',
  'max_input_tokens',
  'max_messages',
  'webhook',
] as const;
export type GuardrailCheckType = (typeof GUARDRAIL_CHECK_TYPES)[number];

/** Flags a regex check may carry; `g`/`y` are the engine's business (it always scans globally). */
export const REGEX_FLAGS = 'imsu';

/** Limits that keep one policy from making every call slow. */
export const GUARDRAIL_LIMITS = {
  nameLength: 200,
  checks: 20,
  patterns: 20,
  patternLength: 1000,
  words: 500,
  wordLength: 200,
  /** Upper bound of a regex check's `max_match`: the stream hold-back never exceeds it. */
  maxMatch: 4096,
  webhookTimeoutMs: 10_000,
} as const;

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 500;

export interface GuardrailScope {
  type: GuardrailScopeType;
  /** Required for every type but `org` (whose id is the policy's own org). */
  id?: string;
}

interface CheckBase {
  stage: GuardrailStage;
  action: GuardrailAction;
}

export interface PiiCheck extends CheckBase {
  type: 'pii';
  entities: PiiEntity[];
  /** With action `mask` on the input: put the original values back into the caller's answer. */
  restore?: boolean;
}

export interface RegexCheck extends CheckBase {
  type: 'regex';
  patterns: string[];
  /** Any of `i`, `m`, `s`, `u`. */
  flags?: string;
  /**
   * The longest text (in UTF-16 code units) one match may span. Required when the check looks at the
   * output: a stream is held back by this many characters, and a longer match may be missed there.
   */
  max_match?: number;
}

export interface KeywordsCheck extends CheckBase {
  type: 'keywords';
  /** Matched whole-word and case-insensitively; a "word" may contain spaces ("top secret"). */
  words: string[];
}

export interface MaxInputTokensCheck extends CheckBase {
  type: 'max_input_tokens';
  limit: number;
}

export interface MaxMessagesCheck extends CheckBase {
  type: 'max_messages';
  limit: number;
}

export interface WebhookCheck extends CheckBase {
  type: 'webhook';
  url: string;
  timeout_ms?: number;
  /** What a hook that times out, fails or answers garbage counts as. Default `allow`. */
  on_error?: 'allow' | 'block';
}

export type GuardrailCheck =
  | PiiCheck
  | RegexCheck
  | KeywordsCheck
  | MaxInputTokensCheck
  | MaxMessagesCheck
  | WebhookCheck;

export interface GuardrailPolicy {
  id: string;
  org_id: string;
  name: string;
  scope: GuardrailScope;
  mode: GuardrailMode;
  checks: GuardrailCheck[];
  created_at: string;
  updated_at: string;
}

/** What a caller may send to create or replace a policy. */
export interface GuardrailPolicyInput {
  name: string;
  scope: GuardrailScope;
  mode: GuardrailMode;
  checks: GuardrailCheck[];
}

// ---- webhook checks: the engine decides what an answer means; part 2's client does the HTTP ----

/** Body POSTed to the customer's hook. */
export interface GuardrailWebhookPayload {
  stage: 'input' | 'output';
  request_id: string;
  project_id: string;
  model: string;
  /** Input: every scanned text of the request joined by blank lines. Output: the answer text. */
  text: string;
  /** Input only: the scanned texts one by one, so the hook can see who said what. */
  messages?: Array<{ role: 'system' | 'user' | 'assistant' | 'tool'; text: string }>;
}

/**
 * The hook's answer. `mask` with a `replacement` replaces the answer text (output) or the text of the
 * last user message (input); `mask` without one is treated as `block`.
 */
export interface GuardrailWebhookAnswer {
  action: 'allow' | 'block' | 'mask';
  reason?: string;
  replacement?: string;
}

/**
 * Implemented by the management side (signing, SSRF policy, `timeout_ms`). It rejects (throws) on
 * timeout, network error, non-2xx or a malformed answer; the engine then applies the check's
 * `on_error`, so that rule lives in one place.
 */
export type GuardrailWebhookCaller = (
  payload: GuardrailWebhookPayload,
  check: WebhookCheck,
) => Promise<GuardrailWebhookAnswer>;

// ---- validation ----

export interface GuardrailFieldError {
  /** Dotted path into the body: `checks[2].patterns[0]`. */
  field: string;
  message: string;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isPosInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v > 0;
const oneOf = <T extends string>(list: readonly T[], v: unknown): v is T =>
  typeof v === 'string' && (list as readonly string[]).includes(v);

const CHECK_FIELDS: Record<GuardrailCheckType, readonly string[]> = {
  pii: ['entities', 'restore'],
  regex: ['patterns', 'flags', 'max_match'],
  keywords: ['words'],
  max_input_tokens: ['limit'],
  max_messages: ['limit'],
  webhook: ['url', 'timeout_ms', 'on_error'],
};

function stringList(
  v: unknown,
  field: string,
  max: number,
  maxLen: number,
  errors: GuardrailFieldError[],
): string[] | null {
  if (!Array.isArray(v) || v.length === 0) {
    errors.push({ field, message: `'${field}' must be a non-empty array of strings` });
    return null;
  }
  if (v.length > max) errors.push({ field, message: `'${field}' may hold at most ${max} entries` });
  v.forEach((s, i) => {
    if (typeof s !== 'string' || s.trim() === '')
      errors.push({ field: `${field}[${i}]`, message: `'${field}[${i}]' must be a non-empty string` });
    else if (s.length > maxLen)
      errors.push({ field: `${field}[${i}]`, message: `'${field}[${i}]' must be at most ${maxLen} characters` });
  });
  return v as string[];
}

function validateCheck(c: unknown, at: string, errors: GuardrailFieldError[]): void {
  if (!isObj(c)) {
    errors.push({ field: at, message: `'${at}' must be an object` });
    return;
  }
  if (!oneOf(GUARDRAIL_CHECK_TYPES, c.type)) {
    errors.push({ field: `${at}.type`, message: `'${at}.type' must be one of ${GUARDRAIL_CHECK_TYPES.join(', ')}` });
    return;
  }
  const type = c.type;
  const allowed = new Set(['type', 'stage', 'action', ...CHECK_FIELDS[type]]);
  for (const k of Object.keys(c)) {
    if (!allowed.has(k))
      errors.push({ field: `${at}.${k}`, message: `Unknown field '${at}.${k}' for a ${type} check` });
  }
  if (!oneOf(GUARDRAIL_STAGES, c.stage))
    errors.push({ field: `${at}.stage`, message: `'${at}.stage' must be one of ${GUARDRAIL_STAGES.join(', ')}` });
  if (!oneOf(GUARDRAIL_ACTIONS, c.action))
    errors.push({ field: `${at}.action`, message: `'${at}.action' must be one of ${GUARDRAIL_ACTIONS.join(', ')}` });
  const looksAtOutput = c.stage === 'output' || c.stage === 'both';
  switch (type) {
    case 'pii': {
      const list = stringList(c.entities, `${at}.entities`, PII_ENTITIES.length, 32, errors);
      list?.forEach((e, i) => {
        if (typeof e === 'string' && !oneOf(PII_ENTITIES, e))
          errors.push({
            field: `${at}.entities[${i}]`,
            message: `'${at}.entities[${i}]' must be one of ${PII_ENTITIES.join(', ')}`,
          });
      });
      if (c.restore !== undefined && typeof c.restore !== 'boolean')
        errors.push({ field: `${at}.restore`, message: `'${at}.restore' must be a boolean` });
      if (c.restore === true && (c.action !== 'mask' || c.stage === 'output'))
        errors.push({
          field: `${at}.restore`,
          message: `'${at}.restore' needs action 'mask' on stage 'input' or 'both'`,
        });
      break;
    }
    case 'regex': {
      const flags = c.flags;
      const flagsOk =
        flags === undefined ||
        (typeof flags === 'string' &&
          [...flags].every((f) => REGEX_FLAGS.includes(f)) &&
          new Set(flags).size === flags.length);
      if (!flagsOk)
        errors.push({ field: `${at}.flags`, message: `'${at}.flags' may only combine ${[...REGEX_FLAGS].join(', ')}` });
      const list = stringList(
        c.patterns,
        `${at}.patterns`,
        GUARDRAIL_LIMITS.patterns,
        GUARDRAIL_LIMITS.patternLength,
        errors,
      );
      list?.forEach((p, i) => {
        if (typeof p !== 'string') return;
        try {
          new RegExp(p, `g${flagsOk && typeof flags === 'string' ? flags : ''}`);
        } catch (e) {
          errors.push({
            field: `${at}.patterns[${i}]`,
            message: `'${at}.patterns[${i}]' is not a valid regular expression: ${(e as Error).message}`,
          });
        }
      });
      if (c.max_match !== undefined && !(isPosInt(c.max_match) && c.max_match <= GUARDRAIL_LIMITS.maxMatch))
        errors.push({
          field: `${at}.max_match`,
          message: `'${at}.max_match' must be an integer from 1 to ${GUARDRAIL_LIMITS.maxMatch}`,
        });
      else if (c.max_match === undefined && looksAtOutput)
        errors.push({
          field: `${at}.max_match`,
          message: `'${at}.max_match' is required when the check looks at the output (it bounds the stream hold-back)`,
        });
      break;
    }
    case 'keywords':
      stringList(c.words, `${at}.words`, GUARDRAIL_LIMITS.words, GUARDRAIL_LIMITS.wordLength, errors);
      break;
    case 'max_input_tokens':
    case 'max_messages':
      if (!isPosInt(c.limit))
        errors.push({ field: `${at}.limit`, message: `'${at}.limit' must be a positive integer` });
      if (c.stage !== undefined && c.stage !== 'input')
        errors.push({ field: `${at}.stage`, message: `'${at}.stage' must be 'input' for a ${type} check` });
      if (c.action === 'mask')
        errors.push({ field: `${at}.action`, message: `'${at}.action' must be 'block' or 'flag' for a ${type} check` });
      break;
    case 'webhook': {
      let ok = typeof c.url === 'string';
      if (ok) {
        try {
          const u = new URL(c.url as string);
          ok = u.protocol === 'https:' || u.protocol === 'http:';
        } catch {
          ok = false;
        }
      }
      if (!ok) errors.push({ field: `${at}.url`, message: `'${at}.url' must be an http(s) URL` });
      if (c.timeout_ms !== undefined && !(isPosInt(c.timeout_ms) && c.timeout_ms <= GUARDRAIL_LIMITS.webhookTimeoutMs))
        errors.push({
          field: `${at}.timeout_ms`,
          message: `'${at}.timeout_ms' must be an integer from 1 to ${GUARDRAIL_LIMITS.webhookTimeoutMs}`,
        });
      if (c.on_error !== undefined && c.on_error !== 'allow' && c.on_error !== 'block')
        errors.push({ field: `${at}.on_error`, message: `'${at}.on_error' must be 'allow' or 'block'` });
      break;
    }
  }
}

/**
 * Checks a create/replace body. Returns every problem found (empty when valid); the caller turns the
 * first into its 400. SSRF rules for webhook URLs are the management side's job (they need DNS).
 */
export function validateGuardrailPolicyInput(body: unknown): GuardrailFieldError[] {
  const errors: GuardrailFieldError[] = [];
  if (!isObj(body)) return [{ field: '', message: 'The body must be a JSON object' }];
  for (const k of Object.keys(body)) {
    if (!['name', 'scope', 'mode', 'checks'].includes(k)) errors.push({ field: k, message: `Unknown field '${k}'` });
  }
  if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > GUARDRAIL_LIMITS.nameLength)
    errors.push({
      field: 'name',
      message: `'name' must be a non-empty string of at most ${GUARDRAIL_LIMITS.nameLength} characters`,
    });
  const scope = body.scope;
  if (!isObj(scope) || !oneOf(GUARDRAIL_SCOPE_TYPES, scope.type)) {
    errors.push({ field: 'scope.type', message: `'scope.type' must be one of ${GUARDRAIL_SCOPE_TYPES.join(', ')}` });
  } else {
    for (const k of Object.keys(scope)) {
      if (k !== 'type' && k !== 'id') errors.push({ field: `scope.${k}`, message: `Unknown field 'scope.${k}'` });
    }
    if (scope.id !== undefined && (typeof scope.id !== 'string' || scope.id === ''))
      errors.push({ field: 'scope.id', message: `'scope.id' must be a non-empty string` });
    else if (scope.type !== 'org' && scope.id === undefined)
      errors.push({ field: 'scope.id', message: `'scope.id' is required for scope type '${scope.type}'` });
  }
  if (!oneOf(GUARDRAIL_MODES, body.mode))
    errors.push({ field: 'mode', message: `'mode' must be one of ${GUARDRAIL_MODES.join(', ')}` });
  if (!Array.isArray(body.checks) || body.checks.length === 0 || body.checks.length > GUARDRAIL_LIMITS.checks) {
    errors.push({ field: 'checks', message: `'checks' must be an array of 1 to ${GUARDRAIL_LIMITS.checks} checks` });
  } else {
    body.checks.forEach((c, i) => {
      validateCheck(c, `checks[${i}]`, errors);
    });
  }
  return errors;
}

/** The stages a check runs in. */
export function checkRunsAt(check: GuardrailCheck, stage: 'input' | 'output'): boolean {
  return check.stage === 'both' || check.stage === stage;
}
