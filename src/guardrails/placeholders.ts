// Typed placeholders for masked values. One book per call: the same value always gets the same
// placeholder, numbering continues from the input into the output, and values masked by a check
// with `restore: true` can be put back into the answer.
import type { Finding } from './matcher.ts';

/** A placeholder as the engine writes it: `[EMAIL_1]`, `[CREDIT_CARD_12]`. */
export const PLACEHOLDER_RE = /\[[A-Z][A-Z_]*_\d{1,6}\]/g;
/** Longest placeholder text (`[IP_ADDRESS_999999]` and friends); the restore step holds back less than this. */
export const PLACEHOLDER_MAX = 24;

export class PlaceholderBook {
  private readonly counters = new Map<string, number>();
  private readonly byValue = new Map<string, string>();
  /** Placeholder -> original, only for values whose check asked for `restore`. */
  readonly restore = new Map<string, string>();
  /** The originals in `restore`: output checks leave these alone (the caller sent them). */
  readonly restoredValues = new Set<string>();

  placeholderFor(label: string, value: string, restore: boolean): string {
    const key = `${label}\u0000${value}`;
    let ph = this.byValue.get(key);
    if (ph === undefined) {
      const n = (this.counters.get(label) ?? 0) + 1;
      this.counters.set(label, n);
      ph = `[${label}_${n}]`;
      this.byValue.set(key, ph);
    }
    if (restore && !this.restore.has(ph)) {
      this.restore.set(ph, value);
      this.restoredValues.add(value);
    }
    return ph;
  }

  /** Every masked original with its placeholder, longest original first (for `maskKnownValues`). */
  maskedValues(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    for (const [key, ph] of this.byValue) out.push([key.slice(key.indexOf('\u0000') + 1), ph]);
    return out.sort((a, b) => b[0].length - a[0].length);
  }

  /** The restore map as plain data, for the log row or a dry run. */
  restoreEntries(): Array<[string, string]> {
    return [...this.restore];
  }
}

export interface MaskSpan extends Finding {
  restore: boolean;
}

/** Replaces non-overlapping, start-sorted spans with their placeholders. */
export function applyMasks(text: string, spans: readonly MaskSpan[], book: PlaceholderBook): string {
  if (spans.length === 0) return text;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += text.slice(at, s.start) + book.placeholderFor(s.label, text.slice(s.start, s.end), s.restore);
    at = s.end;
  }
  return out + text.slice(at);
}

/** Puts originals back for the placeholders the book may restore; others stay as written. */
export function restoreText(text: string, book: PlaceholderBook, escapeForJson = false): string {
  if (book.restore.size === 0 || !text.includes('[')) return text;
  return text.replace(PLACEHOLDER_RE, (ph) => {
    const original = book.restore.get(ph);
    if (original === undefined) return ph;
    // Inside a JSON string (tool arguments) the original must be escaped like any other text.
    return escapeForJson ? JSON.stringify(original).slice(1, -1) : original;
  });
}

/** Characters at the end of `text` that may be the start of a placeholder still arriving. */
export function placeholderHold(text: string): number {
  const at = text.lastIndexOf('[');
  if (at < 0 || text.length - at >= PLACEHOLDER_MAX) return 0;
  return /^\[(?:[A-Z][A-Z_]*(?:_\d{0,6})?)?$/.test(text.slice(at)) ? text.length - at : 0;
}

/**
 * Replaces every value this call masked wherever it occurs in `text`. For copies of the request the
 * checks did not walk: a same-family pass-through body, the body kept for the log and replay.
 */
export function maskKnownValues(text: string, book: PlaceholderBook): string {
  let out = text;
  for (const [value, ph] of book.maskedValues()) if (out.includes(value)) out = out.split(value).join(ph);
  return out;
}
