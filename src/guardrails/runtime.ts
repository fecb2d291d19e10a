// What the guardrails feature holds at run time, built once per gateway by the composition root: the
// live policies, the webhook check client, the `guardrail.blocked` recorder and the verdict counter.
// The engine integration reads everything it needs from here.
import type { Logger } from 'pino';
import type { SecretBox } from '../crypto/secretbox.ts';
import { GuardrailMirror, type GuardrailSource } from '../live/guardrails.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Db } from '../store/db.ts';
import type { GuardrailPolicyRecord } from '../store/guardrails.ts';
import { GuardrailEvents } from './events.ts';
import { type GuardrailCheck, type GuardrailPolicy, validateGuardrailPolicyInput } from './policy.ts';
import { type MessageSigner, policySecretAad, WebhookCheckClient, WebhookSecrets } from './webhook-check.ts';

/** Counts one verdict on /metrics (src/metrics/guardrails.ts); injected, features do not import each other. */
export type VerdictCounter = (policyId: string, checkType: string, action: string) => void;

export interface GuardrailRuntimeDeps {
  db: Db;
  store: GuardrailSource;
  changes: ChangeBus;
  secrets: SecretBox;
  logger: Logger;
  refreshIntervalMs: number;
  /** The address policy of webhook endpoints (SWITCHYARD_DENY_PRIVATE_ADDRESSES). */
  denyPrivate: boolean;
  sign: MessageSigner;
  countVerdict: VerdictCounter;
}

/**
 * A stored policy as the engine runs it. Rows were validated when written; one that no longer
 * validates (written by a newer version) throws, and the mirror keeps what it had.
 */
export function storedPolicy(r: GuardrailPolicyRecord): GuardrailPolicy {
  const input = { name: r.name, scope: r.scope, mode: r.mode, checks: r.checks };
  const [first] = validateGuardrailPolicyInput(input);
  if (first) throw new Error(`guardrail policy ${r.id}: ${first.field}: ${first.message}`);
  return {
    id: r.id,
    org_id: r.orgId,
    name: r.name,
    scope: r.scope as GuardrailPolicy['scope'],
    mode: r.mode as GuardrailPolicy['mode'],
    checks: r.checks as unknown as GuardrailCheck[],
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export class GuardrailRuntime {
  readonly policies: GuardrailMirror<GuardrailPolicy>;
  readonly webhooks: WebhookCheckClient;
  readonly events: GuardrailEvents;
  readonly countVerdict: VerdictCounter;

  constructor(deps: GuardrailRuntimeDeps) {
    const secrets = new WebhookSecrets();
    const compile = (r: GuardrailPolicyRecord): GuardrailPolicy => {
      const policy = storedPolicy(r);
      const hooks = policy.checks.filter((c) => c.type === 'webhook');
      if (hooks.length > 0)
        secrets.bind(hooks, deps.secrets.decrypt(r.secretCiphertext, policySecretAad(r.orgId, r.id)));
      return policy;
    };
    this.policies = new GuardrailMirror(deps.store, deps.changes, compile, deps.logger, deps.refreshIntervalMs);
    this.webhooks = new WebhookCheckClient({ denyPrivate: deps.denyPrivate, sign: deps.sign, secrets });
    this.events = new GuardrailEvents(deps.db, deps.logger);
    this.countVerdict = deps.countVerdict;
  }

  /** Loads every live policy; called once before the first call is served. */
  start(): Promise<void> {
    return this.policies.start();
  }

  async close(): Promise<void> {
    this.policies.stop();
    await this.webhooks.close();
  }
}
