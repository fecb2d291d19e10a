// Builds the gateway: services (stores, caches, log writer), the fastify instance with request ids,
// JSON parsing, validation, auth and error shapes, then the management API, OpenAPI, MCP and the
// proxy families.

import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import { guardrailsFeature } from './guardrails/pipeline.ts';
import './http/augment.ts';
import { createBatches } from './batch-wiring.ts';
import { type Config, loadConfig } from './config.ts';
import { registerAuditExport } from './http/audit-export.ts';
import { registerAuth } from './http/auth.ts';
import { batchRoutes } from './http/batch-routes.ts';
import { registerBodyBudget } from './http/body-budget.ts';
import { registerErrorHandlers } from './http/error-handler.ts';
import { filesRoutes } from './http/files-routes.ts';
import { FrontDoor } from './http/front-door.ts';
import { registerJsonParser } from './http/json-body.ts';
import { DEFAULT_LINGER_MS, registerLingeringClose } from './http/linger.ts';
import { registerLogExport } from './http/logs-export.ts';
import { registerMcpRoutes } from './http/mcp.ts';
import { registerMcpGatewayRoutes } from './http/mcp-gateway.ts';
import { registerMetricsRoute } from './http/metrics-route.ts';
import { passthroughRoutes } from './http/passthrough-routes.ts';
import { InFlight, proxyRoutes } from './http/proxy-routes.ts';
import { registerRequestIds } from './http/request-id.ts';
import { registerOperationRoutes } from './http/rest.ts';
import { rootAlias, rootDocument } from './http/root-alias.ts';
import { ssoRoutes } from './http/sso.ts';
import { SessionGate } from './http/sso-session.ts';
import { onClientError, onFrameworkError } from './http/transport-errors.ts';
import { uiRoutes } from './http/ui-routes.ts';
import { requestLogHook } from './logs/request-log-hook.ts';
import { OPERATIONS } from './manage/operations.ts';
import { PROXY_PATHS } from './manage/proxy-paths.ts';
import { registerValidators } from './manage/validation.ts';
import { Media } from './media/service.ts';
import { GatewayMetrics, metricsHook } from './metrics/gateway-metrics.ts';
import { healthHook } from './pipeline/health-hook.ts';
import { POLL_JOB, Responses } from './responses/service.ts';
import { createServices, type KeyVerifier } from './services.ts';
import { startTelemetry } from './telemetry/index.ts';
import { newId } from './util/ids.ts';

export interface BuildOptions {
  /** Overrides on top of the SWITCHYARD_* environment (tests: temp dataDir, port 0, silent logs). */
  config?: Partial<Config>;
  /** Environment to read; defaults to process.env. */
  env?: NodeJS.ProcessEnv;
  /** Replaces the real vendor key check used before a rotation (tests). */
  keyVerifier?: KeyVerifier;
  /** Where logs go (tests capture them to prove secrets never appear). */
  logDestination?: DestinationStream;
}

export async function buildApp(opts: BuildOptions = {}): Promise<FastifyInstance> {
  const config = loadConfig(opts.env ?? process.env, opts.config);
  const svc = await createServices(config, { keyVerifier: opts.keyVerifier, logDestination: opts.logDestination });
  const requestLogging = config.logLevel === 'debug' || config.logLevel === 'trace';
  const app = Fastify({
    loggerInstance: svc.logger as FastifyBaseLogger,
    // A pino child per request (to bind reqId) costs ~1.5% of a proxy call. Below debug nothing logs
    // per request except errors, which carry the request id themselves (server/error-handler.ts).
    ...(requestLogging ? {} : { childLoggerFactory: (logger: FastifyBaseLogger) => logger }),
    genReqId: () => newId('req'),
    // Bodies of proxy calls can carry base64 images; the management API's own limits are in its schemas.
    bodyLimit: config.maxBodyBytes,
    // Per-request access lines only at debug/trace: at info they would dominate a busy gateway's output.
    logController: new LogController({
      disableRequestLogging: !requestLogging,
    }),
    return503OnClosing: true,
    rewriteUrl: rootAlias,
    frameworkErrors: onFrameworkError,
    clientErrorHandler: onClientError,
  });
  app.decorate('svc', svc);
  app.decorateRequest('principal', null as unknown as never);
  app.decorateRequest('rawBody', undefined);
  app.decorateRequest('svcId', '');

  registerRequestIds(app);
  registerLingeringClose(app, { maxBytes: config.maxBodyBytes, maxMs: DEFAULT_LINGER_MS });
  registerBodyBudget(app, {
    budgetBytes: config.bodyBudgetBytes,
    maxBodyBytes: config.maxBodyBytes,
    idleMs: config.bodyIdleTimeoutMs,
  });
  registerJsonParser(app);
  registerValidators(app);
  registerErrorHandlers(app);
  // Dashboard sessions from single sign-on; API keys keep working beside them (break-glass).
  const sessions = new SessionGate(svc.stores.users);
  registerAuth(app, svc.principals, sessions);

  app.get('/healthz', async () => {
    const { counters, changes, workerId, limits } = svc.cluster;
    // Serving on this instance's own counters while Redis is away is degraded, not down.
    const degraded = counters === 'local' || changes === 'local';
    const withoutRedis = {
      limits_without_redis: limits.withoutRedis,
      admitted_without_redis: limits.admittedWithoutRedis,
      refused_without_redis: limits.refusedWithoutRedis,
    };
    return {
      status: degraded ? 'degraded' : 'ok',
      storage: svc.dialect,
      ...(counters === 'off' ? {} : { redis: { counters, change_events: changes, ...withoutRedis } }),
      ...(workerId === null ? {} : { worker: workerId }),
    };
  });
  app.get('/', async (request, reply) => {
    const hasUi = app.hasRoute({ method: 'GET', url: '/ui/' });
    // A browser gets the dashboard; an API client the JSON that says where everything is.
    if (hasUi && (request.headers.accept ?? '').includes('text/html')) return reply.redirect('/ui/');
    const host = request.headers.host ?? `127.0.0.1:${config.port}`;
    return rootDocument(`${request.protocol}://${host}`, hasUi);
  });
  // Built on the first request, not at start: the document and the yaml library cost more memory
  // than most gateways will ever spend on serving it.
  let openApi: Promise<string> | undefined;
  app.get('/openapi.yaml', async (_request, reply) => {
    openApi ??= import('./manage/openapi.ts').then((m) => m.openApiYaml(OPERATIONS, PROXY_PATHS));
    return reply.type('application/yaml; charset=utf-8').send(await openApi);
  });
  app.get('/config.schema.json', async (_request, reply) => {
    const { configJsonSchema } = await import('./config-file/schema.ts');
    return reply.type('application/schema+json; charset=utf-8').send(configJsonSchema());
  });
  registerOperationRoutes(app, OPERATIONS);
  registerLogExport(app);
  registerAuditExport(app);
  registerMcpRoutes(app, OPERATIONS);
  registerMcpGatewayRoutes(app, svc.mcpGateway);
  const inFlight = new InFlight();
  app.decorate('inFlight', inFlight);
  const metrics = svc.metrics;
  const live = { inFlight: () => inFlight.size, logQueueDepth: () => svc.logs.pending };
  // The pipeline's features, in the one order they run in (the contract is in pipeline/hooks.ts):
  // before-hooks top to bottom, afterResponse hooks bottom to top. On the services, so management
  // calls that run the pipeline (log replay) share them.
  // Tracing first: its spans open before any other feature runs and close after all of them noted
  // what they decided. With no OTLP endpoint there is no hook at all, and no SDK loaded.
  const spansDropped = config.telemetry
    ? metrics.counter<'reason'>({
        name: 'switchyard_otel_spans_dropped_total',
        help: 'Spans that never reached the OTLP collector, by reason (queue_full, export_failed)',
        labelNames: ['reason'],
      })
    : undefined;
  const telemetry = await startTelemetry(config.telemetry, {
    onDropped: (count, reason) => spansDropped?.inc({ reason }, count),
    onError: (err) => svc.logger.error({ err }, 'a trace span could not be finished'),
  });
  if (telemetry) svc.hooks.use(telemetry.feature);
  // Webhook deliveries run as jobs, outside the pipeline: their spans come from the same tracer.
  svc.webhooks.traceLinks = telemetry?.links;
  svc.hooks
    .use({ afterResponse: metricsHook(new GatewayMetrics(metrics, live)) })
    .use({
      afterResponse: requestLogHook(
        svc.logs,
        (projectId) => (projectId ? (svc.projects.cached(projectId)?.settings.log_bodies ?? true) : true),
        config.logBodyMaxBytes,
        (keyId) => svc.principals.keyMetadata(keyId),
      ),
    })
    .use({ afterResponse: healthHook(svc.routing.health, svc.shareHealth) })
    .use(svc.limits.feature)
    .use(svc.cache.feature)
    .use(guardrailsFeature(svc.guardrails));
  metrics.gauge<'budget_id'>({
    name: 'switchyard_budget_spend_usd',
    help: "Spend in each budget's current period, all members together",
    labelNames: ['budget_id'],
    readEach: async () =>
      (await svc.limits.spendByBudget()).map((b) => ({ labels: { budget_id: b.budgetId }, value: b.spentUsd })),
  });
  if (svc.cluster.counters !== 'off') {
    metrics.gauge<'adapter'>({
      name: 'switchyard_redis_connected',
      help: 'Whether counters and change events go through Redis right now (0: this instance alone)',
      labelNames: ['adapter'],
      readEach: async () => [
        { labels: { adapter: 'counters' }, value: svc.cluster.counters === 'redis' ? 1 : 0 },
        { labels: { adapter: 'change_events' }, value: svc.cluster.changes === 'redis' ? 1 : 0 },
      ],
    });
    const { limits } = svc.cluster;
    metrics.gauge<'mode' | 'outcome'>({
      name: 'switchyard_limits_without_redis',
      help: 'Admissions answered without Redis since start, by SWITCHYARD_LIMITS_WITHOUT_REDIS mode and outcome',
      labelNames: ['mode', 'outcome'],
      readEach: async () => [
        { labels: { mode: limits.withoutRedis, outcome: 'admitted' }, value: limits.admittedWithoutRedis },
        { labels: { mode: limits.withoutRedis, outcome: 'refused' }, value: limits.refusedWithoutRedis },
      ],
    });
  }
  registerMetricsRoute(app, metrics, { public: config.metricsPublic, principals: svc.principals });
  const pipeline = svc.pipeline;
  const onFault = (err: unknown, reqId: string) => svc.logger.error({ err, reqId }, 'unhandled error');
  const calls = proxyRoutes(pipeline, inFlight, onFault);
  await app.register(calls.plugin);
  await app.register(filesRoutes(pipeline, inFlight));
  await app.register(batchRoutes(pipeline, createBatches(svc, pipeline)));
  await app.register(uiRoutes());
  await app.register(ssoRoutes(svc, sessions));
  const responses = new Responses({
    pipeline,
    store: svc.stores.responses,
    files: svc.stores.files,
    jobs: svc.jobs,
    pollMs: config.responsePollMs,
    logBodyMaxChars: config.logBodyMaxBytes,
    onError: (err) => svc.logger.error({ err }, 'a stored-response record could not be written'),
  });
  svc.jobs.register(POLL_JOB, responses.poll);
  await app.register(passthroughRoutes(responses, new Media(pipeline), inFlight));

  const door = new FrontDoor({
    principals: svc.principals,
    routes: calls.byPath,
    maxBodyBytes: config.maxBodyBytes,
    onFault,
  });
  // At debug and trace every request gets fastify's access lines (README), so the door stays out.
  if (!requestLogging) door.install(app.server);
  app.decorate('frontDoor', door);
  app.addHook('preClose', (done) => {
    door.close();
    done();
  });

  // Runs after the server stopped accepting and in-flight requests drained.
  app.addHook('onClose', async () => {
    responses.close();
    await svc.close();
    await telemetry?.shutdown();
  });
  return app;
}
