// `switchyard batch run` as a user runs it: the binary as a child process against a live gateway
// wired to the fake upstream, with its terminal output captured. A mixed batch shows progress and a
// summary and writes one result per line in the input's order; --model routes every line through a
// config; bad input is refused before anything is uploaded; a gateway error is shown as the gateway
// said it; Ctrl-C cancels the batch and still writes every line; on a terminal the bar is redrawn.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { api, type ProxyEnv, startProxyEnv, VENDOR_MODELS } from '../helpers/proxy-env.ts';
import { BIN, type CliResult, cleanEnv } from './run-cli.ts';

type Json = Record<string, unknown>;

let env: ProxyEnv;
let root: string;
before(async () => {
  // Two items in flight per batch, so the slow batch below is still running when Ctrl-C comes.
  env = await startProxyEnv({ config: { batchConcurrency: 2 } });
  root = mkdtempSync(join(tmpdir(), 'switchyard-batch-run-'));
});
after(async () => {
  await env?.close();
  rmSync(root, { recursive: true, force: true });
});

async function projectKey(name: string): Promise<string> {
  const p = await api(env.gw, 'POST', '/manage/v1/projects', { name });
  assert.equal(p.status, 201, JSON.stringify(p.json));
  const k = await api(env.gw, 'POST', '/manage/v1/api-keys', { name, project_id: (p.json as Json).id });
  assert.equal(k.status, 201, JSON.stringify(k.json));
  return (k.json as Json).key as string;
}

/** GET with a gateway key, as a user's script would. */
async function get(key: string, path: string): Promise<Json> {
  const res = await fetch(`${env.gw.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, path);
  return (await res.json()) as Json;
}

function writeInput(name: string, lines: unknown[]): string {
  const path = join(root, name);
  writeFileSync(path, `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`);
  return path;
}

function readResults(path: string): Json[] {
  return readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Json);
}

const chat = (model: string | undefined, text: string) => ({
  ...(model === undefined ? {} : { model }),
  max_tokens: 32,
  messages: [{ role: 'user', content: text }],
});

interface Running {
  child: ChildProcess;
  output(): CliResult;
  /** Resolves once stderr matches, or fails after `timeoutMs` (or when the command exits first). */
  waitForStderr(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<CliResult>;
}

function start(args: string[], extraEnv: Record<string, string> = {}, command = process.execPath): Running {
  const argv = command === process.execPath ? [BIN, ...args] : args;
  const child = spawn(command, argv, { cwd: root, env: cleanEnv(extraEnv) });
  const r: CliResult = { code: null, signal: null, stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const w of waiters) w();
  };
  child.stdout?.on('data', (d) => {
    r.stdout += String(d);
    wakeAll();
  });
  child.stderr?.on('data', (d) => {
    r.stderr += String(d);
    wakeAll();
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 25_000);
  const exited = new Promise<CliResult>((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(killer);
      r.code = code;
      r.signal = signal;
      wakeAll();
      resolve(r);
    }),
  );
  return {
    child,
    output: () => r,
    exited,
    waitForStderr(re, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`no ${re} on stderr after ${timeoutMs} ms:\n${r.stderr}`)),
          timeoutMs,
        );
        const finish = (err?: Error, m?: RegExpMatchArray) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (err) reject(err);
          else resolve(m as RegExpMatchArray);
        };
        const check = () => {
          const m = re.exec(r.stderr);
          if (m) finish(undefined, m);
          else if (r.code !== null || r.signal !== null)
            finish(new Error(`exited (${r.code ?? r.signal}) before ${re}:\n${r.stderr}`));
        };
        waiters.add(check);
        check();
      });
    },
  };
}

const PROGRESS =
  /^(batch_\w+) (validating|in_progress|finalizing|cancelling|completed|cancelled) (\d+)\/(\d+) done, (\d+) errors?, (?:[\d.]+|--) req\/s, ETA \S+$/;

function progressLines(stderr: string): RegExpExecArray[] {
  return stderr
    .split('\n')
    .map((l) => PROGRESS.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
}

describe('switchyard batch run', () => {
  test('--help shows the usage; a bad flag or value is a usage error', async () => {
    const cases: Array<{ args: string[]; code: number; says: RegExp }> = [
      { args: ['batch', 'run', '--help'], code: 0, says: /Usage: switchyard batch run \[options\] <input>/ },
      { args: ['batch', 'run', 'x.jsonl', '--concurrency', '0'], code: 2, says: /argument '0' is invalid/ },
      { args: ['batch', 'run', 'x.jsonl', '--bogus'], code: 2, says: /unknown option '--bogus'/ },
      { args: ['batch', 'run', join(root, 'absent.jsonl'), '--api-key', 'sy-x'], code: 2, says: /cannot read/ },
    ];
    await Promise.all(
      cases.map(async ({ args, code, says }) => {
        const r = await start(args).exited;
        assert.equal(r.code, code, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stdout + r.stderr, says);
      }),
    );
  });

  test('a mixed batch: progress on stderr, a summary, and one result per line in input order', async () => {
    const key = await projectKey('cli-mixed');
    const input = writeInput('mixed.jsonl', [
      { custom_id: 'a1', method: 'POST', url: '/v1/chat/completions', body: chat(VENDOR_MODELS.anthropic, 'one') },
      chat(VENDOR_MODELS.google, 'two'),
      { custom_id: 'g3', body: chat(VENDOR_MODELS.google, 'three') },
      '',
      chat(VENDOR_MODELS.anthropic, 'five'),
      // The gateway refuses this body: it goes to the batch's error file, and still to the results.
      { custom_id: 'bad', body: { model: VENDOR_MODELS.google } },
      { custom_id: 'a7', body: chat(VENDOR_MODELS.anthropic, 'seven') },
    ]);
    const run = start(['batch', 'run', input, '--url', env.gw.url, '--api-key', key]);
    const r = await run.exited;
    assert.equal(r.code, 0, r.stderr);
    const out = join(root, 'mixed.results.jsonl');
    assert.equal(r.stdout, `${out}\n`);
    assert.match(r.stderr, /^uploaded mixed\.jsonl \(6 requests\) as file-sy\S+$/m);
    const batchId = /^batch (batch_\w+) created \(\/v1\/chat\/completions\); Ctrl-C cancels it$/m.exec(r.stderr)?.[1];
    assert.ok(batchId, r.stderr);

    const progress = progressLines(r.stderr);
    assert.ok(progress.length >= 1, r.stderr);
    assert.ok(progress.every((m) => m[1] === batchId));
    const last = progress.at(-1) as RegExpExecArray;
    assert.deepEqual([last[2], last[3], last[4], last[5]], ['completed', '6', '6', '1'], r.stderr);
    // A plain line comes again only when something it counts changed.
    for (let i = 1; i < progress.length; i++)
      assert.notDeepEqual(progress[i]?.slice(2, 6), progress[i - 1]?.slice(2, 6), r.stderr);
    assert.ok(!r.stderr.includes('\r'), 'no redrawing when stderr is not a terminal');
    assert.match(r.stderr, new RegExp(`^batch ${batchId} completed in [\\d.]+m?s$`, 'm'));
    assert.match(r.stderr, /^ {2}5 completed, 1 failed, of 6/m);
    assert.ok(r.stderr.includes(`  results: ${out}\n`), r.stderr);

    const results = readResults(out);
    assert.deepEqual(
      results.map((l) => l.custom_id),
      ['a1', 'line-2', 'g3', 'line-5', 'bad', 'a7'],
    );
    const model = (l: Json) => String(((l.response as Json).body as Json).model);
    for (const i of [0, 3, 5]) assert.match(model(results[i] as Json), /claude/);
    for (const i of [1, 2]) assert.match(model(results[i] as Json), /gemini/);
    assert.equal((results[4]?.error as Json).code, 'invalid_body');
    const batch = await get(key, `/alpha/v1/batches/${batchId}`);
    assert.equal(batch.status, 'completed');
  });

  test('--model sends every line through a routing config; env vars give the gateway and the key', async () => {
    const key = await projectKey('cli-model');
    const cfg = await api(env.gw, 'POST', '/manage/v1/routing-configs', {
      name: 'cli-batch',
      strategy: 'fallback',
      config: { models: [`${VENDOR_MODELS.openai}-fail-500`, VENDOR_MODELS.google] },
    });
    assert.equal(cfg.status, 201, JSON.stringify(cfg.json));
    const slug = (cfg.json as Json).slug as string;
    const input = writeInput('model.jsonl', [
      chat(undefined, 'x'),
      chat(VENDOR_MODELS.anthropic, 'y'),
      { custom_id: 'z', body: chat('openai/gpt-4o', 'z') },
    ]);
    const out = join(root, 'chosen-name.jsonl');
    const run = start(['batch', 'run', input, '--model', `@${slug}`, '--out', out, '--concurrency', '2'], {
      SWITCHYARD_URL: env.gw.url,
      SWITCHYARD_API_KEY: key,
    });
    const r = await run.exited;
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^ {2}3 completed, 0 failed, of 3/m);
    const results = readResults(out);
    assert.deepEqual(
      results.map((l) => l.custom_id),
      ['line-1', 'line-2', 'z'],
    );
    for (const l of results) assert.match(String(((l.response as Json).body as Json).model), /gemini/);
  });

  test('a bad line is refused by number before anything is uploaded; a failed batch and a gateway error exit 1', async () => {
    const key = await projectKey('cli-bad');
    const input = writeInput('bad.jsonl', [
      chat(VENDOR_MODELS.google, 'fine'),
      '{"messages": [',
      { custom_id: 'e', url: '/v1/embeddings', body: { model: 'openai/text-embedding-3-small', input: 'x' } },
    ]);
    const r = await start(['batch', 'run', input, '--url', env.gw.url, '--api-key', key]).exited;
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /bad\.jsonl:2: not valid JSON/);
    assert.match(r.stderr, /bad\.jsonl:3: url \/v1\/embeddings differs from \/v1\/chat\/completions \(line 1\)/);
    assert.deepEqual((await get(key, '/alpha/v1/files')).data, [], 'nothing uploaded');

    const good = writeInput('good.jsonl', [chat(VENDOR_MODELS.google, 'fine')]);
    const denied = await start(['batch', 'run', good, '--url', env.gw.url, '--api-key', 'sy-not-a-real-key-000000'])
      .exited;
    assert.equal(denied.code, 1, denied.stderr);
    assert.match(denied.stderr, /^switchyard batch run: .+ \(HTTP 401\)$/m);

    // Every body refused by the gateway: the batch fails (exit 1), and the results still say why.
    const refused = writeInput('refused.jsonl', [{ model: VENDOR_MODELS.google }, { model: VENDOR_MODELS.google }]);
    const failed = await start(['batch', 'run', refused, '--url', env.gw.url, '--api-key', key]).exited;
    assert.equal(failed.code, 1, failed.stderr);
    assert.match(failed.stderr, /^batch batch_\w+ failed in /m);
    assert.match(failed.stderr, /^ {2}0 completed, 2 failed, of 2/m);
    assert.deepEqual(
      readResults(join(root, 'refused.results.jsonl')).map((l) => [l.custom_id, (l.error as Json).code]),
      [
        ['line-1', 'invalid_body'],
        ['line-2', 'invalid_body'],
      ],
    );

    const missingKey = await start(['batch', 'run', good, '--url', env.gw.url]).exited;
    assert.equal(missingKey.code, 2);
    assert.match(missingKey.stderr, /SWITCHYARD_API_KEY/);
  });

  test('Ctrl-C cancels the batch, writes every line once and exits 130', async () => {
    const key = await projectKey('cli-cancel');
    const slow = `${VENDOR_MODELS.google}-slow-300`;
    const input = writeInput(
      'slow.jsonl',
      Array.from({ length: 40 }, (_, i) => ({ custom_id: `r${i}`, body: chat(slow, `q${i}`) })),
    );
    const run = start(['batch', 'run', input, '--url', env.gw.url, '--api-key', key, '--concurrency', '2']);
    const batchId = (await run.waitForStderr(/^batch (batch_\w+) created/m))[1] as string;
    // Once some lines have finished (40 at 2 x 300 ms take about 6 s; the first finish within one).
    await run.waitForStderr(/^batch_\w+ in_progress [1-9]\d*\/40 done/m);
    run.child.kill('SIGINT');
    const r = await run.exited;
    assert.equal(r.code, 130, r.stderr);
    assert.match(r.stderr, new RegExp(`^cancelling batch ${batchId}`, 'm'));
    assert.match(r.stderr, new RegExp(`^batch ${batchId} cancelled in`, 'm'));
    const batch = await get(key, `/alpha/v1/batches/${batchId}`);
    assert.equal(batch.status, 'cancelled');

    const results = readResults(join(root, 'slow.results.jsonl'));
    assert.deepEqual(
      results.map((l) => l.custom_id),
      Array.from({ length: 40 }, (_, i) => `r${i}`),
    );
    const answered = results.filter((l) => (l.response as Json | null)?.status_code === 200 && l.error === null);
    const cancelled = results.filter((l) => (l.error as Json | null)?.code === 'batch_cancelled');
    assert.equal(answered.length + cancelled.length, 40, JSON.stringify(results));
    assert.ok(answered.length >= 1, 'the lines finished before Ctrl-C keep their responses');
    assert.ok(cancelled.length >= 1, 'the rest are cancelled');
    const counts = batch.request_counts as Json;
    assert.equal(counts.completed, answered.length);
  });

  test('Ctrl-C delivered twice at once (as under npx) is one; a later second one exits at once', async () => {
    // A stand-in gateway whose batch never stops, so the command is still polling whenever the
    // test looks, and which records what the command sent.
    const seen: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = [];
    let cancelled = false;
    const stub = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => {
        body += String(d);
      });
      req.on('end', () => {
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        const reply = (json: unknown) =>
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(json));
        if (req.url === '/alpha/v1/files') return reply({ id: 'file-sy1', object: 'file' });
        if (req.url === '/alpha/v1/batches/batch_stub/cancel') {
          cancelled = true;
          return reply({ id: 'batch_stub', status: 'cancelling' });
        }
        const status = cancelled ? 'cancelling' : 'in_progress';
        reply({ id: 'batch_stub', status, request_counts: { total: 3, completed: 1, failed: 0 } });
      });
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
      const input = writeInput('stub.jsonl', [chat('m', 'a'), chat('m', 'b'), chat('m', 'c')]);
      const run = start(['batch', 'run', input, '--url', url, '--api-key', 'sy-stub', '--concurrency', '3']);
      await run.waitForStderr(/^batch_stub in_progress 1\/3 done/m);
      const upload = seen.find((r) => r.url === '/alpha/v1/files');
      assert.equal(upload?.headers['x-svc-provider'], 'switchyard');
      assert.equal(upload?.headers.authorization, 'Bearer sy-stub');
      assert.match(upload?.body ?? '', /name="purpose"\r\n\r\nbatch\r\n/);
      const create = seen.find((r) => r.method === 'POST' && r.url === '/alpha/v1/batches');
      assert.equal(create?.headers['x-svc-batch-concurrency'], '3');
      assert.deepEqual(JSON.parse(create?.body ?? ''), {
        input_file_id: 'file-sy1',
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });

      run.child.kill('SIGINT');
      run.child.kill('SIGINT');
      await run.waitForStderr(/^cancelling batch batch_stub/m);
      // Still polling after the doubled signal: two more polls come, half a second apart.
      const polls = () => seen.filter((r) => r.method === 'GET' && cancelled).length;
      const before = polls();
      await run.waitForStderr(/^batch_stub cancelling 1\/3 done/m);
      const deadline = Date.now() + 10_000;
      while (polls() < before + 2) {
        assert.ok(Date.now() < deadline, 'polling stopped');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(run.output().code, null, 'still running');
      assert.equal(seen.filter((r) => r.url.endsWith('/cancel')).length, 1, 'one cancel');

      run.child.kill('SIGINT');
      const r = await run.exited;
      assert.equal(r.code, 130, r.stderr);
      assert.match(r.stderr, /^interrupted again: exiting without waiting for the batch to stop$/m);
      assert.equal(r.stdout, '', 'no results written');
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  test('on a terminal the progress bar is redrawn in place', async (t) => {
    if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0)
      return t.skip('needs script(1) from util-linux for a pseudo-terminal');
    const key = await projectKey('cli-tty');
    const input = writeInput('tty.jsonl', [chat(VENDOR_MODELS.google, 'a'), chat(VENDOR_MODELS.anthropic, 'b')]);
    const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
    const line = [process.execPath, BIN, 'batch', 'run', input, '--url', env.gw.url, '--api-key', key]
      .map(quote)
      .join(' ');
    // script(1) runs the command on a pseudo-terminal and copies what it wrote to its stdout.
    const r = await start(['-qefc', line, '/dev/null'], {}, 'script').exited;
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\r\[[█░]+\] +\d+% \d\/2 {2}\d errors? {2}/);
    assert.match(r.stdout, /\r\[█+\] 100% 2\/2 {2}0 errors {2}[^\r\n]*completed/);
    assert.ok(r.stdout.includes('completed\x1b[K\r\n'), 'the finished line is cleared to its end, then left');
    assert.equal(progressLines(r.stdout.replaceAll('\r\n', '\n')).length, 0, 'no plain progress lines');
    assert.match(r.stdout, /2 completed, 0 failed, of 2/);
  });
});
