// The HTTP side of a `webhook` check: POST the text to the customer's hook, signed the way our
// webhook deliveries are (Standard Webhooks headers, so the same verifier library works), and read
// its verdict. The URL goes through the gateway's address policy when the policy is written and
// again on every send. Calls go out on the gateway's one transport (providers/http.ts), whose
// connections refuse link-local, metadata and non-unicast addresses whatever a hostname resolves
// to; with private addresses denied, the hostname is also resolved and judged before each send
// (the shared pools hold no per-gateway setting, so that part of the rule is checked here).
//
// Every failure (refused address, timeout, reset, non-2xx, an answer that is not a verdict) rejects:
// the engine turns a rejection into the check's `on_error`, so that rule lives in one place.
//
// Signing is injected (the webhooks feature owns it; features do not import each other), and so is
// where a check's secret comes from: each policy has one, bound to its checks by `WebhookSecrets`.
import { randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { sendUpstream } from '../providers/http.ts';
import { checkEndpointUrl, checkResolvedAddress, type UrlPolicyOptions } from '../util/address-policy.ts';
import { isRecord } from '../util/json.ts';
import { gatewayVersion } from '../util/version.ts';
import {
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  type GuardrailWebhookAnswer,
  type GuardrailWebhookCaller,
  type GuardrailWebhookPayload,
  type WebhookCheck,
} from './policy.ts';

/** A hook's answer may carry replacement text as long as what it was sent; beyond this it is refused. */
export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

/** Standard Webhooks signing of one message (src/webhooks/signing.ts `sign`). */
export type MessageSigner = (
  message: { id: string; timestamp: number; body: string },
  secrets: readonly string[],
) => Readonly<Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>>;

export class WebhookCheckError extends Error {}

/** Binds a policy's sealed signing secret to its org and id, so a ciphertext copied to another row fails. */
export const policySecretAad = (orgId: string, policyId: string): string => `guardrail:${orgId}:${policyId}`;

/**
 * Which signing secret each webhook check uses. Checks are bound by identity when their policy is
 * compiled, so the engine passing a check object it got from the mirror finds its policy's secret.
 */
export class WebhookSecrets {
  readonly #byCheck = new WeakMap<object, string>();

  bind(checks: readonly object[], secret: string): void {
    for (const c of checks) this.#byCheck.set(c, secret);
  }

  of(check: object): string | undefined {
    return this.#byCheck.get(check);
  }
}

export interface WebhookCheckClientOptions extends UrlPolicyOptions {
  sign: MessageSigner;
  secrets: WebhookSecrets;
}

/** Why the URL may not be used as a hook (the 400 of a create or update); null when it may. */
export function webhookUrlProblem(url: string, policy: UrlPolicyOptions): string | null {
  const verdict = checkEndpointUrl(url, policy);
  return verdict.ok ? null : verdict.reason;
}

function parseAnswer(text: string): GuardrailWebhookAnswer {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new WebhookCheckError('the hook answered with something that is not JSON');
  }
  if (!isRecord(v)) throw new WebhookCheckError('the hook answer is not a JSON object');
  const { action, reason, replacement } = v;
  if (action !== 'allow' && action !== 'block' && action !== 'mask') {
    throw new WebhookCheckError(`the hook answer's action must be allow, block or mask; got ${JSON.stringify(action)}`);
  }
  if (reason !== undefined && reason !== null && typeof reason !== 'string') {
    throw new WebhookCheckError("the hook answer's reason must be a string");
  }
  if (replacement !== undefined && replacement !== null && typeof replacement !== 'string') {
    throw new WebhookCheckError("the hook answer's replacement must be a string");
  }
  return {
    action,
    ...(typeof reason === 'string' ? { reason } : {}),
    ...(typeof replacement === 'string' ? { replacement } : {}),
  };
}

async function readAll(body: AsyncIterable<Buffer> & { dump(): Promise<void> }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      await body.dump().catch(() => {});
      throw new WebhookCheckError(`the hook answer is larger than ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** With private addresses denied: every address the host resolves to must pass the policy. */
async function checkResolved(url: string, policy: UrlPolicyOptions): Promise<void> {
  if (!policy.denyPrivate) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return;
  for (const a of await lookup(host, { all: true })) {
    const verdict = checkResolvedAddress(a.address, a.family, policy);
    if (!verdict.ok) throw new WebhookCheckError(verdict.reason);
  }
}

export class WebhookCheckClient {
  readonly #opts: WebhookCheckClientOptions;
  readonly #userAgent = `Switchyard-Guardrails/${gatewayVersion()}`;

  constructor(opts: WebhookCheckClientOptions) {
    this.#opts = opts;
  }

  /** The engine's `GuardrailWebhookCaller`. */
  readonly call: GuardrailWebhookCaller = (payload, check) => this.#call(payload, check);

  async #call(payload: GuardrailWebhookPayload, check: WebhookCheck): Promise<GuardrailWebhookAnswer> {
    const problem = webhookUrlProblem(check.url, this.#opts);
    if (problem !== null) throw new WebhookCheckError(problem);
    const secret = this.#opts.secrets.of(check);
    if (secret === undefined) throw new WebhookCheckError('the check has no signing secret (its policy is not live)');
    const timeoutMs = check.timeout_ms ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
    const deadline = AbortSignal.timeout(timeoutMs);
    const body = JSON.stringify(payload);
    const headers = this.#opts.sign({ id: `msg_${randomUUID()}`, timestamp: Math.floor(Date.now() / 1000), body }, [
      secret,
    ]);
    try {
      await checkResolved(check.url, this.#opts);
      const res = await sendUpstream(
        {
          method: 'POST',
          url: check.url,
          headers: { ...headers, 'content-type': 'application/json', 'user-agent': this.#userAgent },
          body,
        },
        { signal: deadline, deadlines: { headersMs: timeoutMs, idleMs: timeoutMs } },
      );
      if (res.status < 200 || res.status >= 300) {
        await res.body.dump().catch(() => {});
        throw new WebhookCheckError(`the hook answered ${res.status}`);
      }
      return parseAnswer(await readAll(res.body, MAX_ANSWER_BYTES));
    } catch (err) {
      if (deadline.aborted) throw new WebhookCheckError(`no answer from the hook within ${timeoutMs} ms`);
      if (err instanceof WebhookCheckError) throw err;
      throw new WebhookCheckError(`the hook could not be reached: ${(err as Error).message}`);
    }
  }

  /** Nothing to release: connections belong to the shared transport. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
