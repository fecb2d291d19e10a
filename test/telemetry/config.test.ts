// The OTEL_* variables as the gateway reads them (src/config.ts): off unless an endpoint is set.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config.ts';

const telemetry = (env: NodeJS.ProcessEnv) => loadConfig(env).telemetry;

it('no endpoint, or OTEL_SDK_DISABLED, means no tracing', () => {
  assert.equal(telemetry({}), null);
  assert.equal(telemetry({ OTEL_SERVICE_NAME: 'x' }), null);
  assert.equal(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), null);
});

it('the general endpoint gets /v1/traces; the traces endpoint is taken as it is', () => {
  assert.equal(telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })?.tracesUrl, 'http://c:4318/v1/traces');
  const both = telemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://t:9999/custom',
  });
  assert.equal(both?.tracesUrl, 'http://t:9999/custom');
  const grpc = telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  assert.deepEqual([grpc?.protocol, grpc?.tracesUrl], ['grpc', 'http://c:4317']);
  // Metrics take the general protocol (or their own) and, over grpc, the base address as it is.
  const metrics = (more: Record<string, string>) =>
    telemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_METRICS_EXPORTER: 'otlp', ...more });
  const m1 = metrics({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
  assert.deepEqual([m1?.metricsProtocol, m1?.metricsUrl], ['grpc', 'http://c:4317']);
  const m2 = metrics({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' });
  assert.deepEqual(
    [m2?.protocol, m2?.metricsProtocol, m2?.metricsUrl],
    ['grpc', 'http/protobuf', 'http://c:4317/v1/metrics'],
  );
  assert.throws(() => metrics({ OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'http/json' }), /METRICS_PROTOCOL/);
});

it('headers, resource attributes, sampler and the vendors kept out of propagation', () => {
  const t = telemetry({
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
    OTEL_EXPORTER_OTLP_HEADERS: 'api-key=a%2Cb, x-team=ml',
    OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=prod',
    OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
    OTEL_TRACES_SAMPLER_ARG: '0.25',
    SWITCHYARD_OTEL_NO_PROPAGATION: 'bedrock, google',
  });
  assert.deepEqual(t?.headers, { 'api-key': 'a,b', 'x-team': 'ml' });
  assert.deepEqual(t?.resourceAttributes, { 'deployment.environment.name': 'prod' });
  assert.deepEqual([t?.sampler, t?.samplerRatio, t?.serviceName], ['parentbased_traceidratio', 0.25, 'switchyard']);
  assert.deepEqual(t?.noPropagation, ['bedrock', 'google']);
});

it('values it cannot use are refused with the variable named', () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  assert.throws(() => telemetry({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }), /OTEL_EXPORTER_OTLP_PROTOCOL/);
  assert.throws(() => telemetry({ ...base, OTEL_TRACES_SAMPLER: 'sometimes' }), /OTEL_TRACES_SAMPLER/);
  assert.throws(() => telemetry({ ...base, OTEL_TRACES_SAMPLER_ARG: '2' }), /OTEL_TRACES_SAMPLER_ARG/);
  assert.throws(() => telemetry({ ...base, OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }), /OTEL_EXPORTER_OTLP_HEADERS/);
});

it('export timeout, content capture, OTLP metrics and traces off', () => {
  const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
  const plain = telemetry(base);
  assert.deepEqual(
    [plain?.timeoutMs, plain?.captureContent, plain?.traces, plain?.metricsUrl],
    [10_000, false, true, null],
  );
  const t = telemetry({
    ...base,
    OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
    OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    OTEL_METRICS_EXPORTER: 'otlp',
    OTEL_METRIC_EXPORT_INTERVAL: '5000',
    OTEL_TRACES_EXPORTER: 'none',
  });
  assert.deepEqual(
    [t?.timeoutMs, t?.captureContent, t?.traces, t?.metricsUrl, t?.metricsIntervalMs],
    [2500, true, false, 'http://c:4318/v1/metrics', 5000],
  );
  assert.equal(telemetry({ ...base, OTEL_TRACES_EXPORTER: 'none' }), null, 'neither signal: nothing starts');
  assert.throws(() => telemetry({ ...base, OTEL_METRICS_EXPORTER: 'prometheus' }), /OTEL_METRICS_EXPORTER/);
  assert.throws(() => telemetry({ ...base, OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }), /OTEL_EXPORTER_OTLP_TIMEOUT/);
});

it('SWITCHYARD_TRACE_URL_TEMPLATE must be an http(s) URL naming {trace_id}', () => {
  assert.equal(loadConfig({}).traceUrlTemplate, null);
  const url = 'https://jaeger.internal/trace/{trace_id}';
  assert.equal(loadConfig({ SWITCHYARD_TRACE_URL_TEMPLATE: url }).traceUrlTemplate, url);
  assert.throws(() => loadConfig({ SWITCHYARD_TRACE_URL_TEMPLATE: 'https://jaeger/trace/' }), /\{trace_id\}/);
  assert.throws(() => loadConfig({ SWITCHYARD_TRACE_URL_TEMPLATE: 'javascript:{trace_id}' }), /http/);
});
