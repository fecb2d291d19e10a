// Guardrail policies: list, get, create (the webhook signing secret is returned once), update,
// soft-delete. The body schema below catches shapes; the rules between fields (which fields a check
// type takes, what a stage allows) are src/guardrails/policy.ts's, shared with the engine, and the
// webhook URLs pass the same address policy as webhook endpoints.
import { Type } from '@sinclair/typebox';
import { GatewayError } from '../errors/gateway-error.ts';
import {
  GUARDRAIL_ACTIONS,
  GUARDRAIL_CHECK_TYPES,
  GUARDRAIL_LIMITS,
  GUARDRAIL_MODES,
  GUARDRAIL_SCOPE_TYPES,
  GUARDRAIL_STAGES,
  type GuardrailCheck,
  type GuardrailPolicyInput,
  type GuardrailScope,
  PII_ENTITIES,
  validateGuardrailPolicyInput,
} from '../guardrails/policy.ts';
import { regexSafetyProblems } from '../guardrails/redos.ts';
import { policySecretAad, webhookUrlProblem } from '../guardrails/webhook-check.ts';
import type { JsonValue } from '../ir/types.ts';
import type { GuardrailPolicyRecord } from '../store/guardrails.ts';
import { newId } from '../util/ids.ts';
import { generateSigningSecret } from '../webhooks/signing.ts';
import { liveOr404, notFound, requireOrgKey } from './access.ts';
import { ManagedBy } from './config-managed.ts';
import { pageAfter } from './cursor.ts';
import { defineOperation, type Operation } from './operation.ts';
import { Nullable, PageQuery, pageOf, Timestamp } from './schemas.ts';
import type { Services } from './services.ts';

const TAG = 'guardrails';

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description === undefined ? {} : { description },
  );

const GuardrailId = Type.Object({ guardrail_id: Type.String({ minLength: 1, maxLength: 100 }) });

const Scope = Type.Object(
  {
    type: literals(GUARDRAIL_SCOPE_TYPES),
    id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The project, API key or routing config id; none for org',
      }),
    ),
  },
  { additionalProperties: false },
);

// One flat object for every check type: which fields a type takes is checked by policy.ts, whose
// messages name the field, instead of an anyOf whose failures read as "must match a schema".
const Check = Type.Object(
  {
    type: literals(GUARDRAIL_CHECK_TYPES),
    stage: literals(GUARDRAIL_STAGES, 'Where the check runs: the request, the answer (streams as they flow), or both'),
    action: literals(
      GUARDRAIL_ACTIONS,
      'block: refuse (400 guardrail_blocked); mask: replace matches; flag: record only',
    ),
    entities: Type.Optional(Type.Array(literals(PII_ENTITIES), { description: 'pii: the entity types to detect' })),
    restore: Type.Optional(
      Type.Boolean({
        description: "pii with action mask on the input: put the originals back into the caller's answer",
      }),
    ),
    patterns: Type.Optional(Type.Array(Type.String(), { description: 'regex: JavaScript regular expressions' })),
    flags: Type.Optional(Type.String({ description: 'regex: any of i, m, s, u' })),
    max_match: Type.Optional(
      Type.Integer({ description: 'regex on the output: the longest text one match spans (the stream hold-back)' }),
    ),
    words: Type.Optional(Type.Array(Type.String(), { description: 'keywords: whole-word, case-insensitive' })),
    limit: Type.Optional(Type.Integer({ description: 'max_input_tokens, max_messages: the most allowed' })),
    url: Type.Optional(Type.String({ maxLength: 2048, description: 'webhook: the http(s) URL that gets the POST' })),
    timeout_ms: Type.Optional(Type.Integer({ description: 'webhook: how long to wait for the answer (default 500)' })),
    on_error: Type.Optional(
      literals(
        ['allow', 'block'] as const,
        'webhook: what a timeout, an error or a malformed answer counts as (default allow)',
      ),
    ),
  },
  { additionalProperties: false },
);

const Checks = Type.Array(Check, { minItems: 1, maxItems: GUARDRAIL_LIMITS.checks, description: 'Run in this order' });
const Name = Type.String({ minLength: 1, maxLength: GUARDRAIL_LIMITS.nameLength });
const Mode = literals(GUARDRAIL_MODES, 'enforce: verdicts change calls; shadow: verdicts are only recorded');

const Guardrail = Type.Object({
  id: Type.String(),
  object: Type.Literal('guardrail'),
  managed_by: ManagedBy,
  name: Type.String(),
  scope: Scope,
  mode: Mode,
  checks: Type.Array(Check),
  created_at: Timestamp,
  updated_at: Timestamp,
  deleted_at: Nullable(Timestamp),
});

const WithSecret = Type.Object({
  ...Guardrail.properties,
  signing_secret: Type.String({
    description: "whsec_... that signs this policy's webhook check calls (Standard Webhooks). Returned only by create.",
  }),
});

function view(r: GuardrailPolicyRecord) {
  return {
    id: r.id,
    object: 'guardrail' as const,
    managed_by: null,
    name: r.name,
    // Written through validation, so the stored shapes are the schema's.
    scope: r.scope as GuardrailScope,
    mode: r.mode as GuardrailPolicyInput['mode'],
    checks: r.checks as unknown as GuardrailCheck[],
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    deleted_at: r.deletedAt,
  };
}

function bad(param: string, message: string): never {
  throw new GatewayError('invalid_parameter', { message, param });
}

/** The whole policy after the field rules, the address policy and the scope's target are checked. */
async function checkedPolicy(svc: Services, orgId: string, input: GuardrailPolicyInput): Promise<GuardrailPolicyInput> {
  const [first] = validateGuardrailPolicyInput(input);
  if (first) bad(first.field, first.message);
  const [risky] = await regexSafetyProblems(input);
  if (risky) bad(risky.field, risky.message);
  input.checks.forEach((c, i) => {
    if (c.type !== 'webhook') return;
    const problem = webhookUrlProblem(c.url, { denyPrivate: svc.config.webhookDenyPrivate });
    if (problem !== null) bad(`checks[${i}].url`, `'checks[${i}].url' is refused: ${problem}`);
  });
  const { type, id } = input.scope;
  if (type === 'org' && id !== undefined && id !== orgId) {
    bad('scope.id', "an org policy covers the caller's organization; leave 'scope.id' out");
  }
  if (type === 'project' && id !== undefined) {
    const p = await svc.stores.projects.get(orgId, id);
    if (!p || p.deletedAt !== null) bad('scope.id', `no active project with id '${id}' in this organization`);
  } else if (type === 'api_key' && id !== undefined) {
    if (!(await svc.stores.orgKeys.getKey(orgId, id)))
      bad('scope.id', `no API key with id '${id}' in this organization`);
  } else if (type === 'routing_config' && id !== undefined) {
    const rc = await svc.stores.routingConfigs.get(orgId, id);
    if (!rc || rc.deletedAt !== null) bad('scope.id', `no routing config with id '${id}' in this organization`);
  }
  return { ...input, scope: type === 'org' ? { type } : { type, id } };
}

const asJson = (checks: readonly GuardrailCheck[]): JsonValue[] => checks as unknown as JsonValue[];

const listGuardrails = defineOperation({
  name: 'list_guardrails',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/guardrails',
  tag: TAG,
  summary: 'List guardrail policies',
  input: { query: Type.Object({ ...PageQuery }, { additionalProperties: false }) },
  output: pageOf(Guardrail),
  async handler({ svc, principal, query }) {
    const orgId = requireOrgKey(principal);
    return pageAfter(query, (page) => svc.stores.guardrails.list(orgId, page), view);
  },
});

const getGuardrail = defineOperation({
  name: 'get_guardrail',
  method: 'GET',
  role: 'viewer',
  path: '/manage/v1/guardrails/{guardrail_id}',
  tag: TAG,
  summary: 'Get a guardrail policy (deleted ones too, with deleted_at set)',
  input: { params: GuardrailId },
  output: Guardrail,
  async handler({ svc, principal, params }) {
    const r = await svc.stores.guardrails.get(requireOrgKey(principal), params.guardrail_id);
    if (!r) throw notFound('guardrail', params.guardrail_id);
    return view(r);
  },
});

const createGuardrail = defineOperation({
  name: 'create_guardrail',
  method: 'POST',
  role: 'admin',
  path: '/manage/v1/guardrails',
  tag: TAG,
  summary: 'Create a guardrail policy; it applies to the next call its scope covers',
  description:
    "Every live policy whose scope covers a call applies: org policies first, then project, API key and routing config ones, each group in creation order. The answer carries the policy's webhook signing secret, shown only here.",
  status: 201,
  input: {
    body: Type.Object(
      { name: Name, scope: Scope, mode: Type.Optional(Mode), checks: Checks },
      { additionalProperties: false },
    ),
  },
  output: WithSecret,
  async handler({ svc, principal, body }) {
    const orgId = requireOrgKey(principal);
    const p = await checkedPolicy(svc, orgId, {
      name: body.name,
      scope: body.scope,
      mode: body.mode ?? 'enforce',
      checks: body.checks as GuardrailCheck[],
    });
    const id = newId('guardrail');
    const secret = generateSigningSecret();
    const r = await svc.stores.guardrails.create({
      id,
      orgId,
      name: p.name,
      scope: p.scope,
      mode: p.mode,
      checks: asJson(p.checks),
      secretCiphertext: svc.secrets.encrypt(secret, policySecretAad(orgId, id)),
    });
    return { ...view(r), signing_secret: secret };
  },
});

const updateGuardrail = defineOperation({
  name: 'update_guardrail',
  method: 'PATCH',
  role: 'admin',
  path: '/manage/v1/guardrails/{guardrail_id}',
  tag: TAG,
  summary: 'Change a policy: name, scope, mode or its whole checks list; calls see the change at once',
  input: {
    params: GuardrailId,
    body: Type.Object(
      {
        name: Type.Optional(Name),
        scope: Type.Optional(Scope),
        mode: Type.Optional(Mode),
        checks: Type.Optional(Checks),
      },
      { additionalProperties: false },
    ),
  },
  output: Guardrail,
  async handler({ svc, principal, params, body }) {
    const orgId = requireOrgKey(principal);
    const cur = liveOr404(
      await svc.stores.guardrails.get(orgId, params.guardrail_id),
      'guardrail',
      params.guardrail_id,
    );
    const before = view(cur);
    const p = await checkedPolicy(svc, orgId, {
      name: body.name ?? before.name,
      scope: body.scope ?? before.scope,
      mode: body.mode ?? before.mode,
      checks: (body.checks as GuardrailCheck[] | undefined) ?? before.checks,
    });
    const r = await svc.stores.guardrails.update(orgId, params.guardrail_id, {
      name: p.name,
      scope: p.scope,
      mode: p.mode,
      checks: asJson(p.checks),
    });
    if (!r) throw notFound('guardrail', params.guardrail_id);
    return view(r);
  },
});

const deleteGuardrail = defineOperation({
  name: 'delete_guardrail',
  method: 'DELETE',
  role: 'admin',
  path: '/manage/v1/guardrails/{guardrail_id}',
  tag: TAG,
  summary: 'Soft-delete a guardrail policy; calls stop seeing it at once',
  input: { params: GuardrailId },
  output: Guardrail,
  async handler({ svc, principal, params }) {
    const r = await svc.stores.guardrails.softDelete(requireOrgKey(principal), params.guardrail_id);
    if (!r) throw notFound('guardrail', params.guardrail_id);
    return view(r);
  },
});

export const guardrailOperations: Operation[] = [
  listGuardrails,
  getGuardrail,
  createGuardrail,
  updateGuardrail,
  deleteGuardrail,
];
