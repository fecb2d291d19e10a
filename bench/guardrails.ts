// Guardrail engine micro-bench (issue 34): the five built-in checks (pii with every entity, regex,
// keywords, max_input_tokens, max_messages) on a 1 KB prompt, per call; and the stream scanner's
// cost per text delta. Pure CPU, one process, no gateway: the numbers are what the engine adds.
//
//   node --import tsx bench/guardrails.ts [--rounds 7] [--calls 4000] [--chunk 16] [--clock cpu|wall]
//
// `--clock cpu` (the default) times each round by the process's CPU time rather than the wall
// clock: on a shared machine with more runnable threads than cores, wall time mostly measures the
// wait for a core, while CPU time stays close to what the code costs.
import { parseArgs } from 'node:util';
import { evaluateInputChecks } from '../src/guardrails/input.ts';
import { PlaceholderBook } from '../src/guardrails/placeholders.ts';
import type { GuardrailPolicy } from '../src/guardrails/policy.ts';
import { endOutputScan, scanOutputDelta, startOutputScan } from '../src/guardrails/stream-scanner.ts';
import type { ChatRequest } from '../src/ir/types.ts';
import { warmTokenizer } from '../src/tokens/estimate.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    calls: { type: 'string', default: '4000' },
    chunk: { type: 'string', default: '16' },
    clock: { type: 'string', default: 'cpu' },
  },
});
const cpuClock = values.clock !== 'wall';
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const chunk = Number(values.chunk);

/** Microseconds `run` took, by the chosen clock. */
function timed(run: () => void): number {
  if (!cpuClock) {
    const t0 = process.hrtime.bigint();
    run();
    return Number(process.hrtime.bigint() - t0) / 1000;
  }
  const c0 = process.cpuUsage();
  run();
  const c = process.cpuUsage(c0);
  return c.user + c.system;
}

const PROSE =
  'Our Q3 2025 review covers the migration of the billing service (v2.4), the new onboarding flow and the ' +
  'support backlog of 312 tickets. The team shipped 3 releases, closed 41 of 57 incidents and started the ' +
  'work on regional failover. Customers asked for better export options and clearer invoices; both are ' +
  'planned for next quarter. Please summarise the main risks, list the owners of each workstream and ' +
  'suggest what we should drop if the schedule slips. ';

function fill(seed: string, size: number): string {
  let s = seed;
  while (s.length < size) s += PROSE;
  return s.slice(0, size);
}

/** 1 KB prompts: prose with a few numbers, and the same carrying an email, a card number and a phone number. */
const PROMPTS = {
  clean: fill('', 1024),
  'with PII': fill('Contact jane.doe@example.com, card 4111 1111 1111 1111, phone (415) 555-2671. ', 1024),
};

const policy: GuardrailPolicy = {
  id: 'gp_bench',
  org_id: 'org',
  name: 'bench',
  scope: { type: 'org' },
  mode: 'enforce',
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  checks: [
    {
      type: 'pii',
      stage: 'both',
      action: 'mask',
      entities: ['email', 'phone', 'credit_card', 'iban', 'us_ssn', 'ip_address', 'secret'],
    },
    {
      type: 'regex',
      stage: 'both',
      action: 'block',
      patterns: ['project\\s+(?:falcon|osprey)'],
      flags: 'i',
      max_match: 40,
    },
    { type: 'keywords', stage: 'both', action: 'flag', words: ['confidential', 'internal only', 'do not share'] },
    { type: 'max_input_tokens', stage: 'input', action: 'block', limit: 100_000 },
    { type: 'max_messages', stage: 'input', action: 'block', limit: 100 },
  ],
};

function requestOf(text: string): ChatRequest {
  return {
    model: 'm',
    system: [{ type: 'text', text: 'You are a helpful assistant.' }],
    messages: [{ role: 'user', content: [{ type: 'text', text }] }],
    tools: [],
    params: {},
    stream: false,
  };
}

/** Median and minimum of the rounds: on a shared machine the minimum is the better estimate of the code's own cost. */
const summary = (xs: number[]): string => {
  const sorted = xs.slice().sort((a, b) => a - b);
  const digits = sorted[0]! < 10 ? 2 : 1;
  return `${sorted[Math.floor(sorted.length / 2)]!.toFixed(digits)} | ${sorted[0]!.toFixed(digits)}`;
};

function timeInput(text: string): string {
  const req = requestOf(text);
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const us = timed(() => {
      for (let i = 0; i < calls; i += 1) evaluateInputChecks([policy], req);
    });
    perRound.push(us / calls);
  }
  return summary(perRound);
}

/** Microseconds per delta for a 4 KB answer cut into `chunk`-character deltas. */
function timeStream(text: string, policies: GuardrailPolicy[]): string {
  const deltas: string[] = [];
  for (let i = 0; i < text.length; i += chunk) deltas.push(text.slice(i, i + chunk));
  const streams = Math.max(1, Math.floor(calls / 20));
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const us = timed(() => {
      for (let n = 0; n < streams; n += 1) {
        const s = startOutputScan(policies, new PlaceholderBook());
        for (const d of deltas) scanOutputDelta(s, d);
        endOutputScan(s);
      }
    });
    perRound.push(us / (streams * deltas.length));
  }
  return summary(perRound);
}

/**
 * A plain 1 KB character loop, printed alongside so that figures from a loaded machine can be
 * scaled (about 3 us of CPU time on this 2-core machine).
 */
function calibration(): string {
  const text = PROMPTS.clean;
  let sink = 0;
  const perRound: number[] = [];
  for (let r = 0; r < rounds; r += 1) {
    const us = timed(() => {
      for (let i = 0; i < calls; i += 1) for (let j = 0; j < text.length; j += 1) sink += text.charCodeAt(j) & 1;
    });
    perRound.push(us / calls);
  }
  if (sink < 0) console.log(sink);
  return summary(perRound);
}

warmTokenizer();
for (const text of Object.values(PROMPTS))
  for (let i = 0; i < 2000; i += 1) evaluateInputChecks([policy], requestOf(text));

console.log(`guardrails engine, node ${process.version}, ${rounds} rounds, ${cpuClock ? 'CPU time' : 'wall clock'}\n`);
console.log('| Measure | median us | min us |');
console.log('|---|---|---|');
for (const [name, text] of Object.entries(PROMPTS)) {
  console.log(`| five built-in checks, 1 KB prompt, ${name} | ${timeInput(text)} |`);
}
const answer = PROMPTS['with PII'].repeat(4);
const noPolicy = timeStream(answer, []);
console.log(`| stream scan per ${chunk}-char delta, no text checks | ${noPolicy} |`);
console.log(`| stream scan per ${chunk}-char delta, the same five checks | ${timeStream(answer, [policy])} |`);
console.log(`| calibration: a plain 1 KB charCodeAt loop | ${calibration()} |`);
