import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { evaluateInputChecks } from '../../src/guardrails/input.ts';
import { evaluateOutputChecks } from '../../src/guardrails/output.ts';
import { PlaceholderBook } from '../../src/guardrails/placeholders.ts';
import type { GuardrailPolicy } from '../../src/guardrails/policy.ts';
import {
  endOutputScan,
  restoreArgsDelta,
  scanOutputDelta,
  startOutputScan,
} from '../../src/guardrails/stream-scanner.ts';
import { answer, answerTextOf, policy, request } from './fixtures.ts';

const PEM =
  '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIOWZt+kVbqLZ0Jm8pv3hPqHcK8YgW0nuy4hQmX3qT2Zy\n-----END PRIVATE KEY-----';
const JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFubiIsImlhdCI6MTUxNjIzOTAyMn0.18mG9G-haksKaQZ3pDZieoei2WnFwqrSRUxRTUaBFeg';
const TEXT = [
  'Hello! Write to jane.doe@example.com or call (415) 555-2671.',
  ` Card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, SSN 219-09-9999, host 10.0.0.7 or 2001:db8::1.`,
  ` Token ${JWT} and key AKIATPT2XBOEH2HUR2B7.\n${PEM}\nThe plan is CONFIDENTIAL, ticket ABC-12345.`,
].join('');

const maskAll = (): GuardrailPolicy[] => [
  policy([
    {
      type: 'pii',
      stage: 'output',
      action: 'mask',
      entities: ['email', 'phone', 'credit_card', 'iban', 'us_ssn', 'ip_address', 'secret'],
    },
    { type: 'keywords', stage: 'output', action: 'mask', words: ['confidential'] },
    { type: 'regex', stage: 'output', action: 'mask', patterns: ['ABC-\\d+'], max_match: 12 },
  ]),
];

/** Streams `text` cut at `cuts` through a fresh scan and returns what the caller receives. */
function streamed(policies: GuardrailPolicy[], text: string, cuts: number[], book = new PlaceholderBook()) {
  const s = startOutputScan(policies, book);
  let out = '';
  let blocked = null;
  let at = 0;
  for (const c of [...cuts, text.length]) {
    const step = scanOutputDelta(s, text.slice(at, c));
    out += step.text;
    blocked ??= step.blocked;
    at = c;
    if (blocked) break;
  }
  const end = endOutputScan(s);
  return { out: out + end.text, blocked, verdicts: end.verdicts };
}

const cutsArb = (len: number) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, len - 1) }), { maxLength: 40 })
    .map((a) => a.sort((x, y) => x - y));

describe('stream scanner', () => {
  it('gives the same text and counts as the whole-answer stage, however the stream is cut', () => {
    const whole = evaluateOutputChecks(maskAll(), answer(TEXT));
    const expected = answerTextOf(whole.value);
    assert.ok(expected.includes('[EMAIL_1]') && expected.includes('[SECRET_3]') && expected.includes('[KEYWORD_1]'));
    fc.assert(
      fc.property(cutsArb(TEXT.length), (cuts) => {
        const got = streamed(maskAll(), TEXT, cuts);
        assert.equal(got.out, expected);
        assert.deepEqual(got.verdicts[0]?.counts, whole.verdicts[0]?.counts);
      }),
      { numRuns: 150, seed: 34 },
    );
  });

  it('matches the whole-answer stage one character at a time', () => {
    const cuts = Array.from({ length: TEXT.length - 1 }, (_, i) => i + 1);
    assert.equal(
      streamed(maskAll(), TEXT, cuts).out,
      answerTextOf(evaluateOutputChecks(maskAll(), answer(TEXT)).value),
    );
  });

  it('restores placeholders split across chunks and masks only new values', () => {
    const p = [policy([{ type: 'pii', stage: 'both', action: 'mask', entities: ['email'], restore: true }])];
    const input = evaluateInputChecks(p, request('I am jane.doe@example.com and cc bob@example.org'));
    const text = 'Dear [EMAIL_1], I copied [EMAIL_2] and [EMAIL_9] and [note], not carol@example.net.';
    fc.assert(
      fc.property(cutsArb(text.length), (cuts) => {
        const book = new PlaceholderBook();
        // Each run gets its own copy of the input's book, as each call would.
        for (const [ph, v] of input.book.restoreEntries())
          book.placeholderFor(ph.slice(1, ph.lastIndexOf('_')), v, true);
        assert.equal(
          streamed(p, text, cuts, book).out,
          'Dear jane.doe@example.com, I copied bob@example.org and [EMAIL_9] and [note], not [EMAIL_3].',
        );
      }),
      { numRuns: 100, seed: 7 },
    );
  });

  it('ends at a block with the text before the match released', () => {
    const p = [
      policy([
        { type: 'pii', stage: 'output', action: 'mask', entities: ['email'] },
        { type: 'regex', stage: 'output', action: 'block', patterns: ['launch codes?'], flags: 'i', max_match: 16 },
      ]),
    ];
    const text = 'Mail a@example.com. The LAUNCH CODES are 1234. More text after.';
    fc.assert(
      fc.property(cutsArb(text.length), (cuts) => {
        const got = streamed(p, text, cuts);
        assert.equal(got.out, 'Mail [EMAIL_1]. The ');
        assert.equal(got.blocked?.check_type, 'regex');
      }),
      { numRuns: 100, seed: 11 },
    );
  });

  it('holds back no more than the stated bound for fixed-width entities', () => {
    const p = [
      policy([
        {
          type: 'pii',
          stage: 'output',
          action: 'mask',
          entities: ['phone', 'credit_card', 'iban', 'us_ssn', 'ip_address'],
        },
      ]),
    ];
    const s = startOutputScan(p, new PlaceholderBook());
    const text = 'The quick brown fox jumps over the lazy dog 12 times, then 3 more. '.repeat(4);
    let fed = 0;
    let released = 0;
    for (const ch of text) {
      fed += 1;
      released += scanOutputDelta(s, ch).text.length;
      assert.ok(fed - released <= 44, `held ${fed - released} characters`); // ip_address: 45 - 1
    }
    assert.equal(released + endOutputScan(s).text.length, text.length);
  });

  it('holds only the unfinished word for email and secret checks', () => {
    const p = [policy([{ type: 'pii', stage: 'output', action: 'mask', entities: ['email', 'secret'] }])];
    const s = startOutputScan(p, new PlaceholderBook());
    assert.equal(scanOutputDelta(s, 'Hello there, my frie').text, 'Hello there, my ');
    assert.equal(scanOutputDelta(s, 'nd. ').text, 'friend. ');
    assert.equal(scanOutputDelta(s, '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2Vw').text, '');
    assert.equal(scanOutputDelta(s, 'BCIEIOWZt+kVbqLZ\n-----END PRIVATE KEY----- ok ').text, '[SECRET_1] ok ');
  });

  it('lets flag and shadow checks run at the end without holding anything', () => {
    const p = [
      policy([{ type: 'pii', stage: 'output', action: 'flag', entities: ['email'] }]),
      policy([{ type: 'pii', stage: 'output', action: 'mask', entities: ['email'] }], { mode: 'shadow' }),
    ];
    const s = startOutputScan(p, new PlaceholderBook());
    assert.equal(scanOutputDelta(s, 'to a@exam').text, 'to a@exam');
    assert.equal(scanOutputDelta(s, 'ple.com').text, 'ple.com');
    const end = endOutputScan(s);
    assert.deepEqual(
      end.verdicts.map((v) => [v.mode, v.action, v.applied, v.counts]),
      [
        ['enforce', 'flag', true, { email: 1 }],
        ['shadow', 'mask', false, { email: 1 }],
      ],
    );
  });

  it('restores placeholders in streamed tool arguments as JSON text', () => {
    const book = new PlaceholderBook();
    book.placeholderFor('EMAIL', 'o"neil@example.com', true);
    const st = { pending: '' };
    const parts = ['{"to":"[EMA', 'IL_1]"}'].map((d) => restoreArgsDelta(st, book, d));
    assert.equal(parts.join('') + restoreArgsDelta(st, book, '', true), '{"to":"o\\"neil@example.com"}');
  });
});
