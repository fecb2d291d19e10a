// Output checks on a stream, as a step function: state and a text delta in, the text that is safe
// to send and a possible refusal out. Text is held back only while it could still be (the start
// of) a match an enforcing `mask` or `block` check would act on:
//  - fixed windows of `maxLen - 1` characters: phone 31, credit_card 22, iban 41, us_ssn 10,
//    ip_address 44, keyword: twice the longest word, regex: its `max_match`;
//  - email: the trailing run of address characters (at most 253);
//  - secret: the trailing run of token characters (at most 8,192), or from an unclosed
//    `-----BEGIN ... PRIVATE KEY-----` line (at most 16,384);
//  - restore: from an unfinished `[PLACEHOLDER_n` (at most 23).
// `flag` and `shadow` checks change nothing, so they hold nothing back: they run once over the
// whole text at the end.
import { type ActiveCheck, activeChecks, findAll, type GuardrailVerdict, textPass, VerdictTally } from './engine.ts';
import { type Finding, holdOf, resolveOverlaps } from './matcher.ts';
import { applyMasks, type MaskSpan, type PlaceholderBook, placeholderHold, restoreText } from './placeholders.ts';
import type { GuardrailPolicy } from './policy.ts';

/** Released characters kept so that look-behinds at the cut see the real neighbour. */
const CONTEXT_CHARS = 16;

export interface OutputScanState {
  /** Enforcing `mask`/`block` text checks: the ones that act while the text flows. */
  readonly acting: readonly ActiveCheck[];
  /** `flag` and shadow text checks, run over the whole text at the end. */
  readonly late: readonly ActiveCheck[];
  readonly book: PlaceholderBook;
  readonly tally: VerdictTally;
  /** Model text not yet restored (a placeholder may be arriving). */
  pending: string;
  /** Restored text not yet released. */
  held: string;
  /** The last released characters (restored, unmasked). */
  context: string;
  /** Restored text of the finished blocks and of the open one, for the late checks. */
  texts: string[];
  current: string;
  blocked: GuardrailVerdict | null;
}

export interface ScanStep {
  /** Text to send now (restored and masked); may be empty. */
  text: string;
  /** Set once, on the step that found an enforcing `block`: send `text`, then end the stream with the error record. */
  blocked: GuardrailVerdict | null;
}

/** A new scan for one answer. Pass the input stage's book so placeholders are restored and numbered on. */
export function startOutputScan(policies: readonly GuardrailPolicy[], book: PlaceholderBook): OutputScanState {
  const text = activeChecks(policies, 'output').filter((a) => a.matchers.length > 0);
  const acts = (a: ActiveCheck): boolean => a.enforce && a.check.action !== 'flag';
  return {
    acting: text.filter(acts),
    late: text.filter((a) => !acts(a)),
    book,
    tally: new VerdictTally('output'),
    pending: '',
    held: '',
    context: '',
    texts: [],
    current: '',
    blocked: null,
  };
}

interface Owned extends Finding {
  owner: ActiveCheck;
}

/** Releases what is safe of `held` (all of it when `final`). */
function release(s: OutputScanState, final: boolean): ScanStep {
  const held = s.held;
  if (held === '') return { text: '', blocked: null };
  const scan = s.context + held;
  const off = s.context.length;
  let keep = 0;
  if (!final)
    for (const a of s.acting)
      for (const m of a.matchers) if (keep < held.length) keep = Math.max(keep, holdOf(m, scan));
  // All of it may still be the start of a match: nothing can be judged yet, so nothing is scanned.
  if (keep >= held.length) return { text: '', blocked: null };
  const found: Owned[] = [];
  for (const a of s.acting) {
    for (const f of findAll(a, scan)) {
      if (f.start < off || s.book.restoredValues.has(scan.slice(f.start, f.end))) continue;
      found.push({ ...f, start: f.start - off, end: f.end - off, owner: a });
    }
  }
  let cut = held.length - keep;
  if (found.length === 0) {
    const out = held.slice(0, cut);
    s.context = (s.context + out).slice(-CONTEXT_CHARS);
    s.held = held.slice(cut);
    return { text: out, blocked: null };
  }
  // A match reaching into the held tail might still grow: hold it whole.
  for (const f of found) if (f.end > cut) cut = Math.min(cut, f.start);
  const done = found.filter((f) => f.end <= cut).sort((a, b) => a.start - b.start);
  let blocked: GuardrailVerdict | null = null;
  const masks: MaskSpan[] = [];
  for (const f of done) {
    if (blocked && f.start >= cut) break;
    s.tally.countFindings(f.owner, [f]);
    if (f.owner.check.action === 'block' && !blocked) {
      blocked = s.tally.get(f.owner)!;
      cut = f.start;
    } else if (f.owner.check.action === 'mask') {
      const restore = f.owner.check.type === 'pii' && f.owner.check.restore === true;
      masks.push({ ...f, restore });
    }
  }
  const out = held.slice(0, cut);
  const spans = (resolveOverlaps(masks) as MaskSpan[]).filter((m) => m.end <= cut);
  s.context = (s.context + out).slice(-CONTEXT_CHARS);
  s.held = blocked ? '' : held.slice(cut);
  if (blocked) s.blocked = blocked;
  return { text: applyMasks(out, spans, s.book), blocked };
}

function feed(s: OutputScanState, delta: string, final: boolean): ScanStep {
  let ready = s.pending + delta;
  s.pending = '';
  if (s.book.restore.size > 0) {
    const h = final ? 0 : placeholderHold(ready);
    s.pending = ready.slice(ready.length - h);
    ready = restoreText(ready.slice(0, ready.length - h), s.book);
  }
  if (s.late.length > 0) s.current += ready;
  if (s.acting.length === 0) return { text: ready, blocked: null };
  s.held += ready;
  return release(s, final);
}

/** One text delta of the answer. After a step reports `blocked`, stop feeding the scan. */
export function scanOutputDelta(s: OutputScanState, delta: string): ScanStep {
  if (s.blocked) return { text: '', blocked: null };
  return feed(s, delta, false);
}

/** The text block ended (`block_stop`): release everything it still holds. */
export function flushOutputBlock(s: OutputScanState): ScanStep {
  const step = s.blocked ? { text: '', blocked: null } : feed(s, '', true);
  s.context = '';
  if (s.late.length > 0) {
    // After a block the late checks still see what arrived, so the record says what was there.
    s.texts.push(s.current);
    s.current = '';
  }
  return step;
}

export interface ScanEnd extends ScanStep {
  verdicts: GuardrailVerdict[];
}

/** End of the answer: flushes the open block and runs the late (`flag`, shadow) checks over the whole text. */
export function endOutputScan(s: OutputScanState): ScanEnd {
  const last = flushOutputBlock(s);
  for (const t of s.texts) textPass(t, s.late, s.tally, s.book, s.book.restoredValues);
  s.texts = [];
  return { ...last, verdicts: s.tally.verdicts() };
}

/** Restoring placeholders inside streamed tool-call arguments (JSON text): no checks, just the hold. */
export interface ArgsRestoreState {
  pending: string;
}

export function restoreArgsDelta(st: ArgsRestoreState, book: PlaceholderBook, delta: string, final = false): string {
  if (book.restore.size === 0) return delta;
  const all = st.pending + delta;
  const h = final ? 0 : placeholderHold(all);
  st.pending = all.slice(all.length - h);
  return restoreText(all.slice(0, all.length - h), book, true);
}
