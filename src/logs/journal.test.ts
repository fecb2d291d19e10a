import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import pino from 'pino';
import { callRecord } from '../../test/helpers/call-record.ts';
import { lineRow, logLine, type RequestLogRow } from '../store/request-log-row.ts';
import { JournaledSink } from './journal.ts';
import { toStoreRow } from './request-log-hook.ts';
import type { RequestLogSink } from './writer.ts';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'switchyard-journal-'));
  dirs.push(d);
  return join(d, 'journal');
}

/** A complete row, as the request-log hook makes them. */
function fullRow(id: string): RequestLogRow {
  const body = '{"model":"m","messages":[{"role":"user","content":"say \\"hi\\"\\n"}]}';
  return toStoreRow(callRecord({ id, tags: { team: 'a' }, requestBody: body, responseBody: { ok: true } }), true);
}

function row(n: number): RequestLogRow {
  return { id: `req_${String(n).padStart(6, '0')}`, statusCode: 200 } as RequestLogRow;
}

/** Stores rows on flush unless told to fail, like a writer whose database is down. */
class FakeStore implements RequestLogSink {
  stored: string[] = [];
  queued: RequestLogRow[] = [];
  /** The lines handed along with the rows. */
  lines: Array<string | undefined> = [];
  /** Every row stored, in full. */
  rows: RequestLogRow[] = [];
  failing = false;
  failed = 0;
  enqueue(r: RequestLogRow, line?: string): void {
    this.queued.push(r);
    this.lines.push(line);
  }
  async flush(): Promise<void> {
    const batch = this.queued.splice(0);
    if (this.failing) this.failed += batch.length;
    else {
      this.stored.push(...batch.map((r) => r.id));
      this.rows.push(...batch);
    }
  }
  close(): Promise<void> {
    return this.flush();
  }
  get pending(): number {
    return this.queued.length;
  }
}

test('committed segments are deleted; close leaves nothing behind', async () => {
  const dir = tempDir();
  const store = new FakeStore();
  const sink = await JournaledSink.open(dir, store, silent);
  for (let i = 0; i < 10; i++) sink.enqueue(row(i));
  // Each row is on disk when enqueue returns (the proxy writes the answer right after).
  const [segment] = readdirSync(dir);
  assert.equal(readFileSync(join(dir, segment), 'utf8').trim().split('\n').length, 10);
  await sink.flush();
  assert.equal(store.stored.length, 10);
  assert.deepEqual(readdirSync(dir).length, 1, 'only the new, empty segment is left');
  sink.enqueue(row(10));
  await sink.close();
  assert.deepEqual(readdirSync(dir), []);
  assert.equal(store.stored.length, 11);
});

test('rows the store gave up on stay journaled and are replayed by the next start', async () => {
  const dir = tempDir();
  const broken = new FakeStore();
  broken.failing = true;
  const sink = await JournaledSink.open(dir, broken, silent);
  for (let i = 0; i < 5; i++) sink.enqueue(row(i));
  await sink.flush();
  broken.failing = false;
  sink.enqueue(row(5));
  await sink.flush();
  assert.deepEqual(broken.stored, ['req_000005']);

  await sink.close();

  // The next start (here: the same pid, as a container restarting as pid 1 would be) replays them.
  const next = new FakeStore();
  const restarted = await JournaledSink.open(dir, next, silent);
  assert.deepEqual(next.stored, ['req_000000', 'req_000001', 'req_000002', 'req_000003', 'req_000004']);
  await restarted.close();
  assert.deepEqual(readdirSync(dir), []);
});

test('a segment of a dead process is replayed, a line cut by the kill is skipped', async () => {
  const dir = tempDir();
  const first = await JournaledSink.open(dir, new FakeStore(), silent);
  await first.close();
  // pid 2^22+1 is above Linux's pid_max, so it is never alive.
  const orphan = join(dir, 'journal-4194305-1-000000.ndjson');
  writeFileSync(orphan, `${JSON.stringify(row(1))}\n${JSON.stringify(row(2))}\n`);
  appendFileSync(orphan, '{"id":"req_0000');
  const store = new FakeStore();
  const sink = await JournaledSink.open(dir, store, silent);
  assert.deepEqual(store.stored, ['req_000001', 'req_000002']);
  assert.ok(!readdirSync(dir).includes('journal-4194305-1-000000.ndjson'));
  await sink.close();
});

test('a live process’s journal is left alone', async () => {
  const dir = tempDir();
  const store = new FakeStore();
  const a = await JournaledSink.open(dir, store, silent);
  a.enqueue(row(1));
  // Another instance sharing the data dir must not replay rows `a` still owns.
  const otherStore = new FakeStore();
  const b = await JournaledSink.open(dir, otherStore, silent);
  assert.deepEqual(otherStore.stored, []);
  await b.close();
  await a.close();
  assert.deepEqual(store.stored, ['req_000001']);
});

test('the writer gets the very line the journal wrote, so the row is serialized once', async () => {
  const dir = tempDir();
  const store = new FakeStore();
  const sink = await JournaledSink.open(dir, store, silent);
  const rows = [fullRow('req_a'), fullRow('req_b')];
  for (const r of rows) sink.enqueue(r);
  const [segment] = readdirSync(dir);
  const onDisk = readFileSync(join(dir, segment), 'utf8').split('\n').slice(0, -1);
  assert.deepEqual(store.lines, onDisk);
  assert.deepEqual(
    onDisk.map((l) => lineRow(l).id),
    ['req_a', 'req_b'],
  );
  await sink.close();
});

test('a dead process’s segment in today’s line format is replayed whole', async () => {
  const dir = tempDir();
  const first = await JournaledSink.open(dir, new FakeStore(), silent);
  await first.close();
  const orphan = join(dir, 'journal-4194305-2-000000.ndjson');
  const written = fullRow('req_c');
  writeFileSync(orphan, `${logLine(written)}\n${logLine(fullRow('req_d'))}\n`);
  const store = new FakeStore();
  const sink = await JournaledSink.open(dir, store, silent);
  assert.deepEqual(store.stored, ['req_c', 'req_d']);
  // Whole milliseconds here, so the row comes back as it was.
  assert.deepEqual(store.rows[0], written);
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith('journal-4194305-')),
    [],
  );
  await sink.close();
});
