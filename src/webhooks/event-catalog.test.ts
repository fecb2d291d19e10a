import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  EVENT_TYPES,
  type EventType,
  eventTypeCatalog,
  exampleEvent,
  isEventType,
  matches,
  validateEventTypes,
} from './event-catalog.ts';

const EXPECTED: EventType[] = [
  'routing_config.created',
  'routing_config.updated',
  'routing_config.deleted',
  'routing_config.restored',
  'provider.created',
  'provider.rotated',
  'provider.deleted',
  'provider.health_changed',
  'project.created',
  'project.deleted',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  'budget.threshold_reached',
  'budget.exceeded',
  'batch.completed',
  'batch.failed',
  'batch.expired',
  'batch.cancelled',
  'response.completed',
  'webhook.test',
  'webhook_endpoint.disabled',
  'guardrail.blocked',
  'mcp_server.health_changed',
];

test('the catalog lists exactly the agreed event types, each described with an example', () => {
  assert.deepEqual([...EVENT_TYPES], EXPECTED);
  const { data } = eventTypeCatalog();
  assert.deepEqual(
    data.map((d) => d.type),
    EXPECTED,
  );
  for (const entry of data) {
    assert.match(entry.type, /^[a-z_]+\.[a-z_]+$/);
    assert.ok(entry.description.length > 10 && !entry.description.includes('\n'), entry.type);
    assert.ok(Object.keys(entry.example).length > 0, entry.type);
  }
  assert.deepEqual(Object.keys(data[1].example).sort(), ['id', 'slug', 'version']);
});

test('no example carries anything that looks like a secret', () => {
  const text = JSON.stringify(eventTypeCatalog());
  assert.doesNotMatch(text, /whsec_|sk-|secret|password|api_key"|"key"/i);
});

test('examples are copies: mutating a served example does not change the catalog', () => {
  const first = eventTypeCatalog().data[0].example as Record<string, unknown>;
  first.slug = 'changed';
  assert.equal(eventTypeCatalog().data[0].example.slug, 'support-bot');
  const ev = exampleEvent('routing_config.updated');
  assert.equal(ev.type, 'routing_config.updated');
  assert.ok(!Number.isNaN(Date.parse(ev.timestamp)));
  ev.data.version = 99;
  assert.equal(exampleEvent('routing_config.updated').data.version, 4);
});

test('isEventType accepts catalog names only', () => {
  assert.ok(isEventType('budget.exceeded'));
  assert.ok(!isEventType('budget.exceded'));
  assert.ok(!isEventType('*'));
  assert.ok(!isEventType('toString'));
  assert.ok(!isEventType('__proto__'));
  assert.ok(!isEventType(42));
  assert.ok(!isEventType(undefined));
});

test('validateEventTypes accepts a subset or exactly ["*"]', () => {
  assert.deepEqual(validateEventTypes(['*']), { ok: true, value: ['*'] });
  assert.deepEqual(validateEventTypes(['*', '*']), { ok: true, value: ['*'] });
  assert.deepEqual(validateEventTypes(['budget.exceeded', 'routing_config.updated', 'budget.exceeded']), {
    ok: true,
    value: ['budget.exceeded', 'routing_config.updated'],
  });
  assert.deepEqual(validateEventTypes([...EXPECTED]), { ok: true, value: EXPECTED });
});

test('validateEventTypes refuses with a message that names the problem', () => {
  const message = (input: unknown): string => {
    const r = validateEventTypes(input);
    assert.ok(!r.ok);
    return r.message;
  };
  assert.match(message('budget.exceeded'), /must be an array/);
  assert.match(message(undefined), /must be an array/);
  assert.match(message([]), /must not be empty.*\["\*"\]/);
  assert.match(message(['budget.exceeded', 3, null]), /only strings.*\[3,null\]/);
  assert.match(message(['*', 'budget.exceeded']), /"\*".*only entry/);
  const m = message(['budget.exceeded', 'budget.exceded', 'routing.updated', 'budget.exceded']);
  assert.match(m, /unknown event types "budget\.exceded", "routing\.updated"/);
  assert.doesNotMatch(m, /"budget\.exceeded"/);
  assert.match(message(['nope']), /unknown event type "nope";/);
});

test('matches: a wildcard receives everything, a list only its members', () => {
  assert.ok(matches(['*'], 'batch.failed'));
  assert.ok(matches(['batch.failed', 'batch.completed'], 'batch.failed'));
  assert.ok(!matches(['batch.completed'], 'batch.failed'));
  assert.ok(!matches([], 'batch.failed'));
});
