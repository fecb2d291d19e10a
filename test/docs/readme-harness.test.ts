// The README doc-test's own machinery on small fixtures: a runner that never failed anything would
// let the README go stale with a green suite.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { parseBlocks } from './markdown-blocks.ts';
import { type BlockResult, runShellBlocks } from './shell-run.ts';

let server: Server;
let base = '';

before(async () => {
  // Answers with the status named in the path: /status/404 -> 404.
  server = createServer((req, res) => {
    const status = Number(/^\/status\/(\d{3})$/.exec(req.url ?? '')?.[1] ?? 200);
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function run(markdown: string, timeoutMs = 10_000): Promise<BlockResult[]> {
  return runShellBlocks(parseBlocks(markdown), { cwd: process.cwd(), env: { ...process.env, SRV: base }, timeoutMs });
}

const fence = (code: string, lang = 'sh') => `\`\`\`${lang}\n${code}\n\`\`\`\n`;

test('variables carry from block to block; passing blocks keep their output', async () => {
  const r = await run(
    `# t\n\n${fence('X=$(curl -s $SRV/status/200 | jq -r .status)')}\ntext\n${fence('echo "got $X"')}`,
  );
  assert.deepEqual(
    r.map((x) => x.outcome.kind),
    ['passed', 'passed'],
  );
  const second = r[1]?.outcome;
  assert.ok(second?.kind === 'passed' && second.output.includes('got 200'));
});

test('an HTTP error fails its block with the README line; later blocks do not run', async () => {
  const md = `intro\n\n${fence('echo before\ncurl -s $SRV/status/404')}\n${fence('echo after')}`;
  const [first, second] = await run(md);
  assert.equal(first?.block.line, 3);
  assert.equal(first?.outcome.kind, 'failed');
  if (first?.outcome.kind !== 'failed') return;
  assert.equal(first.outcome.exitStatus, 22);
  assert.match(first.outcome.output, /before/);
  assert.match(first.outcome.output, /HTTP 404/);
  assert.match(first.outcome.output, /ends at README line 5/);
  assert.equal(second?.outcome.kind, 'not-run');
});

test('an error inside a command substitution or pipeline fails the block too', async () => {
  const [viaSubst] = await run(fence('ID=$(curl -s $SRV/status/500 | jq -r .status)\necho "$ID"'));
  assert.equal(viaSubst?.outcome.kind, 'failed');
  const [unset] = await run(fence('echo "$NOT_SET_ANYWHERE"'));
  assert.equal(unset?.outcome.kind, 'failed', 'set -u catches a variable no block set');
});

test('expect-status lets the named statuses through and requires one of them', async () => {
  const allowed = await run(`<!-- doc-test: expect-status 4xx -->\n${fence('curl -s $SRV/status/401\necho ok')}`);
  assert.equal(allowed[0]?.outcome.kind, 'passed');
  const other = await run(`<!-- doc-test: expect-status 401 -->\n${fence('curl -s $SRV/status/403')}`);
  assert.equal(other[0]?.outcome.kind, 'failed');
  const none = await run(`<!-- doc-test: expect-status 404 -->\n${fence('curl -s $SRV/status/200')}`);
  assert.equal(none[0]?.outcome.kind, 'failed');
  if (none[0]?.outcome.kind === 'failed') assert.match(none[0].outcome.output, /no curl call answered/);
});

test('skip keeps a block out; a timeout names the block that hung', async () => {
  const md = `<!-- doc-test: skip (never ends) -->\n${fence('sleep 1000')}\n${fence('sleep 1000', 'bash')}`;
  const [skipped, hung] = await run(md, 1500);
  assert.deepEqual(skipped?.outcome, { kind: 'skipped', reason: 'never ends' });
  assert.ok(hung?.outcome.kind === 'failed' && hung.outcome.timedOut);
});

test('annotations are checked: a reason is required, unknown ones and stray ones throw', () => {
  assert.throws(() => parseBlocks(`<!-- doc-test: skip -->\n${fence('true')}`), /unknown doc-test annotation/);
  assert.throws(() => parseBlocks(`<!-- doc-test: skp (x) -->\n${fence('true')}`), /unknown doc-test annotation/);
  assert.throws(() => parseBlocks(`<!-- doc-test: expect-status 4x -->\n${fence('true')}`), /expect-status/);
  assert.throws(() => parseBlocks(`<!-- doc-test: skip (x) -->\nprose\n${fence('true')}`), /right before/);
  const [b] = parseBlocks(`<!-- doc-test: expect-status 404, 5xx -->\n\n${fence('true', 'bash')}`);
  assert.deepEqual(b?.annotation, { kind: 'expect-status', statuses: ['404', '5xx'] });
  assert.equal(b?.line, 3);
});
