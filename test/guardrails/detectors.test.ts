import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { resolveOverlaps } from '../../src/guardrails/matcher.ts';
import { findPii, luhnValid, ssnValid } from '../../src/guardrails/pii.ts';
import { PLACEHOLDER_MAX, PlaceholderBook, placeholderHold } from '../../src/guardrails/placeholders.ts';
import type { PiiEntity } from '../../src/guardrails/policy.ts';
import { findSecrets } from '../../src/guardrails/secrets.ts';
import { CORPUS_DIR, renderTable, scoreAll } from './corpus-score.ts';

const spans = (text: string, entity: PiiEntity): string[] =>
  resolveOverlaps(findPii(text, [entity])).map((f) => text.slice(f.start, f.end));

describe('validators', () => {
  it('Luhn', () => {
    assert.equal(luhnValid('79927398713'), true);
    assert.equal(luhnValid('79927398710'), false);
    assert.equal(luhnValid('4111111111111111'), true);
    assert.equal(luhnValid('4111111111111112'), false);
  });

  it('SSA rules for SSNs', () => {
    assert.equal(ssnValid('123', '45', '6789'), true);
    for (const [a, g, s] of [
      ['000', '12', '3456'],
      ['666', '12', '3456'],
      ['900', '12', '3456'],
      ['999', '12', '3456'],
      ['123', '00', '4567'],
      ['123', '45', '0000'],
    ] as const)
      assert.equal(ssnValid(a, g, s), false, `${a}-${g}-${s}`);
  });
});

describe('detectors', () => {
  it('credit cards need the Luhn digit, a network prefix and a card-like grouping', () => {
    assert.deepEqual(spans('pay 4111-1111-1111-1111 now', 'credit_card'), ['4111-1111-1111-1111']);
    assert.deepEqual(spans('pay 4111-1111-1111-1112 now', 'credit_card'), []);
    assert.deepEqual(spans('ref 1234567812345670', 'credit_card'), [], 'Luhn-valid but no network starts with 1');
  });

  it('phones: international with +, North American without', () => {
    assert.deepEqual(spans('ring +44 20 7946 0958 or (415) 555-2671', 'phone'), ['+44 20 7946 0958', '(415) 555-2671']);
    assert.deepEqual(spans('order 123-456-7890 on 2024-01-15', 'phone'), []);
  });

  it('IP addresses of both families, not times or versions with three parts', () => {
    assert.deepEqual(spans('from 10.1.2.3 and fe80::1 at 12:30:45 on v1.2.3', 'ip_address'), ['10.1.2.3', 'fe80::1']);
  });

  it('JWTs need a header that decodes to JSON naming alg', () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const good = `${enc({ alg: 'HS256' })}.${enc({ sub: 'a' })}.c2lnbmF0dXJlXzEyMw`;
    const noAlg = `${enc({ typ: 'JWT' })}.${enc({ sub: 'a' })}.c2lnbmF0dXJlXzEyMw`;
    assert.equal(findSecrets(`Bearer ${good}`).length, 1);
    assert.equal(findSecrets(`Bearer ${noAlg}`).length, 0);
  });

  it('vendor keys must look random, not like prose', () => {
    assert.equal(findSecrets('key sk-Abcdefghij0123456789Abcdefghij0123456789').length, 1);
    assert.equal(findSecrets('sk-this-is-not-a-real-key-just-some-words-here').length, 0);
  });

  it('overlapping findings keep the earliest, then the longest', () => {
    const kept = resolveOverlaps([
      { start: 5, end: 9, kind: 'a', label: 'A' },
      { start: 0, end: 6, kind: 'b', label: 'B' },
      { start: 0, end: 3, kind: 'c', label: 'C' },
      { start: 9, end: 12, kind: 'd', label: 'D' },
    ]);
    assert.deepEqual(
      kept.map((f) => f.kind),
      ['b', 'd'],
    );
  });
});

describe('placeholders', () => {
  it('same value, same placeholder; numbering per type', () => {
    const book = new PlaceholderBook();
    assert.equal(book.placeholderFor('EMAIL', 'a@x.io', false), '[EMAIL_1]');
    assert.equal(book.placeholderFor('PHONE', '+1', false), '[PHONE_1]');
    assert.equal(book.placeholderFor('EMAIL', 'b@x.io', true), '[EMAIL_2]');
    assert.equal(book.placeholderFor('EMAIL', 'a@x.io', false), '[EMAIL_1]');
    assert.deepEqual(book.restoreEntries(), [['[EMAIL_2]', 'b@x.io']]);
  });

  it('holds an unfinished placeholder and nothing else', () => {
    assert.equal(placeholderHold('see [EMAIL_'), 7);
    assert.equal(placeholderHold('see [CREDIT_CARD_12'), 15);
    assert.equal(placeholderHold('see [note]'), 0);
    assert.equal(placeholderHold('see [lower'), 0);
    assert.ok('[IP_ADDRESS_999999]'.length < PLACEHOLDER_MAX);
  });
});

describe('labelled corpus', () => {
  const scores = scoreAll();

  it('holds at least 200 labelled lines, positives and look-alikes for every entity', () => {
    const lines = readdirSync(CORPUS_DIR)
      .map((f) => readFileSync(join(CORPUS_DIR, f), 'utf8'))
      .join('\n')
      .split('\n')
      .filter((l) => /^[+-] /.test(l)).length;
    assert.ok(lines >= 200, `${lines} lines`);
    for (const s of scores) assert.ok(s.positives >= 10 && s.lookAlikes >= 10, s.entity);
  });

  it('reaches 90% precision and recall on every entity', () => {
    for (const s of scores) {
      assert.ok(s.precision >= 0.9, `${s.entity} precision ${s.precision}\n${s.misses.join('\n')}`);
      assert.ok(s.recall >= 0.9, `${s.entity} recall ${s.recall}\n${s.misses.join('\n')}`);
    }
  });

  it('README shows the current results', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    assert.ok(
      readme.includes(renderTable(scores)),
      'regenerate with: node --import tsx test/guardrails/corpus-score.ts',
    );
  });
});
