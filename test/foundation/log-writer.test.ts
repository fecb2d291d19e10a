// The request-log writer batches behind the response and loses nothing on graceful shutdown.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import type { RequestLogRow } from '../../src/store/request-logs.ts';
import { startGateway } from '../helpers/gateway.ts';
import { logRow } from '../helpers/log-row.ts';

function row(orgId: string): RequestLogRow {
  return logRow({ orgId, credentialId: 'prov_x' });
}

describe('log writer', () => {
  test('enqueue is fire-and-forget; rows land within the flush interval; close() flushes the rest', async () => {
    const gw = await startGateway();
    const { svc } = gw.app;
    const orgId = svc.bootstrap.orgId;
    for (let i = 0; i < 450; i++) svc.logs.enqueue(row(orgId));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await svc.stores.logs.list({ orgId }, { limit: 1000 })).length, 450);

    for (let i = 0; i < 7; i++) svc.logs.enqueue(row(orgId));
    const reopened = await startGateway({ dataDir: gw.dataDir });
    await gw.close({ keepData: true }); // graceful: drains, flushes the writer, closes the db
    try {
      const rows = await reopened.app.svc.stores.logs.list({ orgId }, { limit: 1000 });
      assert.equal(rows.length, 457);
    } finally {
      await reopened.close();
      rmSync(gw.dataDir, { recursive: true, force: true });
    }
  });
});
