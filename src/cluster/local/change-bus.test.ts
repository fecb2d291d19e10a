import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ChangeEvent } from '../../ports/change-bus.ts';
import { LocalChangeBus } from './change-bus.ts';

const ev: ChangeEvent = { topic: 'routing_config', id: 'rc_1', orgId: 'org_1' };
const tick = () => new Promise<void>((r) => setTimeout(r, 5));

describe('LocalChangeBus', () => {
  test('delivers to every subscriber of the topic, and only of that topic', async () => {
    const bus = new LocalChangeBus();
    const seen: string[] = [];
    bus.subscribe('routing_config', (e) => void seen.push(`a:${e.id}:${e.orgId}`));
    bus.subscribe('routing_config', (e) => void seen.push(`b:${e.id}`));
    bus.subscribe('api_key', () => void seen.push('wrong topic'));
    await bus.publish(ev);
    assert.deepEqual(seen.sort(), ['a:rc_1:org_1', 'b:rc_1']);
  });

  test('publish resolves only after async subscribers are done', async () => {
    const bus = new LocalChangeBus();
    let applied = false;
    bus.subscribe('routing_config', async () => {
      await tick();
      applied = true;
    });
    await bus.publish(ev);
    assert.equal(applied, true);
  });

  test('a failing subscriber (throw or reject) neither stops the others nor fails the publish', async () => {
    const errors: unknown[] = [];
    const bus = new LocalChangeBus({ onError: (err, e) => errors.push([(err as Error).message, e.id]) });
    let applied = 0;
    bus.subscribe('routing_config', () => {
      throw new Error('sync');
    });
    bus.subscribe('routing_config', async () => {
      await tick();
      throw new Error('async');
    });
    bus.subscribe('routing_config', async () => {
      await tick();
      applied++;
    });
    await bus.publish(ev);
    assert.equal(applied, 1);
    assert.deepEqual(
      errors.sort(),
      [
        ['async', 'rc_1'],
        ['sync', 'rc_1'],
      ].sort(),
    );
  });

  test('a throwing error reporter does not fail the publish either', async () => {
    const bus = new LocalChangeBus({
      onError: () => {
        throw new Error('reporter down');
      },
    });
    bus.subscribe('project', () => Promise.reject(new Error('x')));
    await bus.publish({ topic: 'project', id: 'proj_1', orgId: 'o' });
  });

  test('unsubscribe stops delivery to that subscription only', async () => {
    const bus = new LocalChangeBus();
    const seen: string[] = [];
    const handler = () => void seen.push('h');
    const off = bus.subscribe('credential', handler);
    bus.subscribe('credential', handler);
    off();
    off();
    await bus.publish({ topic: 'credential', id: 'prov_1', orgId: 'o' });
    assert.deepEqual(seen, ['h']);
  });

  test('publish with no subscribers resolves', async () => {
    await new LocalChangeBus().publish(ev);
  });

  test('close waits for deliveries under way; later publishes reach nobody', async () => {
    const bus = new LocalChangeBus();
    let done = 0;
    bus.subscribe('routing_config', async () => {
      await tick();
      done++;
    });
    const pending = bus.publish(ev);
    await bus.close();
    assert.equal(done, 1);
    await pending;
    await bus.publish(ev);
    assert.equal(done, 1);
  });
});
