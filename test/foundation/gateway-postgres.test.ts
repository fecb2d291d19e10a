// The whole gateway on PostgreSQL (SWITCHYARD_DATABASE_URL mode): bootstrap, management calls,
// provider encryption and a restart against the same schema.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { dialects, dropSchema, randomSchema } from '../helpers/dialects.ts';
import { call, startGateway } from '../helpers/gateway.ts';

const pgTarget = (await dialects()).find((d) => d.name === 'postgres');

describe('gateway on PostgreSQL', { skip: pgTarget?.skip }, () => {
  test('bootstrap, projects, providers and restart', async () => {
    const schema = randomSchema();
    let dataDir: string | undefined;
    try {
      const first = await startGateway({ postgres: true, pgSchema: schema });
      const health = await (await fetch(`${first.url}/healthz`)).json();
      assert.deepEqual(health, { status: 'ok', storage: 'postgres' });
      const p = await call(first, 'POST', '/manage/v1/projects', { name: 'On PG' });
      assert.equal(p.status, 201);
      const prov = await call(first, 'POST', '/manage/v1/providers', { vendor: 'vendor_1', api_key: 'sk-pg-123456' });
      assert.equal(prov.status, 201);
      await first.close({ keepData: true });
      dataDir = first.dataDir;

      const second = await startGateway({ postgres: true, pgSchema: schema, dataDir: first.dataDir });
      try {
        const list = (await call(second, 'GET', '/manage/v1/projects')).body as { data: Array<{ slug: string }> };
        assert.deepEqual(
          list.data.map((x) => x.slug),
          ['default', 'on-pg'],
        );
        const providers = (await call(second, 'GET', '/manage/v1/providers')).body as {
          data: Array<{ vendor: string }>;
        };
        assert.deepEqual(
          providers.data.map((x) => x.vendor),
          ['vendor_1'],
        );
        const resolved = second.app.svc.credentials.forVendor(second.app.svc.bootstrap.orgId, 'openai')[0];
        assert.equal(resolved?.credential.apiKey, 'sk-pg-123456');
      } finally {
        await second.close({ keepData: true });
      }
    } finally {
      await dropSchema(schema);
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
