// A gateway started with OTEL_* variables, the fake upstream recording what it receives, and an OTLP
// receiver: what a tracing test needs, built the way an operator would turn tracing on.
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import type { Config } from '../../src/config.ts';
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { tempDataDir } from '../helpers/dialects.ts';
import { fakeKeyVerifier } from '../helpers/gateway.ts';
import { vendorCredentials } from '../helpers/proxy-env.ts';

export interface TracedGateway {
  url: string;
  adminKey: string;
  app: FastifyInstance;
  close(): Promise<void>;
}

const ADMIN_KEY = 'sy-test-admin-key-0123456789';

/** A gateway reading `env` as its environment, with the fake upstream's vendors stored as providers. */
export async function startTracedGateway(
  env: NodeJS.ProcessEnv,
  fake: FakeUpstream,
  config: Partial<Config> = {},
): Promise<TracedGateway> {
  const dataDir = tempDataDir();
  const app = await buildApp({
    env,
    config: { dataDir, port: 0, host: '127.0.0.1', adminKey: ADMIN_KEY, logLevel: 'silent', ...config },
    keyVerifier: fakeKeyVerifier,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const gw: TracedGateway = {
    url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    adminKey: ADMIN_KEY,
    app,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  for (const c of vendorCredentials(fake.url)) {
    const r = await manage(gw, 'POST', '/manage/v1/providers', { ...c, name: `${c.vendor} (fake)` });
    if (r.status !== 201 && r.status !== 200) throw new Error(`provider create failed: ${r.status}`);
  }
  return gw;
}

export async function manage(
  gw: Pick<TracedGateway, 'url' | 'adminKey'>,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  const res = await fetch(`${gw.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${gw.adminKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

export async function startRecordingFake(): Promise<FakeUpstream> {
  return startFakeUpstream({ port: 0, record: true, batchStepMs: 50 });
}

/** A W3C traceparent of the caller's own (sampled) span. */
export function callerTraceparent(): { header: string; traceId: string; spanId: string } {
  const traceId = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('hex');
  const spanId = Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex');
  return { header: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
