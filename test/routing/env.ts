// A gateway wired to the fake upstream with openai and anthropic credentials (the vendors the routing
// tests use), independent of the wider proxy test environment.
import { type FakeUpstream, startFakeUpstream } from '../../tools/fake-upstream/server.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';

export interface RoutingEnv {
  fake: FakeUpstream;
  gw: Gateway;
  providers: Record<string, string>;
  close(): Promise<void>;
}

export async function startRoutingEnv(): Promise<RoutingEnv> {
  const fake = await startFakeUpstream({ port: 0 });
  const gw = await startGateway();
  const providers: Record<string, string> = {};
  const creds = [
    { vendor: 'openai', api_key: 'sk-stored-0000000000000000', base_url: `${fake.url}/openai/v1` },
    { vendor: 'anthropic', api_key: 'sk-stored-0000000000000000', base_url: `${fake.url}/anthropic` },
  ];
  for (const c of creds) {
    const r = await call(gw, 'POST', '/manage/v1/providers', { ...c, name: `${c.vendor} (fake)` });
    if (r.status !== 200 && r.status !== 201) throw new Error(`provider create failed: ${r.status} ${r.text}`);
    providers[c.vendor] = (r.body as { id: string }).id;
  }
  return {
    fake,
    gw,
    providers,
    async close() {
      await gw.close();
      await fake.close();
    },
  };
}

export async function api(env: RoutingEnv, method: string, path: string, body?: unknown) {
  const r = await call(env.gw, method, path, body);
  return { status: r.status, json: r.body };
}
