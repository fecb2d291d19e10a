// The shapes the dashboard reads, named after what a page shows. Each is taken from the generated
// api-types.ts (openapi.yaml's operation answers), so a field renamed or retyped in the API fails
// `tsc -p ui/tsconfig.json` here instead of reaching a page as undefined. Only the answers the API
// publishes as open JSON (the decision trace, the dry-run envelope, a replay's answer) are written
// down by hand below, kept to the fields a page shows.
import type { operations } from './api-types.ts';

type Answers<Op extends keyof operations> = operations[Op]['responses'];
/** The JSON body of an operation's success answer (200, or 201 for a create). */
type Ok<Op extends keyof operations> = Answers<Op>[Extract<keyof Answers<Op>, 200 | 201>] extends {
  content: { 'application/json': infer Body };
}
  ? Body
  : never;
type Item<Op extends keyof operations> = Ok<Op> extends { data: Array<infer Row> } ? Row : never;

/** Every paged list has the same envelope; `list_projects` stands for all of them. */
export type Page<T> = Omit<Ok<'list_projects'>, 'data'> & { data: T[] };

export type Project = Ok<'get_project'>;
export type RateLimits = Project['settings']['rate_limits'];
/** A project's semantic cache settings (PATCH merges them field by field). */
export type CacheSettings = Project['settings']['semantic_cache'];

/** `key`, the plaintext, comes only in the answer to create. */
export type ApiKey = Item<'list_api_keys'> & Partial<Pick<Ok<'create_api_key'>, 'key'>>;

export type Provider = Ok<'get_provider'>;
export type HealthWindow = Ok<'get_provider_health'>['windows'][number];

export type Report = Ok<'get_analytics_report'>;
export type ReportPoint = Report['series'][number];
export type ReportTotals = Report['totals'];

export type LogSummary = Item<'list_logs'>;

/** `ttfb_ms` and `served` are among the extra fields the API allows on an attempt. */
export type Attempt = Ok<'get_log'>['attempts'][number] & { ttfb_ms?: number; served?: boolean };

export interface Candidate {
  model: string;
  provider: string;
  eligible: boolean;
  reason: string;
  score?: number;
}

/** The API publishes the trace as any JSON value: this is what the log detail reads from it. */
export interface DecisionTrace {
  policy?: string;
  config?: { slug: string; version: number } | null;
  candidates?: Candidate[];
  matched_rule?: string | null;
  variant_bucket?: string | null;
  attempts?: Attempt[];
  served_by?: { model: string; provider: string } | null;
  limits?: unknown;
  warnings?: unknown;
}

export type LogRecord = Omit<Ok<'get_log'>, 'decision_trace' | 'attempts'> & {
  decision_trace: DecisionTrace | null;
  attempts: Attempt[];
};

/** The envelope of a dry run (replay, config test, X-Svc-Dry-Run), an open object in the API. */
export interface DryRun {
  dry_run: {
    policy: string;
    config: { slug: string; version: number } | null;
    target: { model: string; provider: string } | null;
    candidates: Candidate[];
    matched_rule: string | null;
    variant_bucket: string | null;
  };
}

/** A replay answers the replayed call's own body plus these fields, so the API leaves it open. */
export interface ReplayResult {
  request_id: string;
  replay_of: string;
  response: unknown;
  model_used: string | null;
  provider: string | null;
  status_code: number;
  cost_usd: number | null;
  latency_ms: number;
}

export type RoutingConfig = Item<'list_routing_configs'>;
export type ConfigVersion = Item<'list_routing_config_versions'>;
export type DecisionSummary = Item<'get_decisions_summary'>;

export type Budget = Ok<'get_budget'>;
export type BudgetStatus = NonNullable<Budget['status']>;

/** `signing_secret` comes only in the answers to create and rotate-secret. */
export type WebhookEndpoint = Ok<'get_webhook_endpoint'> & Partial<Pick<Ok<'rotate_webhook_secret'>, 'signing_secret'>>;
/** `signing_secret` comes only in the answer to create. */
export type Guardrail = Ok<'get_guardrail'> & Partial<Pick<Ok<'create_guardrail'>, 'signing_secret'>>;
export type GuardrailCheck = Guardrail['checks'][number];
export type WebhookDeliveryDetail = Ok<'get_webhook_delivery'>;
export type WebhookDelivery = Item<'list_webhook_deliveries'>;
export type WebhookAttempt = WebhookDeliveryDetail['attempts'][number];
export type EventType = Item<'list_webhook_event_types'>;

export type CacheStats = Ok<'get_project_cache'>;

export type AuditEntry = Item<'list_audit_logs'>;
export type AuditVerify = Ok<'verify_audit_log'>;
