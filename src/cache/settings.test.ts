import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CacheSettings, cacheTenant, DEFAULT_CACHE_SETTINGS, parseCacheSettings } from './settings.ts';

function refused(raw: unknown): { field: string; message: string } {
  const r = parseCacheSettings(raw);
  assert.equal(r.ok, false, `expected ${JSON.stringify(raw)} to be refused`);
  return r.ok ? { field: '', message: '' } : { field: r.field, message: r.message };
}

test('absent settings are the defaults, and the cache is off by default', () => {
  for (const raw of [undefined, null, {}]) {
    const r = parseCacheSettings(raw);
    assert.ok(r.ok);
    assert.deepEqual(r.value, DEFAULT_CACHE_SETTINGS);
  }
  assert.equal(DEFAULT_CACHE_SETTINGS.enabled, false);
  assert.ok(Object.isFrozen(DEFAULT_CACHE_SETTINGS));
});

test('a full setting is read as given', () => {
  const full: CacheSettings = {
    enabled: true,
    mode: 'shadow',
    similarity_threshold: 1,
    ttl_seconds: 30 * 86_400,
    max_temperature: 0,
    max_messages: 8,
    embedder: 'openai/text-embedding-3-small',
    scope: 'end_user',
    max_entries: 1_000_000,
  };
  const r = parseCacheSettings(full);
  assert.ok(r.ok);
  assert.deepEqual(r.value, full);
});

test('a partial setting takes defaults for what it leaves out, without sharing the defaults object', () => {
  const r = parseCacheSettings({ enabled: true, mode: 'exact' });
  assert.ok(r.ok);
  assert.deepEqual(r.value, { ...DEFAULT_CACHE_SETTINGS, enabled: true, mode: 'exact' });
  assert.notEqual(r.value, DEFAULT_CACHE_SETTINGS);
});

test('every embedder form is accepted', () => {
  for (const embedder of [
    'local',
    'openai/text-embedding-3-large',
    'bedrock/amazon.titan-embed-text-v2:0',
    '@embed-prod',
  ]) {
    const r = parseCacheSettings({ embedder });
    assert.ok(r.ok, embedder);
  }
});

test('refusals name the field path so a 400 can point at it', () => {
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [{ enabled: 'yes' }, 'semantic_cache.enabled', /boolean/],
    [{ mode: 'fuzzy' }, 'semantic_cache.mode', /"semantic", "exact", "shadow"/],
    [{ similarity_threshold: 0 }, 'semantic_cache.similarity_threshold', /above 0/],
    [{ similarity_threshold: 1.01 }, 'semantic_cache.similarity_threshold', /1\.01/],
    [{ similarity_threshold: '0.9' }, 'semantic_cache.similarity_threshold', /"0\.9"/],
    [{ ttl_seconds: 0 }, 'semantic_cache.ttl_seconds', /integer from 1 to 2592000/],
    [{ ttl_seconds: 30 * 86_400 + 1 }, 'semantic_cache.ttl_seconds', /integer/],
    [{ ttl_seconds: 1.5 }, 'semantic_cache.ttl_seconds', /integer/],
    [{ max_temperature: 2.5 }, 'semantic_cache.max_temperature', /from 0 to 2/],
    [{ max_temperature: -0.1 }, 'semantic_cache.max_temperature', /from 0 to 2/],
    [{ max_messages: 0 }, 'semantic_cache.max_messages', /integer/],
    [{ embedder: 'text-embedding-3-small' }, 'semantic_cache.embedder', /"local"/],
    [{ embedder: '@Bad Slug' }, 'semantic_cache.embedder', /config slug/],
    [{ embedder: 'openai/' }, 'semantic_cache.embedder', /vendor/],
    [{ scope: 'org' }, 'semantic_cache.scope', /"project", "end_user"/],
    [{ max_entries: 1_000_001 }, 'semantic_cache.max_entries', /1 to 1000000/],
    [{ enabled: null }, 'semantic_cache.enabled', /null/],
  ];
  for (const [raw, field, message] of cases) {
    const r = refused(raw);
    assert.equal(r.field, field, JSON.stringify(raw));
    assert.match(r.message, message, JSON.stringify(raw));
  }
});

test('unknown keys are refused (a typo must not silently keep the default)', () => {
  const r = refused({ enabled: true, similarity_treshold: 0.9 });
  assert.equal(r.field, 'semantic_cache.similarity_treshold');
  assert.match(r.message, /unknown setting.*similarity_threshold/);
});

test('the refusal named does not depend on key order', () => {
  assert.deepEqual(refused({ z_unknown: 1, mode: 'x' }), refused({ mode: 'x', z_unknown: 1 }));
});

test('a non-object setting is refused at the setting itself', () => {
  for (const raw of [true, 'on', [], 3]) assert.equal(refused(raw).field, 'semantic_cache');
});

test('long offending values are cut short in the message', () => {
  assert.ok(refused({ embedder: 'x'.repeat(500) }).message.length < 200);
});

test('the tenant is the project, or project:end_user when entries are per end user', () => {
  const project = { ...DEFAULT_CACHE_SETTINGS };
  const perUser: CacheSettings = { ...DEFAULT_CACHE_SETTINGS, scope: 'end_user' };
  assert.equal(cacheTenant(project, 'proj_1', 'alice'), 'proj_1');
  assert.equal(cacheTenant(perUser, 'proj_1', 'alice'), 'proj_1:alice');
  assert.equal(cacheTenant(perUser, 'proj_1', null), undefined);
  assert.equal(cacheTenant(perUser, 'proj_1', ''), undefined);
});
