// The README's "Analytics report" section states which request types count by default: it names
// exactly the list the report uses, so the two cannot drift apart.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { INFERENCE_REQUEST_TYPES } from '../../src/logs/report-request-types.ts';

test('README names the request types the report counts by default', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const start = readme.indexOf('### Analytics report');
  assert.ok(start >= 0, 'the README has an "Analytics report" section');
  const section = readme.slice(start, readme.indexOf('\n### ', start + 1));
  const rule = section.slice(section.indexOf('By default `requests` counts inference only'));
  assert.ok(rule.length < section.length, 'the section states the rule');
  const named = rule.slice(0, rule.indexOf('Polls and listings')).match(/`[a-z_]+`/g) ?? [];
  assert.deepEqual(
    named.map((n) => n.slice(1, -1)).filter((n) => n !== 'requests' && n !== 'request_type'),
    [...INFERENCE_REQUEST_TYPES],
  );
});
