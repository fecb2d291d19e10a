// The dashboard's source holds to its rules: it type-checks with the DOM library (the root
// tsconfig has none, so `npm run typecheck` cannot cover it), it reaches the network only through
// the management API client, it names no remote host (no CDN, nothing fetched at run time), and no
// template runs two words together across a line break.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { REPO } from './helpers/build.ts';
import { findJoins } from './helpers/htm-joins.ts';

const SRC = join(REPO, 'ui', 'src');

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|css)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

test('ui/ type-checks (strict, DOM)', () => {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', join(REPO, 'ui', 'tsconfig.json')], { stdio: 'pipe' });
  } catch (err) {
    const out = err as { stdout?: Buffer };
    assert.fail(`tsc -p ui/tsconfig.json failed:\n${out.stdout?.toString() ?? String(err)}`);
  }
});

test('only api.ts talks to the network, and only to /manage/v1 and the sign-in routes', () => {
  const api = readFileSync(join(SRC, 'api.ts'), 'utf8');
  assert.match(api, /export const API_BASE = '\/manage\/v1';/);
  assert.match(api, /export const SSO_BASE = '\/sso';/);
  for (const file of sources()) {
    const text = readFileSync(file, 'utf8');
    const rel = relative(REPO, file);
    if (!file.endsWith('api.ts')) {
      assert.doesNotMatch(
        text,
        /\bfetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon/,
        `${rel} opens a connection`,
      );
    }
    assert.doesNotMatch(text, /https?:\/\/(?!example\.com)[a-z0-9.-]+/i, `${rel} names a remote host`);
    assert.doesNotMatch(text, /@import\s+(url\()?["']?https?:/, `${rel} imports remote CSS`);
  }
});

test('no htm template runs words together at a line break ("for examplePOST")', () => {
  const found = sources()
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) =>
      findJoins(readFileSync(file, 'utf8')).map((j) => `${relative(REPO, file)}:${j.line}: ${j.context}`),
    );
  assert.deepEqual(found, []);
});

test('the join finder sees the joins htm makes', () => {
  // #{…} stands for an interpolation, kept out of the string literals.
  const src = [
    'html`<p>Send one, for example',
    '  <code>POST /v1/chat</code>',
    '  or <code>POST /v1/messages</code>; it shows.</p>`;',
    'html`<p>Policy <strong>#{p}</strong> · would call',
    '  <strong>#{t}</strong></p>`;',
    'html`<p>#{a}',
    '  · forecast</p>`;',
    'html`<span><#{Badge}>daily<//>',
    '  <#{Badge}>blocks<//></span>`;',
    // Not joins: a break before a closing tag or a block, punctuation after an element, one line.
    'html`<p>Text here',
    '  </p><div>#{x}</div><p><code>x</code>,',
    '  and more <code>y</code> then</p>`;',
  ]
    .join('\n')
    .replaceAll('#{', '$' + '{');
  assert.deepEqual(
    findJoins(src).map((j) => j.line),
    [2, 3, 5, 7, 9],
  );
});
