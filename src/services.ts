// Everything a route handler needs, created once per gateway instance by buildApp().
import { join } from 'node:path';
import type { DestinationStream, Logger } from 'pino';
import { SemanticCache } from './cache/service.ts';
import { createChangeBus, createCounters, createFeed } from './cluster/index.ts';
import type { Config } from './config.ts';
import { loadMasterKey } from './crypto/master-key.ts';
import { SecretBox } from './crypto/secretbox.ts';
import { GuardrailRuntime } from './guardrails/runtime.ts';
import { runEvery } from './jobs/recurring.ts';
import { JobRunner } from './jobs/runner.ts';
import { rateLimitsOf } from './limits/checks.ts';
import { Limits } from './limits/service.ts';
import { BudgetMirror } from './live/budgets.ts';
import { CredentialMirror } from './live/credentials.ts';
import { ModelSettingsMirror } from './live/models.ts';
import { PrincipalMirror } from './live/principals.ts';
import { ProjectMirror } from './live/projects.ts';
import { type ConfigCompiler, RoutingConfigMirror } from './live/routing-configs.ts';
import { JournaledSink } from './logs/journal.ts';
import { LogRetention } from './logs/retention.ts';
import { WorkerLogWriter } from './logs/worker-writer.ts';
import { LogWriter, type RequestLogSink } from './logs/writer.ts';
import { liveStateOf, priceOverrideOf } from './manage/live-state.ts';
import type { ClusterStatus, KeyVerifier, Services } from './manage/services.ts';
import { recordHealthChange } from './mcp-gateway/events.ts';
import { McpGateway } from './mcp-gateway/gateway.ts';
import { mcpGatewayMetrics } from './mcp-gateway/metrics.ts';
import { GuardrailVerdictCounter } from './metrics/guardrails.ts';
import { Metrics } from './metrics/registry.ts';
import { type PipelineDeps, pipelineDeadlines } from './pipeline/deps.ts';
import { applyHealthSample } from './pipeline/health-hook.ts';
import { PipelineHooks } from './pipeline/hooks.ts';
import type { HealthSample } from './pipeline/types.ts';
import { HealthTracker } from './routing/health.ts';
import { compileStrategy, strategyName } from './routing/normalize.ts';
import type { CompiledStrategy, StrategyName } from './routing/types.ts';
import { bootstrap } from './store/bootstrap.ts';
import { createFileBlobs } from './store/file-blobs.ts';
import { openStore, type Stores } from './store/index.ts';
import { createLogger } from './util/logger.ts';
import { parseRetrySchedule } from './webhooks/retry-schedule.ts';
import { Webhooks } from './webhooks/service.ts';
import { sign } from './webhooks/signing.ts';

export type { KeyVerifier, Services, VerifyResult } from './manage/services.ts';

export interface ServiceOptions {
  keyVerifier?: KeyVerifier;
  logDestination?: DestinationStream;
  logger?: Logger;
}

const MASTER_KEY_CHECK = 'master_key_check';
/** How long a start waits for Redis before it goes on with this instance's own counters. */
const REDIS_START_WAIT_MS = 3000;

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
}

// The real verifier lives with the provider adapters; loading it lazily keeps the management
// plane usable (and its tests fast) without pulling every adapter in at start.
function defaultVerifier(denyPrivate: boolean): KeyVerifier {
  return async (vendor, credential) => {
    const mod = await import('./providers/verify.ts');
    return mod.verifyProviderKey(vendor, credential, { denyPrivate });
  };
}

/** How a stored routing config becomes what the planner runs (the live mirror does not know routing). */
const compileConfig: ConfigCompiler<CompiledStrategy, StrategyName> = (strategy, config) => {
  const name = strategyName(strategy);
  return { strategy: name, compiled: compileStrategy(name, config) };
};

async function checkMasterKey(stores: Stores, box: SecretBox): Promise<void> {
  const sealed = await stores.orgKeys.getMeta(MASTER_KEY_CHECK);
  if (sealed === undefined) {
    await stores.orgKeys.setMeta(MASTER_KEY_CHECK, box.encrypt('switchyard', MASTER_KEY_CHECK));
    return;
  }
  try {
    box.decrypt(sealed, MASTER_KEY_CHECK);
  } catch {
    throw new Error(
      'SWITCHYARD_MASTER_KEY does not match the key this database was created with; provider credentials cannot be decrypted',
    );
  }
}

export async function createServices(config: Config, opts: ServiceOptions = {}): Promise<Services> {
  const logger = opts.logger ?? createLogger(config.logLevel, opts.logDestination);
  const master = loadMasterKey(config);
  if (master.source === 'generated') {
    logger.info({ path: master.path }, 'generated a new master key for provider credentials (mode 0600)');
    if (config.databaseUrl !== null) {
      logger.warn('SWITCHYARD_MASTER_KEY is unset with PostgreSQL: every instance must share the same master key');
    }
  }
  const secrets = new SecretBox(master.key);
  const redis = config.redisUrl !== null;
  const cluster: ClusterStatus = {
    counters: redis ? 'local' : 'off',
    changes: redis ? 'local' : 'off',
    workerId: config.workerId,
    limits: { withoutRedis: config.limitsWithoutRedis, admittedWithoutRedis: 0, refusedWithoutRedis: 0 },
  };
  const changes = await createChangeBus(config, logger, {
    keyPrefix: config.redisPrefix,
    onStateChange: (s) => {
      cluster.changes = s;
    },
  });
  const handle = await openStore(config, { changes }).catch(async (err: unknown) => {
    await changes.close();
    throw err;
  });
  const { stores } = handle;
  try {
    await checkMasterKey(stores, secrets);
    const boot = await bootstrap(stores, config);

    // Each mirror subscribes before it loads, so a change committed during the load is not lost.
    const interval = config.refreshIntervalMs;
    const principals = new PrincipalMirror(stores.orgKeys, changes, logger, interval);
    const credentials = new CredentialMirror(stores.credentials, secrets, changes, logger, interval);
    const projects = new ProjectMirror(stores.projects, changes, logger, interval);
    const configs = new RoutingConfigMirror(stores.routingConfigs, changes, compileConfig, logger, interval);
    const budgets = new BudgetMirror(stores.budgets, changes, logger, interval);
    const models = new ModelSettingsMirror(stores.modelSettings, changes, logger, interval);
    const mirrors = [principals, credentials, projects, configs, budgets, models];
    try {
      await Promise.all([credentials.start(), projects.start(), configs.start(), budgets.start(), models.start()]);
    } catch (err) {
      for (const m of mirrors) m.stop();
      throw err;
    }
    // SQLite inserts cost CPU on whichever thread runs them, so that mode writes logs from a worker.
    const inThread = new LogWriter(stores.logs, logger);
    const writer: RequestLogSink =
      handle.dialect === 'sqlite' ? new WorkerLogWriter(handle.where, logger, inThread) : inThread;
    const logs = await JournaledSink.open(
      // Each worker of one machine keeps its own journal: two processes must never replay one file.
      join(config.dataDir, config.workerId === null ? 'journal' : `journal-w${config.workerId}`),
      writer,
      logger,
    );
    const counters = await createCounters(config, {
      logger,
      keyPrefix: config.redisPrefix,
      onStateChange: (s) => {
        cluster.counters = s;
      },
      onWithoutRedis: (outcome) => {
        if (outcome === 'admitted') cluster.limits.admittedWithoutRedis++;
        else cluster.limits.refusedWithoutRedis++;
      },
    });
    // Spend is seeded into Redis below: wait (briefly) for it, or the seeds land only in this instance.
    if (redis) await until(() => cluster.counters === 'redis', REDIS_START_WAIT_MS);
    // One registry per gateway, made here so that features built here count into it from the start.
    const metrics = new Metrics();
    const refusals = metrics.tally<'kind'>({
      name: 'switchyard_limit_refusals_total',
      help: 'Calls refused by a rate limit (rpm, tpm, concurrency) or a budget',
      labelNames: ['kind'],
    });
    const refusalSeries = {
      rpm: refusals.series({ kind: 'rpm' }),
      tpm: refusals.series({ kind: 'tpm' }),
      concurrency: refusals.series({ kind: 'concurrency' }),
      budget: refusals.series({ kind: 'budget' }),
      unavailable: refusals.series({ kind: 'unavailable' }),
    };
    const limits = new Limits({
      counters,
      budgets,
      projects,
      config: (orgId, slug) => configs.get(orgId, slug),
      prices: priceOverrideOf(models),
      budgetStore: stores.budgets,
      spendSince: (q) => stores.logs.spendSince(q),
      logger,
      onRefusal: (kind) => refusalSeries[kind].inc(),
    });
    // Spend survives restarts: rebuilt from the request log, journal replay included.
    await logs.flush();
    // With Redis the shared counters may already hold more than the log shows (other instances'
    // rows not written yet): the log only raises them; without Redis it is the whole truth.
    await limits.rebuildAll(await stores.budgets.listAllLive(), { raiseOnly: redis });
    const health = new HealthTracker();
    // Built before the features that run sub-calls through it; they are registered on `hooks` by buildApp.
    const hooks = new PipelineHooks();
    const pipeline: PipelineDeps = {
      live: liveStateOf({ credentials, projects, routing: { configs, health }, models }),
      deadlines: pipelineDeadlines(config.upstreamTimeoutMs, config.streamIdleTimeoutMs),
      hooks,
      onHookError: (err) => logger.error({ err }, 'an afterResponse hook failed'),
    };
    const cache = new SemanticCache({
      store: stores.cacheEntries,
      projectSettings: (id) => {
        const p = projects.cached(id);
        return p === undefined || p.deleted ? undefined : p.settings;
      },
      logger,
      changes,
      pipeline,
    });
    await cache.start();
    const retention = new LogRetention(
      stores.logs,
      { rowDays: config.logRetentionDays, bodyDays: config.logBodyRetentionDays },
      logger,
    );
    // Idle until a feature registers a handler.
    const jobs = new JobRunner(stores.jobs, {
      logger,
      leaseMs: config.jobLeaseMs,
      reclaimLocalDeadHolders: handle.dialect === 'sqlite',
    });
    // Each batch shard holds its job while its items run, for minutes: apart from the other jobs.
    const batchJobs = new JobRunner(stores.jobs, {
      logger,
      leaseMs: config.jobLeaseMs,
      concurrency: 16,
      reclaimLocalDeadHolders: handle.dialect === 'sqlite',
    });
    const healthFeed = await createFeed<HealthSample>(config, 'health', { keyPrefix: config.redisPrefix });
    healthFeed?.onItems((items) => {
      for (const sample of items) applyHealthSample(health, sample);
    });
    const webhooks = new Webhooks(
      {
        db: handle.db,
        endpoints: stores.webhookEndpoints,
        deliveries: stores.webhookDeliveries,
        credentials: stores.credentials,
        secrets,
        logger,
      },
      { denyPrivate: config.webhookDenyPrivate, retrySchedule: parseRetrySchedule(config.webhookRetrySchedule) },
    );
    await webhooks.start(jobs);
    const verdicts = new GuardrailVerdictCounter(metrics);
    const guardrails = new GuardrailRuntime({
      db: handle.db,
      store: stores.guardrails,
      changes,
      secrets,
      logger,
      refreshIntervalMs: interval,
      denyPrivate: config.webhookDenyPrivate,
      sign,
      countVerdict: (policy, check, action) => verdicts.count(policy, check, action),
    });
    await guardrails.start();
    const mcpCounts = mcpGatewayMetrics(metrics);
    const mcpGateway = new McpGateway({
      store: stores.mcpServers,
      secrets,
      logger,
      log: (row) => logs.enqueue(row),
      keepBodies: (projectId) => (projectId ? (projects.cached(projectId)?.settings.log_bodies ?? true) : true),
      maxBodyChars: config.logBodyMaxBytes,
      counters,
      addressPolicy: { denyPrivate: config.webhookDenyPrivate },
      projectLimits: (projectId) => rateLimitsOf(projects.cached(projectId)?.settings.rate_limits),
      count: mcpCounts.count,
      // Each instance has its own connection; when several see the same transition, one tells.
      healthChanged: (server, previous, next, reason) =>
        void counters.claimOnce(`mcp-health:${server.id}:${next}`, 5000).then(
          (first) => {
            if (first) recordHealthChange(handle.db, logger, server, previous, next, reason);
          },
          (err: unknown) => logger.warn({ err }, 'could not claim an mcp health transition'),
        ),
    });
    // Sweeps are jobs with one run per period, so a cluster sweeps once, not once per instance.
    await runEvery(jobs, 'logs.retention', 24 * 60 * 60_000, async () => {
      await retention.sweep();
    });
    // Finished jobs are history only: done ones a week, dead-lettered ones a month (to inspect).
    await runEvery(jobs, 'jobs.purge', 24 * 60 * 60_000, async () => {
      const now = Date.now();
      const day = 24 * 60 * 60_000;
      const n = await stores.jobs.purge(new Date(now - 7 * day).toISOString(), new Date(now - 30 * day).toISOString());
      if (n > 0) logger.info({ jobs: n }, 'finished jobs purged');
    });
    health.credentials.onTransition((id, coolingDown, until) => {
      const orgId = credentials.orgOf(id);
      if (orgId === undefined) return;
      // Every instance sees the same shared samples and so the same transition: one of them says so.
      void counters.claimOnce(`health:${id}:${coolingDown ? 'down' : 'up'}`, 5000).then(
        (first) => {
          if (first) webhooks.credentialHealthChanged(orgId, id, coolingDown, until);
        },
        (err: unknown) => logger.warn({ err }, 'could not claim a health transition'),
      );
    });

    let closed: Promise<void> | undefined;
    return {
      config,
      cluster,
      shareHealth: healthFeed === undefined ? undefined : (sample) => healthFeed.push(sample),
      logger,
      db: handle.db,
      dialect: handle.dialect,
      stores,
      secrets,
      changes,
      principals,
      credentials,
      projects,
      models,
      logs,
      retention,
      keyVerifier: opts.keyVerifier ?? defaultVerifier(config.webhookDenyPrivate),
      routing: { configs, health },
      bootstrap: boot,
      hooks,
      pipeline,
      metrics,
      jobs,
      batchJobs,
      webhooks,
      limits,
      cache,
      guardrails,
      mcpGateway,
      fileBlobs: createFileBlobs(handle.db, handle.dialect, config.dataDir),
      close() {
        closed ??= (async () => {
          for (const m of mirrors) m.stop();
          // Handlers may still write (logs, stores): they finish or give their jobs back first.
          await Promise.all([jobs.stop(), batchJobs.stop()]);
          await webhooks.close();
          await guardrails.close();
          await mcpGateway.close();
          await cache.close();
          await retention.stop();
          await logs.close();
          await counters.close();
          await healthFeed?.close();
          await changes.close();
          await handle.close();
        })();
        return closed;
      },
    };
  } catch (err) {
    await changes.close();
    await handle.close();
    throw err;
  }
}
