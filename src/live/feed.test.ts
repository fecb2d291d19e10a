import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pino from 'pino';
import { LocalChangeBus } from '../cluster/local/change-bus.ts';
import { Freshness, isDeleted, LiveMirror } from './feed.ts';

describe('Freshness', () => {
  test('a newer stamp wins whichever read started first', () => {
    const f = new Freshness();
    const early = f.ticket();
    const late = f.ticket();
    assert.equal(f.admit('a', '2026-01-01T00:00:00.002Z', false, late), true);
    assert.equal(f.admit('a', '2026-01-01T00:00:00.001Z', false, late + 1), false, 'older stamp, later read');
    assert.equal(f.admit('a', '2026-01-01T00:00:00.003Z', false, early), true, 'newer stamp, earlier read');
  });

  test('on an equal stamp, the read that started later wins', () => {
    const f = new Freshness();
    const poll = f.ticket();
    const event = f.ticket();
    const stamp = '2026-01-01T00:00:00.000Z';
    assert.equal(f.admit('a', stamp, false, event), true);
    assert.equal(f.admit('a', stamp, false, poll), false, 'a poll that started before the event reload is stale');
    assert.equal(f.admit('a', stamp, false, event), true, 'the same read again is harmless');
    assert.equal(f.admit('a', stamp, false, f.ticket()), true);
  });

  test('a final state is never undone, and always applies', () => {
    const f = new Freshness();
    const t = f.ticket();
    assert.equal(f.admit('k', '2026-01-01T00:00:00.005Z', false, t), true);
    // Revocation stamped with a slightly older clock (another process) still applies.
    assert.equal(f.admit('k', '2026-01-01T00:00:00.004Z', true, t), true);
    assert.equal(f.admit('k', '2026-01-01T00:00:00.009Z', false, f.ticket()), false);
    assert.equal(f.admit('k', '2026-01-01T00:00:00.009Z', true, f.ticket()), true);
  });

  test('entities are judged separately', () => {
    const f = new Freshness();
    const t = f.ticket();
    assert.equal(f.admit('a', '2', true, t), true);
    assert.equal(f.admit('b', '1', false, t), true);
  });
});

interface Row {
  id: string;
  updatedAt: string;
  deletedAt: string | null;
  name: string;
}

/** The store side of a mirror: rows by id, with the poll's read held open while a test wants it. */
class FakeStore {
  readonly rows = new Map<string, Row>();
  #pollGate: Promise<void> | undefined;
  #pollRead: (() => void) | undefined;

  async get(_orgId: string, id: string): Promise<Row | undefined> {
    return this.rows.get(id);
  }

  async changedSince(since: string): Promise<Row[]> {
    const read = [...this.rows.values()].filter((r) => r.updatedAt >= since);
    this.#pollRead?.();
    await this.#pollGate;
    return read;
  }

  /** The next poll reads at once and then waits for `release`; `read` resolves when it has read. */
  holdPoll(): { read: Promise<void>; release: () => void } {
    let release!: () => void;
    this.#pollGate = new Promise<void>((r) => {
      release = r;
    });
    const read = new Promise<void>((r) => {
      this.#pollRead = r;
    });
    return { read, release };
  }
}

/** A bus that resumes when told: a Redis bus subscribing (again) after events it could not hear. */
class ResumingBus extends LocalChangeBus {
  readonly #resume = new Set<() => void>();

  override onResume(handler: () => void): () => void {
    this.#resume.add(handler);
    return () => void this.#resume.delete(handler);
  }

  resume(): void {
    for (const h of this.#resume) h();
  }
}

class NameMirror extends LiveMirror<Row> {
  readonly names = new Map<string, string>();
  readonly applied: Row[] = [];

  constructor(store: FakeStore, bus: LocalChangeBus) {
    const warm = async () => [...store.rows.values()];
    super({ name: 'names', topic: 'project', store, final: isDeleted, warm }, bus, silent, 3_600_000);
  }

  protected override apply(row: Row): void {
    this.applied.push(row);
    if (row.deletedAt !== null) this.remove(row.id);
    else this.names.set(row.id, row.name);
  }

  protected override remove(id: string): void {
    this.names.delete(id);
  }
}

const silent = pino({ level: 'silent' });
const row = (id: string, updatedAt: string, name: string, deletedAt: string | null = null): Row => ({
  id,
  updatedAt,
  deletedAt,
  name,
});

describe('LiveMirror', () => {
  test('start loads the warm rows; an event reloads the one row it names', async () => {
    const store = new FakeStore();
    const bus = new LocalChangeBus();
    store.rows.set('a', row('a', '2026-01-01T00:00:01Z', 'one'));
    const m = new NameMirror(store, bus);
    await m.start();
    assert.equal(m.names.get('a'), 'one');
    store.rows.set('a', row('a', '2026-01-01T00:00:02Z', 'two'));
    store.rows.set('b', row('b', '2026-01-01T00:00:02Z', 'unannounced'));
    await bus.publish({ topic: 'project', orgId: 'org', id: 'a' });
    assert.equal(m.names.get('a'), 'two');
    assert.equal(m.names.has('b'), false, 'only the named entity is read');
    await bus.publish({ topic: 'budget', orgId: 'org', id: 'b' });
    assert.equal(m.names.has('b'), false, 'other topics are not heard');
    m.stop();
  });

  test('a poll that read before a write does not undo what the write event applied', async () => {
    const store = new FakeStore();
    const bus = new LocalChangeBus();
    const m = new NameMirror(store, bus);
    // The poll reads rows changed since about two seconds ago.
    const stamp = new Date().toISOString();
    store.rows.set('a', row('a', stamp, 'before'));
    const hold = store.holdPoll();
    const poll = m.refresh();
    await hold.read;
    // Same updated_at (a clock that did not move): the later read wins.
    store.rows.set('a', row('a', stamp, 'after'));
    await bus.publish({ topic: 'project', orgId: 'org', id: 'a' });
    hold.release();
    await poll;
    assert.equal(m.names.get('a'), 'after');
    assert.deepEqual(
      m.applied.map((r) => r.name),
      ['after'],
      'the stale poll row never reached apply',
    );
    m.stop();
  });

  test('a deleted row stays deleted; an entity the store no longer has is removed', async () => {
    const store = new FakeStore();
    const bus = new LocalChangeBus();
    const m = new NameMirror(store, bus);
    const live = row('a', '2026-01-01T00:00:01Z', 'one');
    store.rows.set('a', row('a', '2026-01-01T00:00:00Z', 'one', '2026-01-01T00:00:00Z'));
    await bus.publish({ topic: 'project', orgId: 'org', id: 'a' });
    store.rows.set('a', live);
    await bus.publish({ topic: 'project', orgId: 'org', id: 'a' });
    assert.equal(m.names.has('a'), false, 'a live row after a final one is a stale read');

    store.rows.set('b', row('b', '2026-01-01T00:00:01Z', 'two'));
    await bus.publish({ topic: 'project', orgId: 'org', id: 'b' });
    assert.equal(m.names.get('b'), 'two');
    store.rows.delete('b');
    await bus.publish({ topic: 'project', orgId: 'org', id: 'b' });
    assert.equal(m.names.has('b'), false);
    m.stop();
  });

  test('refresh during a poll that read before a write waits for a poll that reads after it', async () => {
    const store = new FakeStore();
    const m = new NameMirror(store, new LocalChangeBus());
    const hold = store.holdPoll();
    const early = m.refresh();
    await hold.read;
    // Committed by another instance after the poll under way read: the caller of refresh needs it.
    store.rows.set('a', row('a', new Date().toISOString(), 'committed'));
    const late = m.refresh();
    hold.release();
    await early;
    await late;
    assert.equal(m.names.get('a'), 'committed');
    m.stop();
  });

  test('when the bus resumes, the mirror reads what changed at once, without its timer', async () => {
    const store = new FakeStore();
    const bus = new ResumingBus();
    const m = new NameMirror(store, bus);
    await m.start();
    // Written and announced elsewhere while this bus could not hear: no event will come.
    store.rows.set('a', row('a', new Date().toISOString(), 'unheard'));
    bus.resume();
    for (let i = 0; i < 20 && !m.names.has('a'); i++) await new Promise((r) => setImmediate(r));
    assert.equal(m.names.get('a'), 'unheard');
    m.stop();
    store.rows.set('b', row('b', new Date().toISOString(), 'after stop'));
    bus.resume();
    await new Promise((r) => setImmediate(r));
    assert.equal(m.names.has('b'), false, 'a stopped mirror no longer answers resumes');
  });

  test('stop unsubscribes', async () => {
    const store = new FakeStore();
    const bus = new LocalChangeBus();
    const m = new NameMirror(store, bus);
    m.stop();
    store.rows.set('a', row('a', '2026-01-01T00:00:01Z', 'one'));
    await bus.publish({ topic: 'project', orgId: 'org', id: 'a' });
    assert.equal(m.names.size, 0);
  });
});
