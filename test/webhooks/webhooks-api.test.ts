// Webhooks end to end on both dialects: endpoints over the management API, events from existing
// write paths, Standard Webhooks signatures checked with the official `standardwebhooks` library,
// retries with the attempt history, rotation overlap, replay, and the 5-day disable.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EVENT_TYPES } from '../../src/webhooks/event-catalog.ts';
import { dialects } from '../helpers/dialects.ts';
import { call, type Gateway, startGateway } from '../helpers/gateway.ts';
import { type Received, type Receiver, startReceiver, verifyDelivery, waitFor } from './receiver.ts';

type Json = Record<string, unknown>;

function verify(secret: string, r: Received): Json {
  return { ...verifyDelivery(secret, r) };
}

async function createEndpoint(gw: Gateway, url: string, eventTypes: string[] = ['*']) {
  const res = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', { url, event_types: eventTypes });
  assert.equal(res.status, 201, res.text);
  return res.body as Json & { id: string; signing_secret: string };
}

const ofType = (rx: Receiver, type: string) => rx.received.filter((r) => (JSON.parse(r.body) as Json).type === type);

for (const d of await dialects()) {
  describe(`webhooks (${d.name})`, { skip: d.skip }, () => {
    let gw: Gateway;
    let rx: Receiver;

    before(async () => {
      gw = await startGateway({
        postgres: d.name === 'postgres',
        config: { webhookRetrySchedule: '150ms,150ms,150ms' },
      });
      rx = await startReceiver();
    });
    after(async () => {
      await gw.close();
      await rx.close();
    });

    test('the event catalog lists every type with a description and an example', async () => {
      const res = await call(gw, 'GET', '/manage/v1/webhooks/event-types');
      assert.equal(res.status, 200);
      const data = (res.body as { data: Array<{ type: string; description: string; example: Json }> }).data;
      // The catalog itself is checked in src/webhooks/event-catalog.test.ts; here it is served whole.
      assert.deepEqual(
        data.map((e) => e.type),
        [...EVENT_TYPES],
      );
      for (const t of [
        'routing_config.updated',
        'provider.health_changed',
        'budget.threshold_reached',
        'webhook.test',
        'api_key.rotated',
      ]) {
        assert.ok(
          data.some((e) => e.type === t && e.description.length > 10),
          t,
        );
      }
    });

    test('create validates url and event types; the secret is shown only once', async () => {
      const bad = async (body: Json, pattern: RegExp) => {
        const res = await call(gw, 'POST', '/manage/v1/webhooks/endpoints', body);
        assert.equal(res.status, 400, `${JSON.stringify(body)} -> ${res.text}`);
        assert.match(res.text, pattern);
      };
      await bad({ url: 'ftp://example.com/x' }, /http/);
      await bad({ url: 'https://user:pw@example.com/x' }, /username or password/);
      await bad({ url: 'http://169.254.169.254/latest/meta-data' }, /link-local|metadata/);
      await bad({ url: 'http://[fe80::1]/x' }, /link-local/);
      await bad({ url: 'http://metadata.google.internal/x' }, /metadata/);
      await bad({ url: rx.url, event_types: ['nope.created'] }, /unknown event type \\"nope.created\\"/);
      await bad({ url: rx.url, event_types: ['*', 'project.created'] }, /only entry/);
      await bad({ url: rx.url, event_types: [] }, /event_types/);

      const ep = await createEndpoint(gw, rx.url, ['project.created']);
      assert.match(ep.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      const got = await call(gw, 'GET', `/manage/v1/webhooks/endpoints/${ep.id}`);
      assert.equal(got.status, 200);
      assert.ok(!('signing_secret' in (got.body as Json)));
      const list = await call(gw, 'GET', '/manage/v1/webhooks/endpoints');
      assert.ok(!list.text.includes('whsec_'));
      assert.ok(!list.text.includes(ep.signing_secret.slice(6)));
      await call(gw, 'DELETE', `/manage/v1/webhooks/endpoints/${ep.id}`);
    });

    test('a PATCHed routing config delivers routing_config.updated with {id, slug, version}, signed', async () => {
      const ep = await createEndpoint(gw, rx.url, ['routing_config.updated', 'provider.created']);
      const prov = await call(gw, 'POST', '/manage/v1/providers', { vendor: 'openai', name: 'oa', api_key: 'sk-x' });
      assert.equal(prov.status, 201, prov.text);
      const rc = await call(gw, 'POST', '/manage/v1/routing-configs', {
        name: 'hooks',
        slug: 'hooks',
        strategy: 'single',
        config: { model: 'openai/gpt-4o-mini' },
      });
      assert.equal(rc.status, 201, rc.text);
      const id = (rc.body as Json).id as string;
      const patched = await call(gw, 'PATCH', `/manage/v1/routing-configs/${id}`, { name: 'hooks v2' });
      assert.equal(patched.status, 200, patched.text);
      const [hit] = await waitFor('routing_config.updated', () => {
        const got = ofType(rx, 'routing_config.updated');
        return got.length > 0 ? got : undefined;
      });
      const payload = verify(ep.signing_secret, hit);
      assert.deepEqual(payload.data, { id, slug: 'hooks', version: 2 });
      assert.equal(hit.headers['content-type'], 'application/json');
      assert.match(String(hit.headers['user-agent']), /^Switchyard-Webhooks\/\d+\.\d+\.\d+/);
      assert.match(String(hit.headers['webhook-id']), /^evt_/);
      await waitFor('provider.created', () => (ofType(rx, 'provider.created').length === 1 ? true : undefined));
      // Not subscribed: no routing_config.created arrived.
      assert.equal(ofType(rx, 'routing_config.created').length, 0);
      await call(gw, 'DELETE', `/manage/v1/webhooks/endpoints/${ep.id}`);
    });

    test('fails twice, then 200: delivered after 3 attempts, each recorded', async () => {
      const flaky = await startReceiver((_r, i) => (i < 2 ? { status: 500, body: `down ${i}` } : 200));
      try {
        const ep = await createEndpoint(gw, flaky.url, ['webhook.test']);
        const sent = await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {});
        assert.equal(sent.status, 200, sent.text);
        const first = sent.body as Json;
        assert.equal(first.attempt_count, 1);
        assert.equal(first.response_status, 500);
        assert.equal(first.status, 'pending');
        assert.ok(first.next_attempt_at);
        const done = await waitFor('delivered', async () => {
          const g = await call(gw, 'GET', `/manage/v1/webhooks/deliveries/${first.id}`);
          return (g.body as Json).status === 'delivered' ? (g.body as Json) : undefined;
        });
        assert.equal(done.attempt_count, 3);
        assert.equal(done.response_status, 200);
        const attempts = done.attempts as Json[];
        assert.deepEqual(
          attempts.map((a) => [a.attempt, a.response_status]),
          [
            [1, 500],
            [2, 500],
            [3, 200],
          ],
        );
        assert.equal(attempts[0].response_body, 'down 0');
        assert.match(String(attempts[0].error), /500/);
        for (const a of attempts) assert.ok(typeof a.duration_ms === 'number' && typeof a.started_at === 'string');
        assert.deepEqual((done.payload as Json).type, 'webhook.test');
        // Every attempt carried the same webhook-id.
        assert.equal(new Set(flaky.received.map((r) => r.headers['webhook-id'])).size, 1);
        for (const r of flaky.received) verify(ep.signing_secret, r);
      } finally {
        await flaky.close();
      }
    });

    test('a receiver that never answers 2xx: failed after the last scheduled retry', async () => {
      const down = await startReceiver(() => 503);
      try {
        const ep = await createEndpoint(gw, down.url);
        const sent = (await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {})).body as Json;
        const failed = await waitFor('failed', async () => {
          const g = (await call(gw, 'GET', `/manage/v1/webhooks/deliveries/${sent.id}`)).body as Json;
          return g.status === 'failed' ? g : undefined;
        });
        assert.equal(failed.attempt_count, 4);
        assert.equal(failed.next_attempt_at, null);
        const list = await call(gw, 'GET', `/manage/v1/webhooks/deliveries?endpoint_id=${ep.id}&status=failed`);
        assert.deepEqual(
          (list.body as { data: Json[] }).data.map((x) => x.id),
          [sent.id],
        );
        const none = await call(gw, 'GET', `/manage/v1/webhooks/deliveries?endpoint_id=${ep.id}&status=delivered`);
        assert.equal((none.body as { data: Json[] }).data.length, 0);
      } finally {
        await down.close();
      }
    });

    test('after rotate-secret both the new and the old secret verify; replay keeps the webhook-id', async () => {
      const own = await startReceiver();
      try {
        const ep = await createEndpoint(gw, own.url, ['webhook.test']);
        const rotated = await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/rotate-secret`);
        assert.equal(rotated.status, 200, rotated.text);
        const next = rotated.body as Json & { signing_secret: string };
        assert.notEqual(next.signing_secret, ep.signing_secret);
        assert.ok(next.previous_secret_expires_at);
        const sent = (await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {})).body as Json;
        assert.equal(sent.status, 'delivered');
        const [r] = own.received;
        assert.equal(String(r.headers['webhook-signature']).split(' ').length, 2);
        verify(next.signing_secret, r);
        verify(ep.signing_secret, r);
        assert.throws(() => verify('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', r));

        const replay = await call(gw, 'POST', `/manage/v1/webhooks/deliveries/${sent.id}/replay`);
        assert.equal(replay.status, 202, replay.text);
        assert.equal((replay.body as Json).status, 'pending');
        await waitFor('replayed', () => (own.received.length === 2 ? true : undefined));
        assert.equal(own.received[1].headers['webhook-id'], r.headers['webhook-id']);
        assert.equal(own.received[1].body, r.body);
        const after = await waitFor('delivered again', async () => {
          const g = (await call(gw, 'GET', `/manage/v1/webhooks/deliveries/${sent.id}`)).body as Json;
          return g.status === 'delivered' && g.attempt_count === 2 ? g : undefined;
        });
        assert.equal((after.attempts as Json[]).length, 2);
      } finally {
        await own.close();
      }
    });

    test('inactive endpoints get no new deliveries; deleted ones cannot be replayed to', async () => {
      const own = await startReceiver();
      try {
        const ep = await createEndpoint(gw, own.url, ['project.created', 'project.deleted']);
        const off = await call(gw, 'PATCH', `/manage/v1/webhooks/endpoints/${ep.id}`, { active: false });
        assert.equal((off.body as Json).active, false);
        const p1 = await call(gw, 'POST', '/manage/v1/projects', { name: 'quiet one' });
        assert.equal(p1.status, 201, p1.text);
        await call(gw, 'PATCH', `/manage/v1/webhooks/endpoints/${ep.id}`, { active: true });
        const p2 = await call(gw, 'POST', '/manage/v1/projects', { name: 'loud one' });
        await call(gw, 'DELETE', `/manage/v1/projects/${(p2.body as Json).id}`);
        await waitFor('two events', () => (own.received.length >= 2 ? true : undefined));
        const got = own.received.map((r) => JSON.parse(r.body) as { type: string; data: Json });
        assert.deepEqual(got.map((e) => [e.type, e.data.name]).sort(), [
          ['project.created', 'loud one'],
          ['project.deleted', 'loud one'],
        ]);
        const list = (await call(gw, 'GET', `/manage/v1/webhooks/deliveries?endpoint_id=${ep.id}`)).body as {
          data: Json[];
        };
        assert.equal(list.data.length, 2);
        await call(gw, 'DELETE', `/manage/v1/webhooks/endpoints/${ep.id}`);
        const replay = await call(gw, 'POST', `/manage/v1/webhooks/deliveries/${list.data[0].id}/replay`);
        assert.equal(replay.status, 409, replay.text);
        const test404 = await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {});
        assert.equal(test404.status, 404);
      } finally {
        await own.close();
      }
    });

    test('an endpoint failing for 5 days is disabled, with a webhook_endpoint.disabled event', async () => {
      const down = await startReceiver(() => 500);
      const watcher = await startReceiver();
      try {
        const ep = await createEndpoint(gw, down.url, ['webhook.test']);
        const w = await createEndpoint(gw, watcher.url, ['webhook_endpoint.disabled']);
        const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000).toISOString();
        await gw.app.svc.db
          .updateTable('webhook_endpoints' as never)
          .set({ failing_since: sixDaysAgo } as never)
          .where('id' as never, '=', ep.id as never)
          .execute();
        await call(gw, 'POST', `/manage/v1/webhooks/endpoints/${ep.id}/test`, {});
        const [hit] = await waitFor('disabled event', () =>
          watcher.received.length > 0 ? watcher.received : undefined,
        );
        const payload = verify(w.signing_secret, hit);
        assert.equal(payload.type, 'webhook_endpoint.disabled');
        assert.equal((payload.data as Json).id, ep.id);
        const now = (await call(gw, 'GET', `/manage/v1/webhooks/endpoints/${ep.id}`)).body as Json;
        assert.equal(now.active, false);
        assert.match(String(now.disabled_reason), /failed since/);
      } finally {
        await down.close();
        await watcher.close();
      }
    });

    test('api_key and provider events carry ids and names, never secrets', async () => {
      const own = await startReceiver();
      try {
        const ep = await createEndpoint(gw, own.url, [
          'api_key.created',
          'api_key.rotated',
          'api_key.revoked',
          'provider.rotated',
        ]);
        const key = await call(gw, 'POST', '/manage/v1/api-keys', { name: 'ci' });
        const plaintext = (key.body as Json).key as string;
        const keyId = (key.body as Json).id as string;
        const rotated = await call(gw, 'POST', `/manage/v1/api-keys/${keyId}/rotate`, { grace_period_seconds: 60 });
        assert.equal(rotated.status, 200, rotated.text);
        const newPlaintext = (rotated.body as Json).key as string;
        await call(gw, 'DELETE', `/manage/v1/api-keys/${keyId}`);
        await waitFor('key events', () => (own.received.length >= 3 ? true : undefined));
        const types = own.received.map((r) => verify(ep.signing_secret, r).type);
        assert.deepEqual(types.sort(), ['api_key.created', 'api_key.revoked', 'api_key.rotated']);
        for (const r of own.received) {
          assert.ok(!r.body.includes(plaintext) && !r.body.includes(newPlaintext), r.body);
          const payload = verify(ep.signing_secret, r);
          const data = payload.data as Json;
          const fields = ['id', 'name', 'project_id'];
          if (payload.type === 'api_key.rotated') {
            fields.push('previous_key_expires_at');
            assert.ok(Date.parse(String(data.previous_key_expires_at)) > Date.now(), 'names the end of the grace');
          }
          assert.equal(data.id, keyId);
          assert.deepEqual(Object.keys(data).sort(), fields.sort());
        }
      } finally {
        await own.close();
      }
    });
  });
}
