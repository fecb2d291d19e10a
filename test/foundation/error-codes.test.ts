// The README's error table is generated from the registry; this fails when either drifts.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ERROR_CODES, errorTableMarkdown, renderMessage } from '../../src/errors/codes.ts';
import { GatewayError } from '../../src/errors/gateway-error.ts';

test('the README error table matches src/errors/codes.ts', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const m = /<!-- error-codes:start -->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(readme);
  assert.ok(m, 'README.md has no error-codes block');
  assert.equal(
    m[1],
    errorTableMarkdown(),
    'regenerate it: node --import tsx -e "import(\'./src/errors/codes.ts\').then((m) => console.log(m.errorTableMarkdown()))"',
  );
});

test('every registry entry renders a status, both types and a message', () => {
  for (const [code, spec] of Object.entries(ERROR_CODES)) {
    assert.ok(spec.status >= 400 && spec.status < 600, code);
    const e = new GatewayError(code as keyof typeof ERROR_CODES, { vars: { message: 'm' } });
    assert.equal(e.status, spec.status);
    assert.equal(e.wireCode, code);
    assert.ok(e.message.length > 0, code);
  }
  assert.equal(renderMessage('a {x} {y}', { x: 1 }), 'a 1 {y}');
});

test('an upstream status passed on keeps its status and gets the matching types', () => {
  const e = new GatewayError('upstream_rejected', { message: 'nope', status: 404 });
  assert.equal(e.status, 404);
  assert.equal(e.betaType, 'not_found_error');
});
