// One typed configuration object, read from SWITCHYARD_* variables. Everything has an embedded
// default so that `npm start` works with no configuration at all.
import { isAbsolute, resolve } from 'node:path';
import { parseMcpStdioCommands } from './config/mcp-gateway.ts';
import { nonEmpty, parseBool, parsePositive } from './config/parse.ts';
import { type OidcConfig, parseOidc } from './config/sso.ts';
import { parseTelemetry, parseTraceUrlTemplate, type TelemetryConfig } from './config/telemetry.ts';

export type { OidcConfig } from './config/sso.ts';
export type { TelemetryConfig } from './config/telemetry.ts';

/** `share`: each instance its share of what was left; `local`: each alone; `refuse`: 503. */
export type LimitsWithoutRedis = 'share' | 'local' | 'refuse';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  /** Absolute path; holds switchyard.db and master.key in embedded mode. */
  dataDir: string;
  /** `postgres://...` switches storage to PostgreSQL; unset means SQLite in dataDir. */
  databaseUrl: string | null;
  /** A PostgreSQL schema to create and put first on the search_path (several gateways, one database). */
  pgSchema: string | null;
  redisUrl: string | null;
  /** Names this deployment's keys and channel in a shared Redis (`sy:<prefix>:`; empty: `sy:`). */
  redisPrefix: string;
  /** What limits and budgets do while Redis is away (see README, Scale out). */
  limitsWithoutRedis: LimitsWithoutRedis;
  /** Processes serving one port on this machine (node:cluster); 1 runs the gateway in this process. */
  workers: number;
  /** Set by the primary in each worker it forks (1..workers): the worker keeps its own journal. */
  workerId: number | null;
  /** When set, this plaintext key is guaranteed to exist as an org-wide admin key. */
  adminKey: string | null;
  /** 32 bytes as base64 or hex; generated into dataDir when unset. */
  masterKey: string | null;
  logLevel: LogLevel;
  /** How often in-memory caches poll the store for changes made by other processes. */
  refreshIntervalMs: number;
  /** Until an upstream's response starts (and the longest pause inside a non-stream body). */
  upstreamTimeoutMs: number;
  /** The longest pause between two chunks of an upstream stream. */
  streamIdleTimeoutMs: number;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** Request body bytes all requests in flight may hold together. */
  bodyBudgetBytes: number;
  /** Bytes of gateway-held files one project may keep; an upload past it is refused (413). */
  fileQuotaBytes: number;
  /** The longest pause between two chunks of a request body before its connection is closed. */
  bodyIdleTimeoutMs: number;
  /** Request and response bodies kept in a log row, each, in characters. */
  logBodyMaxBytes: number;
  /** `GET /metrics` without an API key (a scraper on a private network). */
  metricsPublic: boolean;
  /** Log rows older than this many days are deleted (rollups stay). */
  logRetentionDays: number;
  /** Request and response bodies of log rows older than this many days are emptied. */
  logBodyRetentionDays: number;
  /** Audit log entries older than this many days are deleted; null keeps them (the default). */
  auditRetentionDays: number | null;
  /**
   * Refuse private and loopback destinations too (link-local and metadata always are), for webhook
   * URLs and provider base URLs alike (SWITCHYARD_DENY_PRIVATE_ADDRESSES).
   */
  webhookDenyPrivate: boolean;
  /** Raw `SWITCHYARD_WEBHOOK_RETRY_SCHEDULE`; parsed (and refused when malformed) by the webhooks feature. */
  webhookRetrySchedule: string | null;
  /** Commands a stdio MCP server may run (SWITCHYARD_MCP_STDIO_COMMANDS, comma-separated); none by default. */
  mcpStdioCommands: readonly string[];
  /** Local batches: items of one batch in flight at once. */
  batchConcurrency: number;
  /** Local batches: items of one org in flight at once in this instance, over all its batches. */
  batchOrgConcurrency: number;
  /** Local batches: jobs one batch is split into (so several instances share it), at most. */
  batchShards: number;
  /** Local batches: how long one may run before its unfinished items expire. */
  batchWindowMs: number;
  /**
   * How long a job (a webhook delivery, a batch shard, a sweep) stays held by an instance that stopped
   * renewing it: after this, another instance retakes the work of one that was killed.
   */
  jobLeaseMs: number;
  /** Background responses: the first pause before the gateway checks whether one has finished (it doubles up to 30 s). */
  responsePollMs: number;
  /** Single sign-on for the dashboard and management API; null when SWITCHYARD_OIDC_ISSUER is unset. */
  oidc: OidcConfig | null;
  /** OpenTelemetry traces; null (the default) when no OTLP endpoint is set, and then nothing of OTel loads. */
  telemetry: TelemetryConfig | null;
  /**
   * SWITCHYARD_TRACE_URL_TEMPLATE: a tracing backend's trace page with `{trace_id}` in it; the log
   * page links each traced row there. Null when unset.
   */
  traceUrlTemplate: string | null;
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const parseMs = (raw: string | null, name: string, fallback: number) =>
  parsePositive(raw, name, fallback, 'milliseconds', true);
const parseCount = (raw: string | null, name: string, fallback: number, unit: string) =>
  parsePositive(raw, name, fallback, unit, true);
const parseDays = (raw: string | null, name: string, fallback: number) =>
  parsePositive(raw, name, fallback, 'days', false);

/** Megabytes (MiB) as bytes, or the default when unset. */
function parseMb(raw: string | null, name: string, fallbackMb: number): number {
  if (raw === null) return fallbackMb * 1024 * 1024;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return Math.floor(n * 1024 * 1024);
}

function parsePort(raw: string | null): number {
  if (raw === null) return 8080;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new Error(`SWITCHYARD_PORT must be an integer between 0 and 65535, got "${raw}"`);
  }
  return n;
}

function parseLevel(raw: string | null): LogLevel {
  if (raw === null) return 'info';
  const lower = raw.toLowerCase() as LogLevel;
  if (!LEVELS.includes(lower)) throw new Error(`SWITCHYARD_LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  return lower;
}

function parseSchema(raw: string | null): string | null {
  if (raw === null) return null;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new Error(`SWITCHYARD_DATABASE_SCHEMA must be a lower-case SQL identifier, got "${raw}"`);
  return raw;
}

function parseRedisPrefix(raw: string | null): string {
  if (raw === null) return '';
  if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(raw))
    throw new Error(`SWITCHYARD_REDIS_PREFIX must be 1-64 letters, digits or _ : . -, got "${raw}"`);
  return raw;
}

function parseLimitsWithoutRedis(raw: string | null): LimitsWithoutRedis {
  if (raw === null) return 'share';
  if (raw === 'share' || raw === 'local' || raw === 'refuse') return raw;
  throw new Error(`SWITCHYARD_LIMITS_WITHOUT_REDIS must be share, local or refuse, got "${raw}"`);
}

function parseDatabaseUrl(raw: string | null): string | null {
  if (raw === null) return null;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new Error('SWITCHYARD_DATABASE_URL must start with postgres:// (leave it unset for embedded SQLite)');
  }
  return raw;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? nonEmpty(env.SWITCHYARD_DATA_DIR) ?? './data';
  return {
    port: overrides.port ?? parsePort(nonEmpty(env.SWITCHYARD_PORT)),
    host: overrides.host ?? nonEmpty(env.SWITCHYARD_HOST) ?? '127.0.0.1',
    dataDir: isAbsolute(dataDir) ? dataDir : resolve(process.cwd(), dataDir),
    databaseUrl:
      overrides.databaseUrl !== undefined
        ? overrides.databaseUrl
        : parseDatabaseUrl(nonEmpty(env.SWITCHYARD_DATABASE_URL)),
    pgSchema:
      overrides.pgSchema !== undefined ? overrides.pgSchema : parseSchema(nonEmpty(env.SWITCHYARD_DATABASE_SCHEMA)),
    redisUrl: overrides.redisUrl !== undefined ? overrides.redisUrl : nonEmpty(env.SWITCHYARD_REDIS_URL),
    redisPrefix: overrides.redisPrefix ?? parseRedisPrefix(nonEmpty(env.SWITCHYARD_REDIS_PREFIX)),
    limitsWithoutRedis:
      overrides.limitsWithoutRedis ?? parseLimitsWithoutRedis(nonEmpty(env.SWITCHYARD_LIMITS_WITHOUT_REDIS)),
    workers: overrides.workers ?? parseCount(nonEmpty(env.SWITCHYARD_WORKERS), 'SWITCHYARD_WORKERS', 1, 'processes'),
    workerId:
      overrides.workerId !== undefined
        ? overrides.workerId
        : nonEmpty(env.SWITCHYARD_WORKER_ID) === null
          ? null
          : parseCount(nonEmpty(env.SWITCHYARD_WORKER_ID), 'SWITCHYARD_WORKER_ID', 1, 'worker id'),
    adminKey: overrides.adminKey !== undefined ? overrides.adminKey : nonEmpty(env.SWITCHYARD_ADMIN_KEY),
    masterKey: overrides.masterKey !== undefined ? overrides.masterKey : nonEmpty(env.SWITCHYARD_MASTER_KEY),
    logLevel: overrides.logLevel ?? parseLevel(nonEmpty(env.SWITCHYARD_LOG_LEVEL)),
    refreshIntervalMs: overrides.refreshIntervalMs ?? 500,
    maxBodyBytes: overrides.maxBodyBytes ?? parseMb(nonEmpty(env.SWITCHYARD_MAX_BODY_MB), 'SWITCHYARD_MAX_BODY_MB', 32),
    bodyBudgetBytes:
      overrides.bodyBudgetBytes ?? parseMb(nonEmpty(env.SWITCHYARD_BODY_BUDGET_MB), 'SWITCHYARD_BODY_BUDGET_MB', 96),
    fileQuotaBytes:
      overrides.fileQuotaBytes ?? parseMb(nonEmpty(env.SWITCHYARD_FILE_QUOTA_MB), 'SWITCHYARD_FILE_QUOTA_MB', 1024),
    logBodyMaxBytes:
      overrides.logBodyMaxBytes ??
      parseMb(nonEmpty(env.SWITCHYARD_LOG_BODY_MAX_KB), 'SWITCHYARD_LOG_BODY_MAX_KB', 64) / 1024,
    metricsPublic:
      overrides.metricsPublic ?? parseBool(nonEmpty(env.SWITCHYARD_METRICS_PUBLIC), 'SWITCHYARD_METRICS_PUBLIC', false),
    logRetentionDays:
      overrides.logRetentionDays ??
      parseDays(nonEmpty(env.SWITCHYARD_LOG_RETENTION_DAYS), 'SWITCHYARD_LOG_RETENTION_DAYS', 30),
    logBodyRetentionDays:
      overrides.logBodyRetentionDays ??
      parseDays(nonEmpty(env.SWITCHYARD_LOG_BODY_RETENTION_DAYS), 'SWITCHYARD_LOG_BODY_RETENTION_DAYS', 7),
    auditRetentionDays:
      overrides.auditRetentionDays !== undefined
        ? overrides.auditRetentionDays
        : nonEmpty(env.SWITCHYARD_AUDIT_RETENTION_DAYS) === null
          ? null
          : parseDays(nonEmpty(env.SWITCHYARD_AUDIT_RETENTION_DAYS), 'SWITCHYARD_AUDIT_RETENTION_DAYS', 0),
    webhookDenyPrivate:
      overrides.webhookDenyPrivate ??
      // The older name, from when only webhooks were held to the policy, still works.
      parseBool(
        nonEmpty(env.SWITCHYARD_DENY_PRIVATE_ADDRESSES) ?? nonEmpty(env.SWITCHYARD_WEBHOOK_DENY_PRIVATE),
        'SWITCHYARD_DENY_PRIVATE_ADDRESSES',
        false,
      ),
    webhookRetrySchedule:
      overrides.webhookRetrySchedule !== undefined
        ? overrides.webhookRetrySchedule
        : nonEmpty(env.SWITCHYARD_WEBHOOK_RETRY_SCHEDULE),
    mcpStdioCommands: overrides.mcpStdioCommands ?? parseMcpStdioCommands(env),
    upstreamTimeoutMs:
      overrides.upstreamTimeoutMs ??
      parseMs(nonEmpty(env.SWITCHYARD_UPSTREAM_TIMEOUT_MS), 'SWITCHYARD_UPSTREAM_TIMEOUT_MS', 300_000),
    streamIdleTimeoutMs:
      overrides.streamIdleTimeoutMs ??
      parseMs(nonEmpty(env.SWITCHYARD_STREAM_IDLE_TIMEOUT_MS), 'SWITCHYARD_STREAM_IDLE_TIMEOUT_MS', 60_000),
    bodyIdleTimeoutMs:
      overrides.bodyIdleTimeoutMs ??
      parseMs(nonEmpty(env.SWITCHYARD_BODY_IDLE_TIMEOUT_MS), 'SWITCHYARD_BODY_IDLE_TIMEOUT_MS', 15_000),
    batchConcurrency:
      overrides.batchConcurrency ??
      parseCount(nonEmpty(env.SWITCHYARD_BATCH_CONCURRENCY), 'SWITCHYARD_BATCH_CONCURRENCY', 8, 'items'),
    batchOrgConcurrency:
      overrides.batchOrgConcurrency ??
      parseCount(nonEmpty(env.SWITCHYARD_BATCH_ORG_CONCURRENCY), 'SWITCHYARD_BATCH_ORG_CONCURRENCY', 32, 'items'),
    batchShards:
      overrides.batchShards ?? parseCount(nonEmpty(env.SWITCHYARD_BATCH_SHARDS), 'SWITCHYARD_BATCH_SHARDS', 4, 'jobs'),
    batchWindowMs:
      overrides.batchWindowMs ??
      parsePositive(nonEmpty(env.SWITCHYARD_BATCH_WINDOW_HOURS), 'SWITCHYARD_BATCH_WINDOW_HOURS', 24, 'hours', false) *
        3_600_000,
    jobLeaseMs:
      overrides.jobLeaseMs ?? parseMs(nonEmpty(env.SWITCHYARD_JOB_LEASE_MS), 'SWITCHYARD_JOB_LEASE_MS', 30_000),
    responsePollMs:
      overrides.responsePollMs ??
      parseMs(nonEmpty(env.SWITCHYARD_RESPONSE_POLL_MS), 'SWITCHYARD_RESPONSE_POLL_MS', 2_000),
    oidc: overrides.oidc !== undefined ? overrides.oidc : parseOidc(env),
    telemetry: overrides.telemetry !== undefined ? overrides.telemetry : parseTelemetry(env),
    traceUrlTemplate:
      overrides.traceUrlTemplate !== undefined
        ? overrides.traceUrlTemplate
        : parseTraceUrlTemplate(nonEmpty(env.SWITCHYARD_TRACE_URL_TEMPLATE)),
  };
}
