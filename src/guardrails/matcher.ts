// What every detector (PII entity, regex, keyword list) looks like to the engine: a function that
// finds validated spans in a text, plus what a stream must hold back so that a span arriving in
// pieces is still seen whole.

export interface Finding {
  start: number;
  end: number;
  /** What counts are kept by: a PII entity (`email`), `regex` or `keyword`. */
  kind: string;
  /** Placeholder type used when masking: `EMAIL` gives `[EMAIL_1]`. */
  label: string;
}

export interface Matcher {
  readonly kind: string;
  readonly label: string;
  /**
   * The longest span this matcher reports, in UTF-16 code units. Only runs shorter than this are held
   * back by a stream unless `hold` says more.
   */
  readonly maxLen: number;
  /** Appends the validated spans found in `text`, in any order. */
  find(text: string, out: Finding[]): void;
  /**
   * How many characters at the end of `text` could still be the beginning of a match that more text
   * completes. Absent: `maxLen - 1`. Detectors of unbroken tokens hold only the trailing token, which
   * is usually a few characters and never more than their cap.
   */
  hold?(text: string): number;
}

/** The hold-back of a matcher: its own rule or the fixed `maxLen - 1` window. */
export function holdOf(m: Matcher, text: string): number {
  return Math.min(text.length, m.hold ? m.hold(text) : m.maxLen - 1);
}

/**
 * Length of the run at the end of `text` made only of characters `inRun` accepts, counting at most
 * `cap + 1` characters (so a caller can tell "longer than cap" without scanning a long run).
 */
export function trailingRun(text: string, inRun: (code: number) => boolean, cap: number): number {
  let i = text.length;
  const stop = Math.max(0, text.length - cap - 1);
  while (i > stop && inRun(text.charCodeAt(i - 1))) i -= 1;
  return text.length - i;
}

/**
 * Sorts by start and keeps the first (then longest) of overlapping spans, so that text covered by
 * two detectors is counted and masked once.
 */
export function resolveOverlaps(findings: Finding[]): Finding[] {
  if (findings.length < 2) return findings;
  findings.sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: Finding[] = [];
  let end = -1;
  for (const f of findings) {
    if (f.start >= end) {
      kept.push(f);
      end = f.end;
    }
  }
  return kept;
}

/** Runs a global regex over `text`, calling `take` for each non-empty match. */
export function eachMatch(re: RegExp, text: string, take: (m: RegExpExecArray) => void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex += 1;
      continue;
    }
    take(m);
  }
}

/**
 * Appends each match of `re` that `accept` takes and that no `inWord` character precedes. The
 * boundary before is checked here because a look-behind in `re` would run at every position.
 */
export function findBounded(
  re: RegExp,
  text: string,
  out: Finding[],
  finding: { kind: string; label: string },
  inWord: (c: number) => boolean,
  accept: (match: string) => boolean,
): void {
  eachMatch(re, text, (m) => {
    if (m.index > 0 && inWord(text.charCodeAt(m.index - 1))) return;
    if (accept(m[0])) out.push({ start: m.index, end: m.index + m[0].length, ...finding });
  });
}

/** A small bounded memo for validators that cost tens of microseconds (phone numbers, IBANs). */
export class Memo<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(key: string, compute: (key: string) => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    // Multi-turn chats resend the same numbers each call; dropping everything when full is simpler
    // than LRU bookkeeping and still catches that.
    if (this.map.size >= this.max) this.map.clear();
    this.map.set(key, value);
    return value;
  }
}

/** A maximal run of number-ish characters (digits, spaces, `().+-`) holding at least one digit. */
export interface NumericIsland {
  start: number;
  end: number;
  digits: number;
}

const ISLAND_RE = /(?:\+ ?)?\(?\d[\d ().+-]*/g;
/** Characters of look-around a number-shaped detector needs on each side of an island. */
const ISLAND_MARGIN = 2;
let islandText = '';
let islands: NumericIsland[] = [];

/**
 * Phones, cards, SSNs and IPv4 addresses are made only of island characters, so each lies inside
 * one island; scanning islands with enough digits instead of the whole text skips ordinary prose.
 */
export function numericIslands(text: string): NumericIsland[] {
  if (text === islandText) return islands;
  const out: NumericIsland[] = [];
  eachMatch(ISLAND_RE, text, (m) => {
    let digits = 0;
    for (let i = 0; i < m[0].length; i += 1) {
      const c = m[0].charCodeAt(i);
      if (c >= 48 && c <= 57) digits += 1;
    }
    out.push({ start: m.index, end: m.index + m[0].length, digits });
  });
  islandText = text;
  islands = out;
  return out;
}

/**
 * Runs `re` over each island of at least `minDigits` digits (with a little context either side for
 * look-arounds) and reports matches in `text` coordinates; matches starting in the context are not
 * the island's and are dropped.
 */
export function eachIslandMatch(
  re: RegExp,
  text: string,
  minDigits: number,
  take: (value: string, index: number, m: RegExpExecArray) => void,
): void {
  for (const island of numericIslands(text)) {
    if (island.digits < minDigits) continue;
    const from = Math.max(0, island.start - ISLAND_MARGIN);
    const sub = text.slice(from, Math.min(text.length, island.end + ISLAND_MARGIN));
    eachMatch(re, sub, (m) => {
      const index = from + m.index;
      if (index >= island.start && index < island.end) take(m[0], index, m);
    });
  }
}
