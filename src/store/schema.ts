// Table shapes as kysely sees them. Timestamps are ISO-8601 text; JSON is text (both dialects).
export interface MetaTable {
  key: string;
  value: string;
}

export interface OrgsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  project_id: string | null;
  name: string;
  key_hash: string;
  prefix: string;
  /** JSON text of the key's RateLimits ({rpm, tpm, concurrency}); null for none (migration 070). */
  rate_limits: string | null;
  created_at: string;
  updated_at: string;
  revoked_at: string | null;
  /** JSON array of model patterns; null = every model (migration 150, as are the columns below). */
  allowed_models: string | null;
  expires_at: string | null;
  /** JSON object of string to string; null = none. */
  metadata: string | null;
  last_used_at: string | null;
  /** The hash a rotation replaced; its plaintext works until previous_key_expires_at. */
  previous_key_hash: string | null;
  previous_key_expires_at: string | null;
  /** admin | developer | viewer | inference (migration 175); null reads as the scope's default. */
  role: string | null;
  /** JSON array of `<server>__<tool>` patterns for /mcp/v1; null = every tool (migration 198). */
  allowed_tools: string | null;
}

export interface ProjectsTable {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  description: string | null;
  settings: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface ProviderCredentialsTable {
  id: string;
  org_id: string;
  /** The vendor string exactly as the caller sent it (an alias stays an alias). */
  vendor: string;
  /** Canonical vendor id. */
  vendor_id: string;
  name: string;
  base_url: string | null;
  key_ciphertext: string;
  /** Share of the vendor's traffic among the org's credentials of that vendor; 0 = standby. */
  weight: number;
  status: string;
  verified_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface RequestLogsTable {
  id: string;
  request_type: string;
  org_id: string;
  project_id: string | null;
  api_key_id: string | null;
  end_user: string | null;
  tags: string | null;
  trace_id: string | null;
  conversation_id: string | null;
  model_requested: string | null;
  model_used: string | null;
  provider: string | null;
  credential_id: string | null;
  status_code: number;
  latency_ms: number;
  ttfb_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
  cost_usd: number | null;
  error: string | null;
  decision_trace: string | null;
  request_body: string | null;
  response_body: string | null;
  /** `hit` / `miss` when the project's semantic cache was consulted, else null. */
  cache: string | null;
  /** The request id a replay re-ran. */
  replay_of: string | null;
  /** Cache hits: what the upstream call behind the served entry cost (migration 090). */
  saved_cost_usd: number;
  /** Similarity of the entry served, or in shadow mode of the would-be hit. */
  cache_similarity: number | null;
  /** Shadow mode's would-be hits: 1 when the fresh answer matched the cached one, else 0. */
  cache_shadow_match: number | null;
  /** The OpenTelemetry trace the call was recorded in, 32 hex digits (migration 190); null when not traced. */
  otel_trace_id: string | null;
  /** The call's strongest guardrail action (migration 205): block, mask, flag or shadow_<action>; null when none. */
  guardrail_action: string | null;
  created_at: string;
}

export interface Database {
  switchyard_meta: MetaTable;
  orgs: OrgsTable;
  api_keys: ApiKeysTable;
  projects: ProjectsTable;
  provider_credentials: ProviderCredentialsTable;
  request_logs: RequestLogsTable;
}
