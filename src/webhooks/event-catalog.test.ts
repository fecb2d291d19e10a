import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DOMAIN_EVENT_TYPES } from '../ports/domain-events.ts';
import {
  type EventType,
  eventTypeCatalog,
  exampleEvent,
  isEventType,
  matches,
  validateEventTypes,
} from './event-catalog.ts';

// The agreed list lives in ports/domain-events.ts, which the stores write from; restating it here
// would only be a second copy to keep in step. What the catalog must do is serve exactly that list,
// in its order, once each, every entry described with an example.
const EXPECTED: readonly EventType[] = DOMAIN_EVENT_TYPES;

test('the catalog lists exactly the agreed event types, each described with an example', () => {
  assert.equal(new Set(EXPECTED).size, EXPECTED.length, 'an event type is listed twice');
  const { data } = eventTypeCatalog();
  assert.deepEqual(
    data.map((d) => d.type),
    [...EXPECTED],
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
  assert.deepEqual(validateEventTypes([...EXPECTED]), { ok: true, value: [...EXPECTED] });
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
