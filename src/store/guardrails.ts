// Guardrail policies. Deletion is soft (log rows and events name policy ids). Every write publishes a
// `guardrail` change so the live mirror, which the proxy reads on every call, is current when the
// write returns. The store does not know what a check is: `checks` is the JSON array the management
// side validated (src/guardrails/policy.ts), stored and returned as it was written. The signing
// secret of the policy's webhook checks is stored sealed (the caller encrypts).
import type { JsonValue } from '../ir/types.ts';
import { fromJsonText } from '../util/json.ts';
import { nowIso } from '../util/time.ts';
import { type ChangePublisher, NO_CHANGES } from './changes.ts';
import type { Db } from './db.ts';
import { orgTable } from './org-table.ts';

export interface GuardrailScopeRecord {
  type: string;
  /** The project, API key or routing config; absent for org scope. */
  id?: string;
}

export interface GuardrailPolicyRecord {
  id: string;
  orgId: string;
  name: string;
  scope: GuardrailScopeRecord;
  mode: string;
  /** As validated when written, in run order. */
  checks: JsonValue[];
  secretCiphertext: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export type NewGuardrailPolicy = Pick<
  GuardrailPolicyRecord,
  'id' | 'orgId' | 'name' | 'scope' | 'mode' | 'checks' | 'secretCiphertext'
>;

export type GuardrailPolicyPatch = Partial<Pick<GuardrailPolicyRecord, 'name' | 'scope' | 'mode' | 'checks'>>;

export interface GuardrailStore {
  create(p: NewGuardrailPolicy): Promise<GuardrailPolicyRecord>;
  /** Deleted policies included. */
  get(orgId: string, id: string): Promise<GuardrailPolicyRecord | undefined>;
  /** Live policies by id (creation order). */
  list(orgId: string, page: { afterId?: string; limit: number }): Promise<GuardrailPolicyRecord[]>;
  /** Undefined when no live policy has the id. */
  update(orgId: string, id: string, patch: GuardrailPolicyPatch): Promise<GuardrailPolicyRecord | undefined>;
  /** The deleted policy; undefined when no live policy has the id. */
  softDelete(orgId: string, id: string): Promise<GuardrailPolicyRecord | undefined>;
  /** Rows with updated_at >= the instant, deleted ones included (the mirror's poll). */
  changedSince(sinceIso: string): Promise<GuardrailPolicyRecord[]>;
  /** Every live policy of every org, for warming the mirror at start. */
  listAllLive(): Promise<GuardrailPolicyRecord[]>;
}

export type GuardrailPoliciesTable = {
  id: string;
  org_id: string;
  name: string;
  scope_type: string;
  scope_id: string | null;
  mode: string;
  /** JSON text: the checks array. */
  checks: string;
  secret_ciphertext: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
};

export type GuardrailTables = { guardrail_policies: GuardrailPoliciesTable };

function toRecord(r: GuardrailPoliciesTable): GuardrailPolicyRecord {
  const checks = fromJsonText(r.checks);
  const scope: GuardrailScopeRecord = { type: r.scope_type };
  if (r.scope_id !== null) scope.id = r.scope_id;
  return {
    id: r.id,
    orgId: r.org_id,
    name: r.name,
    scope,
    mode: r.mode,
    checks: Array.isArray(checks) ? (checks as JsonValue[]) : [],
    secretCiphertext: r.secret_ciphertext,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

export function createGuardrailStore(baseDb: Db, changes: ChangePublisher = NO_CHANGES): GuardrailStore {
  const db = baseDb.withTables<GuardrailTables>();
  const table = orgTable(baseDb, 'guardrail_policies', toRecord, (orgId, id) =>
    changes.publish({ topic: 'guardrail', id, orgId }),
  );

  return {
    create(p) {
      const now = nowIso();
      return table.insert({
        id: p.id,
        org_id: p.orgId,
        name: p.name,
        scope_type: p.scope.type,
        scope_id: p.scope.id ?? null,
        mode: p.mode,
        checks: JSON.stringify(p.checks),
        secret_ciphertext: p.secretCiphertext,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      });
    },
    get: table.get,
    async list(orgId, page) {
      let q = db
        .selectFrom('guardrail_policies')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('deleted_at', 'is', null);
      if (page.afterId !== undefined) q = q.where('id', '>', page.afterId);
      return (await q.orderBy('id').limit(page.limit).execute()).map(toRecord);
    },
    update(orgId, id, patch) {
      const set: Partial<GuardrailPoliciesTable> = {};
      if (patch.name !== undefined) set.name = patch.name;
      if (patch.scope !== undefined) {
        set.scope_type = patch.scope.type;
        set.scope_id = patch.scope.id ?? null;
      }
      if (patch.mode !== undefined) set.mode = patch.mode;
      if (patch.checks !== undefined) set.checks = JSON.stringify(patch.checks);
      return table.update(orgId, id, set);
    },
    softDelete: (orgId, id) => table.softDelete(orgId, id),
    changedSince: table.changedSince,
    listAllLive: table.listAllLive,
  };
}
