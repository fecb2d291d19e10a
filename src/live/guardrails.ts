// Live guardrail policies in memory, per org, so the proxy finds the policies that apply to a call
// without a database round trip, and an org without policies costs one map lookup. Kept current by
// `guardrail` change events and the periodic poll; a deleted policy is dropped (deletion is final).
//
// The mirror does not know what a check is: the composition root injects the compile function (the
// guardrails feature's), and the compiled form is a type parameter, so live/ stays below it. Each
// policy is compiled once per change, never per call.
import type { Logger } from 'pino';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { GuardrailPolicyRecord, GuardrailStore } from '../store/guardrails.ts';
import { compareStrings } from '../util/compare.ts';
import { isDeleted, LiveMirror } from './feed.ts';

/** What the mirror reads from the guardrail store. */
export type GuardrailSource = Pick<GuardrailStore, 'get' | 'changedSince' | 'listAllLive'>;

/** Turns a stored policy into the form the engine runs; throws when the stored policy no longer compiles. */
export type GuardrailCompiler<P> = (record: GuardrailPolicyRecord) => P;

export interface LiveGuardrail<P> {
  id: string;
  orgId: string;
  scopeType: string;
  /** Null for org scope. */
  scopeId: string | null;
  compiled: P;
}

/** What a call is, as far as scope matching goes. */
export interface GuardrailSubject {
  projectId: string | null;
  apiKeyId: string | null;
  /** The routing config the call named (`@slug`), by id. */
  routingConfigId: string | null;
}

/**
 * The order policies apply in: org first, then project, API key and routing config (narrower scopes
 * later, so their verdicts are the last word in the trace); within one scope type by id, which is
 * creation order.
 */
export const SCOPE_ORDER: readonly string[] = ['org', 'project', 'api_key', 'routing_config'];

const rank = (t: string): number => {
  const i = SCOPE_ORDER.indexOf(t);
  return i < 0 ? SCOPE_ORDER.length : i;
};

function byApplyOrder<P>(a: LiveGuardrail<P>, b: LiveGuardrail<P>): number {
  return rank(a.scopeType) - rank(b.scopeType) || compareStrings(a.id, b.id);
}

export class GuardrailMirror<P> extends LiveMirror<GuardrailPolicyRecord> {
  readonly #compile: GuardrailCompiler<P>;
  readonly #logger: Logger;
  readonly #byId = new Map<string, LiveGuardrail<P>>();
  /** Live policies of each org in apply order, rebuilt when one of them changes. */
  readonly #lists = new Map<string, readonly LiveGuardrail<P>[]>();
  readonly #none: readonly LiveGuardrail<P>[] = Object.freeze([]);

  constructor(
    store: GuardrailSource,
    bus: ChangeBus,
    compile: GuardrailCompiler<P>,
    logger: Logger,
    intervalMs: number,
  ) {
    const warm = () => store.listAllLive();
    super({ name: 'guardrails', topic: 'guardrail', store, final: isDeleted, warm }, bus, logger, intervalMs);
    this.#compile = compile;
    this.#logger = logger;
  }

  protected override apply(r: GuardrailPolicyRecord): void {
    if (r.deletedAt !== null) {
      this.remove(r.id);
      return;
    }
    let compiled: P;
    try {
      compiled = this.#compile(r);
    } catch (err) {
      // A row this version cannot run (written by a newer instance, say): the previous one stays.
      this.#logger.warn(
        { err, policy: r.id },
        'stored guardrail policy does not compile; keeping the previous version',
      );
      return;
    }
    const entry: LiveGuardrail<P> = Object.freeze({
      id: r.id,
      orgId: r.orgId,
      scopeType: r.scope.type,
      scopeId: r.scope.id ?? null,
      compiled,
    });
    this.#byId.set(r.id, entry);
    this.#rebuild(r.orgId);
  }

  protected override remove(id: string): void {
    const p = this.#byId.get(id);
    if (!p) return;
    this.#byId.delete(id);
    this.#rebuild(p.orgId);
  }

  #rebuild(orgId: string): void {
    const list: LiveGuardrail<P>[] = [];
    for (const p of this.#byId.values()) if (p.orgId === orgId) list.push(p);
    if (list.length === 0) this.#lists.delete(orgId);
    else this.#lists.set(orgId, Object.freeze(list.sort(byApplyOrder)));
  }

  /** The org's live policies in apply order: the same array until one changes; a shared empty one when none. */
  forOrg(orgId: string): readonly LiveGuardrail<P>[] {
    return this.#lists.get(orgId) ?? this.#none;
  }

  /** The policies whose scope covers the call, in apply order; the shared empty array when none does. */
  matching(orgId: string, subject: GuardrailSubject): readonly LiveGuardrail<P>[] {
    const all = this.#lists.get(orgId);
    if (all === undefined) return this.#none;
    const out = all.filter((p) => covers(p, subject));
    return out.length === 0 ? this.#none : out;
  }

  /** A live policy by id. */
  get(id: string): LiveGuardrail<P> | undefined {
    return this.#byId.get(id);
  }
}

function covers(p: LiveGuardrail<unknown>, s: GuardrailSubject): boolean {
  switch (p.scopeType) {
    case 'org':
      return true;
    case 'project':
      return p.scopeId === s.projectId;
    case 'api_key':
      return p.scopeId === s.apiKeyId;
    case 'routing_config':
      return p.scopeId === s.routingConfigId;
    default:
      return false;
  }
}
