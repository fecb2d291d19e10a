// SWITCHYARD_CONFIG with `serve`: a bad file stops the start naming the line and the field; SIGHUP
// re-applies a good file and keeps the running state when the file turned bad.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { spawnGateway } from '../helpers/gateway-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'sy-cac-serve-'));

const configFile = (model: string) => `
routing_configs:
  - slug: main
    strategy: single
    config: { model: ${model} }
`;

function serveFails(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['bin/switchyard.js', 'serve', '--port', '0'], {
    env: {
      ...process.env,
      SWITCHYARD_DATA_DIR: mkdtempSync(join(dir, 'data-')),
      SWITCHYARD_LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

// biome-ignore lint/suspicious/noTemplateCurlyInString: the config file syntax, not a template
test('a missing ${env:...} and a schema error each stop serve with the line and the field', async () => {
  const envFile = join(dir, 'env.yaml');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the config file syntax, not a template
  writeFileSync(envFile, 'providers:\n  - name: openai\n    vendor: openai\n    api_key: ${env:CAC_SERVE_MISSING}\n');
  const env = await serveFails({ SWITCHYARD_CONFIG: envFile });
  assert.equal(env.code, 1);
  assert.match(
    env.stderr,
    new RegExp(`${envFile}:4: providers\\[0\\]\\.api_key: environment variable CAC_SERVE_MISSING is not set`),
  );
  const schemaFile = join(dir, 'schema.yaml');
  writeFileSync(
    schemaFile,
    'routing_configs:\n  - slug: main\n    strategy: single\n    config: {}\n    colour: blue\n',
  );
  const schema = await serveFails({ SWITCHYARD_CONFIG: schemaFile });
  assert.equal(schema.code, 1);
  assert.match(schema.stderr, new RegExp(`${schemaFile}:5: routing_configs\\[0\\]\\.colour: unknown field`));
});

test('SIGHUP re-applies the file; a broken file keeps serving the old state', async () => {
  const file = join(dir, 'live.yaml');
  writeFileSync(file, configFile('openai/gpt-4o-mini'));
  const gw = await spawnGateway({ SWITCHYARD_CONFIG: file });
  const model = async () => {
    const res = await fetch(`${gw.url}/manage/v1/routing-configs`, { headers: { authorization: `Bearer ${gw.key}` } });
    const body = (await res.json()) as { data: { slug: string; config: { model: string }; version: number }[] };
    return body.data.find((c) => c.slug === 'main');
  };
  const waitFor = async (want: string) => {
    for (let i = 0; i < 200; i++) {
      if ((await model())?.config.model === want) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`the config never became ${want}`);
  };
  try {
    assert.equal((await model())?.config.model, 'openai/gpt-4o-mini');
    writeFileSync(file, configFile('openai/gpt-4o'));
    gw.child.kill('SIGHUP');
    await waitFor('openai/gpt-4o');
    writeFileSync(file, `${configFile('openai/gpt-4.1')}    bogus: true\n`);
    gw.child.kill('SIGHUP');
    // Reloads run one after the other: once a later good file is in force, the broken one was
    // handled before it, and it must have written nothing (version 3 follows version 2).
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await fetch(`${gw.url}/healthz`)).status, 200);
    assert.equal((await model())?.config.model, 'openai/gpt-4o');
    writeFileSync(file, configFile('openai/gpt-4o-mini'));
    gw.child.kill('SIGHUP');
    await waitFor('openai/gpt-4o-mini');
    assert.equal((await model())?.version, 3);
    assert.equal(gw.child.exitCode, null);
  } finally {
    await gw.stop();
  }
});
