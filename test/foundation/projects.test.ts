// Projects over HTTP: pagination with stable cursors, slugs, soft delete, scoped-key revocation,
// and persistence across a restart.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, test } from 'node:test';
import { tempDataDir } from '../helpers/dialects.ts';
import { call, startGateway } from '../helpers/gateway.ts';

interface Project {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  deleted_at: string | null;
}
interface Page {
  data: Project[];
  next_cursor: string | null;
  has_more: boolean;
}

describe('projects', () => {
  test('7 projects with limit=3 page as 3+3+1 with stable cursors', async () => {
    const gw = await startGateway();
    try {
      for (let i = 1; i <= 6; i++) {
        const r = await call(gw, 'POST', '/manage/v1/projects', { name: `Team ${i}` });
        assert.equal(r.status, 201);
      }
      const seen: string[] = [];
      const cursors: Array<string | null> = [];
      let cursor: string | null = null;
      const sizes: number[] = [];
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const r = await call(gw, 'GET', `/manage/v1/projects?limit=3${q}`);
        assert.equal(r.status, 200);
        const page = r.body as Page;
        sizes.push(page.data.length);
        seen.push(...page.data.map((p) => p.id));
        assert.equal(page.has_more, page.next_cursor !== null);
        cursor = page.next_cursor;
        cursors.push(cursor);
      } while (cursor);
      assert.deepEqual(sizes, [3, 3, 1]);
      assert.equal(new Set(seen).size, 7);
      // The same cursor gives the same page again.
      const again = (await call(gw, 'GET', `/manage/v1/projects?limit=3&cursor=${cursors[0]}`)).body as Page;
      assert.deepEqual(
        again.data.map((p) => p.id),
        seen.slice(3, 6),
      );
      assert.equal(again.next_cursor, cursors[1]);
      // Default limit returns everything here; limit 200 is allowed; 201 and junk are 400.
      assert.equal(((await call(gw, 'GET', '/manage/v1/projects')).body as Page).data.length, 7);
      assert.equal((await call(gw, 'GET', '/manage/v1/projects?limit=200')).status, 200);
      for (const bad of ['limit=201', 'limit=0', 'limit=abc', 'limit=2.5', 'cursor=not-a-cursor']) {
        const r = await call(gw, 'GET', `/manage/v1/projects?${bad}`);
        assert.equal(r.status, 400, bad);
        assert.ok((r.body as { error: { param: string } }).error.param, bad);
      }
    } finally {
      await gw.close();
    }
  });

  test('create, get, patch, slug uniqueness, soft delete with include_deleted, scoped keys revoked', async () => {
    const gw = await startGateway();
    try {
      const a = (await call(gw, 'POST', '/manage/v1/projects', { name: 'Search Team!', description: 'd' }))
        .body as Project;
      const b = (await call(gw, 'POST', '/manage/v1/projects', { name: 'search team' })).body as Project;
      assert.equal(a.slug, 'search-team');
      assert.equal(b.slug, 'search-team-2');
      assert.equal(((await call(gw, 'GET', `/manage/v1/projects/${a.id}`)).body as Project).name, 'Search Team!');
      const patched = await call(gw, 'PATCH', `/manage/v1/projects/${a.id}`, { name: 'Renamed', description: null });
      assert.equal(patched.status, 200);
      assert.equal((patched.body as Project).name, 'Renamed');
      assert.equal((patched.body as Project).slug, 'search-team');
      assert.equal((patched.body as Project).description, null);

      const key = (await call(gw, 'POST', '/manage/v1/api-keys', { project_id: a.id })).body as {
        id: string;
        key: string;
      };
      const del = await call(gw, 'DELETE', `/manage/v1/projects/${a.id}`);
      assert.equal(del.status, 200);
      assert.ok((del.body as Project).deleted_at);
      assert.equal(gw.app.svc.principals.authenticate(key.key), undefined);
      const keys = (await call(gw, 'GET', '/manage/v1/api-keys?include_revoked=true')).body as {
        data: Array<{ id: string; revoked_at: string | null }>;
      };
      assert.ok(keys.data.find((k) => k.id === key.id)?.revoked_at);

      assert.equal((await call(gw, 'GET', `/manage/v1/projects/${a.id}`)).status, 404);
      assert.equal((await call(gw, 'GET', `/manage/v1/projects/${a.id}?include_deleted=true`)).status, 200);
      assert.equal((await call(gw, 'PATCH', `/manage/v1/projects/${a.id}`, { name: 'x' })).status, 404);
      assert.equal((await call(gw, 'DELETE', `/manage/v1/projects/${a.id}`)).status, 404);
      const live = (await call(gw, 'GET', '/manage/v1/projects')).body as Page;
      assert.ok(!live.data.some((p) => p.id === a.id));
      const all = (await call(gw, 'GET', '/manage/v1/projects?include_deleted=true')).body as Page;
      assert.ok(all.data.find((p) => p.id === a.id)?.deleted_at);
      // Slugs of deleted projects are not handed out again.
      const c = (await call(gw, 'POST', '/manage/v1/projects', { name: 'Search team' })).body as Project;
      assert.equal(c.slug, 'search-team-3');
      assert.equal((await call(gw, 'GET', '/manage/v1/projects/proj_missing')).status, 404);
    } finally {
      await gw.close();
    }
  });

  test('a restart keeps projects, keys and the admin key', async () => {
    const dataDir = tempDataDir();
    try {
      const first = await startGateway({ dataDir });
      const p = (await call(first, 'POST', '/manage/v1/projects', { name: 'Persist me' })).body as Project;
      const k = (await call(first, 'POST', '/manage/v1/api-keys', { name: 'persist' })).body as { key: string };
      await first.close({ keepData: true });
      const second = await startGateway({ dataDir });
      try {
        const list = (await call(second, 'GET', '/manage/v1/projects')).body as Page;
        assert.deepEqual(list.data.map((x) => x.slug).sort(), ['default', 'persist-me']);
        assert.equal((await call(second, 'GET', `/manage/v1/projects/${p.id}`)).status, 200);
        assert.equal((await call({ url: second.url, adminKey: k.key }, 'GET', '/manage/v1/projects')).status, 200);
      } finally {
        await second.close({ keepData: true });
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
