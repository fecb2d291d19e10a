// One typed configuration object, read from SWITCHYARD_* variables. Everything has an embedded
// default so that `npm start` works with no configuration at all.
import { isAbsolute, resolve } from 'node:path';
import { isRole, ROLES, type Role } from './ports/roles.ts';

/** `share`: each instance its share of what was left; `local`: each alone; `refuse`: 503. */
export type LimitsWithoutRedis = 'share' | 'local' | 'refuse';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Single sign-on through an OpenID provider (SWITCHYARD_OIDC_*). */
export interface OidcConfig {
  /** The provider's issuer URL; its discovery document is read from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
  clientId: string;
  /** Null for a public client (PKCE alone proves the code's owner). */
  clientSecret: string | null;
  /** The ID token claim whose values pick the role (a string or an array of strings). */
  roleClaim: string;
  /** Claim value -> role; the most powerful role any value maps to wins, and no match refuses the sign-in. */
  roleMap: Record<string, Role>;
  /** An ID token claim naming the one project (id or slug) a user is bound to; null binds no one. */
  projectClaim: string | null;
  /** Where the provider sends the browser back; null derives `<scheme>://<host>/sso/callback` from the request. */
  redirectUrl: string | null;
  /** How long a dashboard session lasts after sign-in. */
  sessionTtlMs: number;
}

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

/** From the standard OTEL_* variables, read here so that tests and the CLI pass them like any setting. */
export interface TelemetryConfig {
  /** http/protobuf: the full traces URL (`.../v1/traces`); grpc: the collector's address. */
  tracesUrl: string;
  protocol: 'http/protobuf' | 'grpc';
  headers: Record<string, string>;
  serviceName: string;
  resourceAttributes: Record<string, string>;
  /** OTEL_TRACES_SAMPLER as named by the spec (`parentbased_always_on` by default). */
  sampler: string;
  /** OTEL_TRACES_SAMPLER_ARG for the ratio samplers. */
  samplerRatio: number;
  /** Vendors whose upstream requests carry no `traceparent` (SWITCHYARD_OTEL_NO_PROPAGATION; `*`: all). */
  noPropagation: readonly string[];
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: how long one export may take before it counts as failed. */
  timeoutMs: number;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: input and output messages on the server span. */
  captureContent: boolean;
  /** False with OTEL_TRACES_EXPORTER=none (metrics only). */
  traces: boolean;
  /** OTEL_METRICS_EXPORTER=otlp: the metrics URL (`.../v1/metrics`, over http/protobuf); null when off. */
  metricsUrl: string | null;
  /** OTEL_METRIC_EXPORT_INTERVAL: how often metrics are sent. */
  metricsIntervalMs: number;
}

const LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function nonEmpty(v: string | undefined): string | null {
  return v !== undefined && v.trim() !== '' ? v.trim() : null;
}

/**
 * A positive number of `unit` (`whole`: an integer), or the default when unset. One rule for every
 * count, duration and period setting, so each names its own unit when it refuses a value.
 */
function parsePositive(raw: string | null, name: string, fallback: number, unit: string, whole: boolean): number {
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!(whole ? Number.isInteger(n) : Number.isFinite(n)) || n <= 0)
    throw new Error(`${name} must be a positive ${whole ? 'whole ' : ''}number of ${unit}, got "${raw}"`);
  return n;
}

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

/** `true`/`false` (also `1`/`0`, `yes`/`no`, any case), or the default when unset. */
function parseBool(raw: string | null, name: string, fallback: boolean): boolean {
  if (raw === null) return fallback;
  const v = raw.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
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

/** `value=role` pairs separated by commas, e.g. `sy-admins=admin,sy-readers=viewer`. */
function parseRoleMap(raw: string | null): Record<string, Role> {
  const name = 'SWITCHYARD_OIDC_ROLE_MAP';
  if (raw === null) throw new Error(`${name} must map at least one claim value to a role (e.g. "admins=admin")`);
  const map: Record<string, Role> = {};
  for (const pair of raw.split(',')) {
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim();
    if (at <= 0 || value === '' || !isRole(role))
      throw new Error(
        `${name} entries must be claim-value=role with role one of ${ROLES.join(', ')}, got "${pair.trim()}"`,
      );
    map[value] = role;
  }
  return map;
}

function parseOidc(env: NodeJS.ProcessEnv): OidcConfig | null {
  const issuer = nonEmpty(env.SWITCHYARD_OIDC_ISSUER);
  if (issuer === null) return null;
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`SWITCHYARD_OIDC_ISSUER must be a URL, got "${issuer}"`);
  }
  // Plain http lets anyone on the path forge the provider's answers; only a provider on this machine may use it.
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    throw new Error('SWITCHYARD_OIDC_ISSUER must be an https:// URL (http:// only for a provider on localhost)');
  const clientId = nonEmpty(env.SWITCHYARD_OIDC_CLIENT_ID);
  if (clientId === null) throw new Error('SWITCHYARD_OIDC_CLIENT_ID is required when SWITCHYARD_OIDC_ISSUER is set');
  const redirectUrl = nonEmpty(env.SWITCHYARD_OIDC_REDIRECT_URL);
  if (redirectUrl !== null && !/^https?:\/\/[^/]+\/sso\/callback$/.test(redirectUrl))
    throw new Error(`SWITCHYARD_OIDC_REDIRECT_URL must be <scheme>://<host>/sso/callback, got "${redirectUrl}"`);
  return {
    issuer,
    clientId,
    clientSecret: nonEmpty(env.SWITCHYARD_OIDC_CLIENT_SECRET),
    roleClaim: nonEmpty(env.SWITCHYARD_OIDC_ROLE_CLAIM) ?? 'groups',
    roleMap: parseRoleMap(nonEmpty(env.SWITCHYARD_OIDC_ROLE_MAP)),
    projectClaim: nonEmpty(env.SWITCHYARD_OIDC_PROJECT_CLAIM),
    redirectUrl,
    sessionTtlMs:
      parsePositive(nonEmpty(env.SWITCHYARD_SESSION_HOURS), 'SWITCHYARD_SESSION_HOURS', 12, 'hours', false) * 3_600_000,
  };
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
    mcpStdioCommands:
      overrides.mcpStdioCommands ??
      (nonEmpty(env.SWITCHYARD_MCP_STDIO_COMMANDS) ?? '')
        .split(',')
        .map((c) => c.trim())
        .filter((c) => c !== ''),
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

function parseTraceUrlTemplate(raw: string | null): string | null {
  if (raw === null) return null;
  if (!raw.includes('{trace_id}') || !/^https?:\/\//.test(raw))
    throw new Error(`SWITCHYARD_TRACE_URL_TEMPLATE must be an http(s) URL with {trace_id} in it, got "${raw}"`);
  return raw;
}

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

/** `k=v,k2=v2` with percent-encoded values, as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES are. */
function parseOtelPairs(raw: string | null, name: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of raw === null ? [] : raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`${name} entries must be key=value, got "${pair.trim()}"`);
    out[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return out;
}

function parseTelemetry(env: NodeJS.ProcessEnv): TelemetryConfig | null {
  const traces = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  const base = nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if ((traces === null && base === null) || parseBool(nonEmpty(env.OTEL_SDK_DISABLED), 'OTEL_SDK_DISABLED', false))
    return null;
  const protocol =
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'grpc')
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or grpc, got "${protocol}"`);
  const sampler = (nonEmpty(env.OTEL_TRACES_SAMPLER) ?? 'parentbased_always_on').toLowerCase();
  if (!SAMPLERS.includes(sampler))
    throw new Error(`OTEL_TRACES_SAMPLER must be one of ${SAMPLERS.join(', ')}, got "${sampler}"`);
  const ratioRaw = nonEmpty(env.OTEL_TRACES_SAMPLER_ARG);
  const ratio = ratioRaw === null ? 1 : Number(ratioRaw);
  if (!(ratio >= 0 && ratio <= 1))
    throw new Error(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1, got "${ratioRaw}"`);
  // The signal-specific variable is the URL as it is; the general one is a base the path is added to.
  const signalUrl = (own: string | null, path: string) =>
    own ?? (protocol === 'grpc' ? (base as string) : `${(base as string).replace(/\/+$/, '')}/${path}`);
  const tracesUrl = signalUrl(traces, 'v1/traces');
  const timeoutRaw = nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT) ?? nonEmpty(env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const timeoutMs = timeoutRaw === null ? 10_000 : Number(timeoutRaw);
  if (!(Number.isInteger(timeoutMs) && timeoutMs > 0))
    throw new Error(`OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds, got "${timeoutRaw}"`);
  const metricsExporter = (nonEmpty(env.OTEL_METRICS_EXPORTER) ?? 'none').toLowerCase();
  if (metricsExporter !== 'none' && metricsExporter !== 'otlp')
    throw new Error(`OTEL_METRICS_EXPORTER must be otlp or none, got "${metricsExporter}"`);
  const metricsOwn = nonEmpty(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  if (metricsExporter === 'otlp' && metricsOwn === null && base === null)
    throw new Error(
      'OTEL_METRICS_EXPORTER=otlp needs OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT',
    );
  // Metrics go over http/protobuf only: a grpc base address would be the wrong port for them.
  if (metricsExporter === 'otlp' && metricsOwn === null && protocol === 'grpc')
    throw new Error(
      'OTEL_METRICS_EXPORTER=otlp with grpc traces needs OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (http/protobuf)',
    );
  const tracesExporter = (nonEmpty(env.OTEL_TRACES_EXPORTER) ?? 'otlp').toLowerCase();
  if (tracesExporter !== 'none' && tracesExporter !== 'otlp')
    throw new Error(`OTEL_TRACES_EXPORTER must be otlp or none, got "${tracesExporter}"`);
  const intervalRaw = nonEmpty(env.OTEL_METRIC_EXPORT_INTERVAL);
  const metricsIntervalMs = intervalRaw === null ? 60_000 : Number(intervalRaw);
  if (!(Number.isInteger(metricsIntervalMs) && metricsIntervalMs > 0))
    throw new Error(`OTEL_METRIC_EXPORT_INTERVAL must be a whole number of milliseconds, got "${intervalRaw}"`);
  if (tracesExporter === 'none' && metricsExporter === 'none') return null;
  return {
    tracesUrl,
    protocol,
    headers: {
      ...parseOtelPairs(nonEmpty(env.OTEL_EXPORTER_OTLP_HEADERS), 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseOtelPairs(nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS), 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
    },
    serviceName: nonEmpty(env.OTEL_SERVICE_NAME) ?? 'switchyard',
    resourceAttributes: parseOtelPairs(nonEmpty(env.OTEL_RESOURCE_ATTRIBUTES), 'OTEL_RESOURCE_ATTRIBUTES'),
    sampler,
    samplerRatio: ratio,
    noPropagation: (nonEmpty(env.SWITCHYARD_OTEL_NO_PROPAGATION) ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter((v) => v !== ''),
    timeoutMs,
    captureContent: parseBool(
      nonEmpty(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
      'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT',
      false,
    ),
    traces: tracesExporter === 'otlp',
    metricsUrl:
      metricsExporter !== 'otlp' ? null : (metricsOwn ?? `${(base as string).replace(/\/+$/, '')}/v1/metrics`),
    metricsIntervalMs,
  };
}
