// What every management operation and route handler reads: the stores, the live mirrors and the
// writers of one gateway instance. Built by src/services.ts (the composition root).
import type { Logger } from 'pino';
import type { SemanticCache } from '../cache/service.ts';
import type { Config, LimitsWithoutRedis } from '../config.ts';
import type { SecretBox } from '../crypto/secretbox.ts';
import type { GuardrailRuntime } from '../guardrails/runtime.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { Limits } from '../limits/service.ts';
import type { CredentialMirror } from '../live/credentials.ts';
import type { ModelSettingsMirror } from '../live/models.ts';
import type { PrincipalMirror } from '../live/principals.ts';
import type { ProjectMirror } from '../live/projects.ts';
import type { RoutingConfigMirror } from '../live/routing-configs.ts';
import type { LogRetention } from '../logs/retention.ts';
import type { RequestLogSink } from '../logs/writer.ts';
import type { McpGateway } from '../mcp-gateway/gateway.ts';
import type { Metrics } from '../metrics/registry.ts';
import type { PipelineDeps } from '../pipeline/deps.ts';
import type { PipelineHooks } from '../pipeline/hooks.ts';
import type { HealthSample } from '../pipeline/types.ts';
import type { ChangeBus } from '../ports/change-bus.ts';
import type { Credential, VendorId } from '../providers/types.ts';
import type { VerifyResult } from '../providers/verify.ts';
import type { HealthTracker } from '../routing/health.ts';
import type { CompiledStrategy, StrategyName } from '../routing/types.ts';
import type { BootstrapResult } from '../store/bootstrap.ts';
import type { Db, Dialect } from '../store/db.ts';
import type { FileBlobs } from '../store/file-blobs.ts';
import type { Stores } from '../store/index.ts';
import type { Webhooks } from '../webhooks/service.ts';

export type { VerifyResult } from '../providers/verify.ts';

/** Checks a provider key with the vendor's cheapest authenticated call before it is stored. */
export type KeyVerifier = (vendor: VendorId, credential: Credential) => Promise<VerifyResult>;

/** Routing configs as the proxy uses them (routing/types.ts `ActiveConfig`). */
export type RoutingConfigs = RoutingConfigMirror<CompiledStrategy, StrategyName>;

export interface RoutingState {
  /** Live configs by (org, slug): `get(orgId, slug)`. */
  configs: RoutingConfigs;
  /** Candidate health of this instance. */
  health: HealthTracker;
}

/** How this instance shares state with others (GET /healthz, metrics). */
export interface ClusterStatus {
  /** Off without SWITCHYARD_REDIS_URL; else whether counters and change events go through Redis right now. */
  counters: 'off' | 'redis' | 'local';
  changes: 'off' | 'redis' | 'local';
  /** This process's number under SWITCHYARD_WORKERS; null when it is the only one. */
  workerId: number | null;
  /** SWITCHYARD_LIMITS_WITHOUT_REDIS, and the admissions answered without Redis since start. */
  limits: { withoutRedis: LimitsWithoutRedis; admittedWithoutRedis: number; refusedWithoutRedis: number };
}

export interface Services {
  config: Config;
  cluster: ClusterStatus;
  /** Scale-out mode: hands this instance's health samples to the others (theirs arrive by themselves). */
  shareHealth: ((s: HealthSample) => void) | undefined;
  logger: Logger;
  db: Db;
  dialect: Dialect;
  stores: Stores;
  secrets: SecretBox;
  /** Every store write that changes what the proxy sees is published here; the mirrors below listen. */
  changes: ChangeBus;
  /** API key -> principal, from memory. */
  principals: PrincipalMirror;
  /** Decrypted provider credentials, from memory: `resolve(orgId, vendor)`, `get(orgId, id)`. */
  credentials: CredentialMirror;
  /** Projects and their settings, from memory: `cached(projectId)`. */
  projects: ProjectMirror;
  /** Model aliases and price overrides per org, from memory: `alias(orgId, name)`, `price(orgId, vendor, model)`. */
  models: ModelSettingsMirror;
  /** Request log writer: `enqueue(row)` (never awaited), `flush()`. */
  logs: RequestLogSink;
  /** Deletes old log rows and bodies (at start, daily); `sweep()` runs one now. */
  retention: LogRetention;
  keyVerifier: KeyVerifier;
  /** Routing configs (mirrored by slug) and candidate health. */
  routing: RoutingState;
  bootstrap: BootstrapResult;
  /** The pipeline's hooks (registered by buildApp), also used by management calls that run it. */
  hooks: PipelineHooks;
  /** The pipeline every flow runs on (its hooks are `hooks`). */
  pipeline: PipelineDeps;
  /** The /metrics registry; later features register their own metrics on it. */
  metrics: Metrics;
  /** Durable jobs: `register(kind, handler)` (starts the runner), `enqueue({kind, payload})`. */
  jobs: JobRunner;
  /** Batch jobs have their own runner: long shard runs must not hold up webhook deliveries. */
  batchJobs: JobRunner;
  /** Webhook dispatch and delivery: sealing secrets, test sends, the delivery job's spec. */
  webhooks: Webhooks;
  /** Budget spend as the limits feature counts it: status, members, rebuild after a budget changes. */
  limits: Limits;
  /** The semantic cache: its entries in memory, purge, and the hook the proxy consults. */
  cache: SemanticCache;
  /** Guardrail policies in memory, the webhook check client, `guardrail.blocked` and the verdict counter. */
  guardrails: GuardrailRuntime;
  /** Registered MCP tool servers behind /mcp/v1: connections, tool lists, calls. */
  mcpGateway: McpGateway;
  /** The bytes of gateway-held files (data dir, or the database with PostgreSQL). */
  fileBlobs: FileBlobs;
  /** Stops the mirrors, flushes the log writer and closes the database and the change bus. */
  close(): Promise<void>;
}
