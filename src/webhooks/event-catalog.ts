// The webhook event types: one table that feeds GET /manage/v1/webhooks/event-types, the
// validation of an endpoint's `event_types`, and the TypeScript union emitters are checked against,
// so the served list cannot drift from what is actually sent.
//
// Example `data` objects show the shape receivers get; they carry ids and names only. Secrets
// (provider keys, API keys, signing secrets) never appear in any event.

import { DOMAIN_EVENT_TYPES, type DomainEventType } from '../ports/domain-events.ts';

const EXAMPLE_TIME = '2025-06-01T12:00:00.000Z';

// Events about the same record show the same record (examples are cloned on the way out).
const ROUTING_CONFIG = { id: 'rc_01jx2m8d1q', slug: 'support-bot', version: 4 } as const;
const PROVIDER = { id: 'prov_01jx2m9f4k', vendor: 'anthropic', name: 'anthropic-prod' } as const;
const PROJECT = { id: 'proj_01jx2m7z9c', slug: 'support', name: 'Support' } as const;
const API_KEY = { id: 'key_01jx2ma3t0', name: 'ci', project_id: 'proj_01jx2m7z9c' } as const;

const CATALOG = {
  'routing_config.created': {
    description: 'A routing config was created (its first version).',
    example: { id: 'rc_01jx2m8d1q', slug: 'support-bot', version: 1, project_id: 'proj_01jx2m7z9c' },
  },
  'routing_config.updated': {
    description: 'A routing config was updated; the new version is now current.',
    example: ROUTING_CONFIG,
  },
  'routing_config.deleted': {
    description: 'A routing config was soft-deleted; its slug is free again.',
    example: ROUTING_CONFIG,
  },
  'routing_config.restored': {
    description: 'An earlier version of a routing config was restored as a new current version.',
    example: { id: 'rc_01jx2m8d1q', slug: 'support-bot', version: 5, restored_from_version: 2 },
  },
  'provider.created': {
    description: 'A provider credential was added.',
    example: PROVIDER,
  },
  'provider.rotated': {
    description: "A provider credential's key was replaced after verification.",
    example: PROVIDER,
  },
  'provider.deleted': {
    description: 'A provider credential was deleted.',
    example: PROVIDER,
  },
  'provider.health_changed': {
    description:
      "A provider credential's circuit breaker changed state: `cooling_down` after repeated failures (its calls go to the vendor's other credentials), `healthy` again after a call succeeds.",
    example: {
      ...PROVIDER,
      previous: 'healthy',
      current: 'cooling_down',
      cooldown_until: '2025-06-01T12:00:30.000Z',
    },
  },
  'project.created': {
    description: 'A project was created.',
    example: PROJECT,
  },
  'project.deleted': {
    description: 'A project was soft-deleted; its API keys were revoked.',
    example: PROJECT,
  },
  'api_key.created': {
    description: 'An API key was created (the key itself is never sent).',
    example: API_KEY,
  },
  'api_key.rotated': {
    description:
      'An API key was rotated: it has a new plaintext, and the old one works until `previous_key_expires_at` (null: refused at once). Neither plaintext is ever sent.',
    example: {
      ...API_KEY,
      previous_key_expires_at: '2025-06-02T12:00:00.000Z',
    },
  },
  'api_key.revoked': {
    description: 'An API key was revoked, directly or because its project was deleted.',
    example: API_KEY,
  },
  'budget.threshold_reached': {
    description: "Spending crossed one of a budget's alert thresholds in the current period.",
    example: {
      budget_id: 'budget_01jx2mb6w2',
      scope: { type: 'project', id: 'proj_01jx2m7z9c' },
      period: 'monthly',
      limit_usd: 100,
      spent_usd: 80.42,
      threshold: 0.8,
    },
  },
  'budget.exceeded': {
    description: 'Spending reached the budget limit; with action "block" further requests get 402.',
    example: {
      budget_id: 'budget_01jx2mb6w2',
      scope: { type: 'project', id: 'proj_01jx2m7z9c' },
      period: 'monthly',
      limit_usd: 100,
      spent_usd: 100.07,
      action: 'block',
    },
  },
  'batch.completed': {
    description: 'A batch finished; its results can be fetched.',
    example: {
      id: 'batch_01jx2mc9p5',
      request_counts: { total: 120, completed: 118, failed: 2 },
      output_file_id: 'file-01jx2mdd0a',
    },
  },
  'batch.failed': {
    description: 'A batch failed as a whole (for example, its input file was invalid).',
    example: { id: 'batch_01jx2mc9p5', error: { code: 'invalid_input_file', message: 'line 3 is not JSON' } },
  },
  'batch.expired': {
    description: 'A batch did not finish within its completion window.',
    example: { id: 'batch_01jx2mc9p5', request_counts: { total: 120, completed: 90, failed: 0 } },
  },
  'batch.cancelled': {
    description: 'A batch was cancelled; requests already finished are kept.',
    example: { id: 'batch_01jx2mc9p5', request_counts: { total: 120, completed: 40, failed: 0 } },
  },
  'response.completed': {
    description: 'A background stored response finished.',
    example: { id: 'resp_01jx2mf2hx', model: 'openai/gpt-4o-mini', status: 'completed' },
  },
  'webhook.test': {
    description: 'A synthetic event sent by POST .../endpoints/{id}/test to check connectivity.',
    example: { endpoint_id: 'whep_01jx2mg7rb', message: 'This is a test event from Switchyard.' },
  },
  'webhook_endpoint.disabled': {
    description: 'A webhook endpoint was disabled because every delivery attempt to it failed for 5 days.',
    example: {
      id: 'whep_01jx2mg7rb',
      url: 'https://hooks.example.com/switchyard',
      reason: 'every delivery attempt failed since 2025-05-27T09:14:03.120Z',
    },
  },
  'guardrail.blocked': {
    description:
      'A guardrail policy in enforce mode refused a call (400 guardrail_blocked) or ended its stream. Names the policy, the check and the entity types found, never the matched text.',
    example: {
      request_id: 'req_01jx2mh4zq',
      project_id: 'proj_01jx2m7z9c',
      api_key_id: 'key_01jx2ma3t0',
      model: 'openai/gpt-4o-mini',
      policy_id: 'guardrail_01jx2mj8vd',
      policy_name: 'no card numbers',
      check: 'pii',
      check_index: 0,
      stage: 'input',
      entities: { credit_card: 1 },
    },
  },
  'mcp_server.health_changed': {
    description:
      'A registered MCP tool server became reachable (`up`) or stopped answering (`down`: a failed connect, a stdio process that exited, a call that could not reach it).',
    example: {
      id: 'mcp_01jx2mk3wd',
      name: 'github',
      transport: 'streamable_http',
      previous: 'up',
      current: 'down',
      reason: 'connect timed out after 10000 ms',
    },
  },
} as const satisfies Record<DomainEventType, { description: string; example: Record<string, unknown> }>;

export type EventType = DomainEventType;

/** What an endpoint subscribes to: every type, or a non-empty list of catalog types. */
export type EventTypeFilter = readonly ['*'] | readonly EventType[];

export interface EventTypeInfo {
  readonly type: EventType;
  readonly description: string;
  readonly example: Readonly<Record<string, unknown>>;
}

export const EVENT_TYPES: readonly EventType[] = DOMAIN_EVENT_TYPES;

/** The body of GET /manage/v1/webhooks/event-types, in catalog order. */
export function eventTypeCatalog(): { data: EventTypeInfo[] } {
  return {
    data: EVENT_TYPES.map((type) => ({
      type,
      description: CATALOG[type].description,
      // A copy, so a caller decorating the response cannot change the catalog.
      example: structuredClone(CATALOG[type].example) as Record<string, unknown>,
    })),
  };
}

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && Object.hasOwn(CATALOG, value);
}

/** A full example payload (`{type, timestamp, data}`), e.g. for the test endpoint or docs. */
export function exampleEvent(type: EventType): { type: EventType; timestamp: string; data: Record<string, unknown> } {
  return { type, timestamp: EXAMPLE_TIME, data: structuredClone(CATALOG[type].example) as Record<string, unknown> };
}

export type EventTypesValidation =
  | { readonly ok: true; readonly value: EventTypeFilter }
  | { readonly ok: false; readonly message: string };

/**
 * Validates an endpoint's `event_types`: exactly `["*"]`, or a non-empty list of catalog types
 * (duplicates are folded, order kept). Messages name the offending entries so the 400 is actionable.
 */
export function validateEventTypes(input: unknown): EventTypesValidation {
  if (!Array.isArray(input)) return { ok: false, message: 'event_types must be an array of event type names' };
  if (input.length === 0) {
    return { ok: false, message: 'event_types must not be empty; use ["*"] to receive every event type' };
  }
  const nonStrings = input.filter((t) => typeof t !== 'string');
  if (nonStrings.length > 0) {
    return { ok: false, message: `event_types must contain only strings; got ${JSON.stringify(nonStrings)}` };
  }
  const names = input as string[];
  if (names.includes('*')) {
    return names.every((t) => t === '*')
      ? { ok: true, value: ['*'] }
      : { ok: false, message: 'event_types: "*" subscribes to every type and must be the only entry' };
  }
  const unknown = [...new Set(names.filter((t) => !isEventType(t)))];
  if (unknown.length > 0) {
    const list = unknown.map((t) => JSON.stringify(t)).join(', ');
    return {
      ok: false,
      message: `event_types: unknown event type${unknown.length > 1 ? 's' : ''} ${list}; see GET /manage/v1/webhooks/event-types`,
    };
  }
  return { ok: true, value: [...new Set(names as EventType[])] };
}

/** Whether an endpoint subscribed to `endpointTypes` receives an event of `type`. */
export function matches(endpointTypes: readonly string[], type: EventType): boolean {
  return endpointTypes.includes('*') || endpointTypes.includes(type);
}
