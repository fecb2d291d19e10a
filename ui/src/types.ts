// The shapes the dashboard reads from the management API, written down from openapi.yaml and kept
// partial on purpose: only the fields a page shows. Anything else stays reachable through the raw
// JSON views.

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
  has_more: boolean;
}

export type RateLimits = { rpm?: number; tpm?: number; concurrency?: number } | null;

export interface Project {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  settings: {
    log_bodies: boolean;
    rate_limits: RateLimits;
    end_user_rate_limits: RateLimits;
    semantic_cache: CacheSettings;
  };
  created_at: string;
  deleted_at: string | null;
}

/** A project's semantic cache settings (PATCH merges them field by field). */
export interface CacheSettings {
  enabled: boolean;
  mode: 'semantic' | 'exact' | 'shadow';
  similarity_threshold: number;
  ttl_seconds: number;
  [field: string]: unknown;
}

export interface ApiKey {
  id: string;
  name: string;
  project_id: string | null;
  prefix: string;
  rate_limits: RateLimits;
  created_at: string;
  revoked_at: string | null;
  /** Only in the answer to create. */
  key?: string;
}

export interface Provider {
  id: string;
  vendor: string;
  name: string;
  base_url: string | null;
  weight: number;
  status: string;
  health: { state: string; p50_latency_ms: number | null; last_check_at: string; cooldown_until: string | null };
  created_at: string;
}

export interface HealthWindow {
  window: string;
  requests: number;
  success_rate: number | null;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

export interface ReportPoint {
  bucket: string;
  group?: string | null;
  requests: number;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  errors: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

export interface ReportTotals {
  requests: number;
  cost_usd: number;
  error_rate: number;
  errors: number;
  input_tokens: number;
  output_tokens: number;
  p50_latency_ms: number | null;
  p95_latency_ms: number | null;
  p99_latency_ms: number | null;
}

export interface Report {
  granularity: string;
  group_by: string | null;
  start: string;
  end: string;
  series: ReportPoint[];
  totals: ReportTotals;
  comparison?: { start: string; end: string; series: ReportPoint[]; totals: ReportTotals };
}

export interface LogSummary {
  id: string;
  created_at: string;
  request_type: string;
  project_id: string | null;
  model_requested: string | null;
  model_used: string | null;
  provider: string | null;
  status_code: number;
  latency_ms: number;
  ttfb_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number | null;
  end_user: string | null;
  tags: Record<string, string>;
  trace_id: string | null;
  conversation_id: string | null;
  cache: string | null;
  replay_of: string | null;
  saved_cost_usd: number;
  cache_similarity: number | null;
}

export interface Attempt {
  model: string;
  provider: string;
  status: number;
  outcome: string;
  latency_ms: number;
  cost_usd: number;
  error?: string;
  ttfb_ms?: number;
  served?: boolean;
}

export interface Candidate {
  model: string;
  provider: string;
  eligible: boolean;
  reason: string;
  score?: number;
}

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

export interface LogRecord extends LogSummary {
  api_key_id: string | null;
  credential_id: string | null;
  cache_read_tokens: number;
  cache_write_tokens: number;
  error: unknown;
  bodies_retained: boolean;
  request: unknown;
  response: unknown;
  decision_trace: DecisionTrace | null;
  attempts: Attempt[];
  cost: {
    input_usd: number;
    output_usd: number;
    cache_read_usd: number;
    cache_write_usd: number;
    other_attempts_usd: number;
    total_usd: number;
  };
}

/** The envelope of a dry run (replay, config test, X-Svc-Dry-Run). */
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

export interface RoutingConfig {
  id: string;
  project_id: string | null;
  name: string;
  slug: string;
  model: string;
  strategy: string;
  config: Record<string, unknown>;
  embedding_dimensions: number | null;
  version: number;
  version_id: string;
  created_at: string;
  updated_at: string;
}

export interface ConfigVersion {
  id: string;
  config_id: string;
  version: number;
  current: boolean;
  name: string;
  strategy: string;
  config: Record<string, unknown>;
  embedding_dimensions: number | null;
  restored_from: number | null;
  created_at: string;
}

export interface DecisionSummary {
  slug: string;
  policy: string;
  versions: number[];
  requests: number;
  errors: number;
  attempts: number;
  avg_attempts: number;
  fallbacks: number;
  fallback_rate: number;
  served_by: Record<string, number>;
  variants: Record<string, number>;
  matched_rules: Record<string, number>;
  reasons: Record<string, number>;
}

export interface BudgetStatus {
  spent_usd: number;
  reserved_usd: number;
  remaining_usd: number;
  period_start: string;
  period_end: string | null;
  exceeded: boolean;
  forecast_usd: number;
}

export interface Budget {
  id: string;
  name: string;
  scope: { type: string; id?: string; value?: string };
  period: string;
  limit_usd: number;
  thresholds: number[];
  action: string;
  models: string[] | null;
  status: BudgetStatus | null;
  members?: Array<{ member: string; status: BudgetStatus }>;
  created_at: string;
}

export interface WebhookEndpoint {
  id: string;
  url: string;
  description: string | null;
  event_types: string[];
  active: boolean;
  disabled_reason: string | null;
  failing_since: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  /** Only in the answers to create and rotate-secret. */
  signing_secret?: string;
}

export interface WebhookDelivery {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'delivered' | 'failed';
  attempt_count: number;
  response_status: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  response_status: number | null;
  response_body: string | null;
  error: string | null;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  payload: unknown;
  response_body: string | null;
  attempts: WebhookAttempt[];
}

export interface EventType {
  type: string;
  description: string;
}

export interface CacheStats {
  project_id: string;
  entries: number;
  hits: number;
  misses: number;
  hit_rate: number | null;
  saved_cost_usd: number;
  similarity_histogram: Array<{ min: number; max: number; hits: number }>;
  shadow: {
    by_threshold: Array<{ threshold: number; would_hit: number; matched: number; false_hit_rate: number | null }>;
  };
  since: string | null;
}
