// Turns a validated check into the matchers that run it. Compiled once per policy version and
// cached by object identity, since regex compilation costs more than a scan of a short prompt.
import { eachMatch, type Matcher } from './matcher.ts';
import { PII_MATCHERS } from './pii.ts';
import type { GuardrailCheck, KeywordsCheck, RegexCheck } from './policy.ts';

/** `max_match` assumed for a regex check that only looks at the input (no stream to bound). */
export const INPUT_ONLY_MAX_MATCH = 4096;

/**
 * What one run of a user regex sees at most beyond `max_match`: a long text is scanned in windows of
 * `step + max_match` characters that start `step` apart, so a pattern that backtracks badly costs in
 * proportion to the window and not to the whole prompt, and no match of up to `max_match` is cut.
 */
export const REGEX_WINDOW_STEP = 2048;

/** Calls `take` for each non-empty match of `re` in `text`, as a scan of the whole text would, windowed. */
export function windowedMatches(
  re: RegExp,
  text: string,
  maxLen: number,
  take: (start: number, end: number) => void,
): void {
  const step = Math.max(REGEX_WINDOW_STEP, maxLen);
  if (text.length <= step + maxLen) {
    eachMatch(re, text, (m) => take(m.index, m.index + m[0].length));
    return;
  }
  let lastEnd = 0;
  for (let from = 0; from < text.length; from += step) {
    const sub = text.slice(from, from + step + maxLen);
    re.lastIndex = 0;
    for (let m = re.exec(sub); m !== null; m = re.exec(sub)) {
      // Matches starting past the step are the next window's, which sees them with their full reach.
      if (m.index >= step) break;
      if (m[0].length === 0) {
        re.lastIndex += 1;
        continue;
      }
      const start = from + m.index;
      // A match that reached into this window was taken whole; what starts inside it is no match of the full scan.
      if (start < lastEnd) continue;
      lastEnd = start + m[0].length;
      take(start, lastEnd);
    }
  }
}

function regexMatchers(check: RegexCheck): Matcher[] {
  const maxLen = check.max_match ?? INPUT_ONLY_MAX_MATCH;
  return check.patterns.map((p) => {
    const re = new RegExp(p, `g${check.flags ?? ''}`);
    return {
      kind: 'regex',
      label: 'REDACTED',
      maxLen,
      find(text, out) {
        windowedMatches(re, text, maxLen, (start, end) => {
          out.push({ start, end, kind: 'regex', label: 'REDACTED' });
        });
      },
    } satisfies Matcher;
  });
}

const NON_ASCII = /[\u0080-\uffff]/;

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function keywordsMatcher(check: KeywordsCheck): Matcher {
  const words = [...new Set(check.words.map((w) => w.trim()))].sort((a, b) => b.length - a.length);
  // Whole words in any script: no letter, digit or underscore may touch either end.
  const re = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${words.map(escapeRe).join('|')})(?![\\p{L}\\p{N}_])`, 'giu');
  // Case folding can change a string's length (German sharp s); leave room for it.
  const maxLen = (words[0]?.length ?? 1) * 2;
  // Most texts hold none of the words: on ASCII text a plain case-insensitive search for any of them
  // settles that without the Unicode regex (which also folds non-ASCII look-alikes such as the
  // Kelvin sign, hence ASCII only). Without the `u` flag, `i` folds ASCII letters only, as
  // toLowerCase would, but with no copy of the text (that copy was most of this check's cost).
  const quick = words.every((w) => !NON_ASCII.test(w)) ? new RegExp(words.map(escapeRe).join('|'), 'i') : null;
  return {
    kind: 'keyword',
    label: 'KEYWORD',
    maxLen,
    find(text, out) {
      if (quick !== null && !quick.test(text) && !NON_ASCII.test(text)) return;
      eachMatch(re, text, (m) => {
        out.push({ start: m.index, end: m.index + m[0].length, kind: 'keyword', label: 'KEYWORD' });
      });
    },
  };
}

const compiled = new WeakMap<GuardrailCheck, Matcher[]>();

/** The matchers of a text check; empty for checks that do not scan text (limits, webhooks). */
export function matchersOf(check: GuardrailCheck): Matcher[] {
  const hit = compiled.get(check);
  if (hit) return hit;
  let ms: Matcher[];
  switch (check.type) {
    case 'pii':
      ms = [...new Set(check.entities)].map((e) => PII_MATCHERS[e]);
      break;
    case 'regex':
      ms = regexMatchers(check);
      break;
    case 'keywords':
      ms = [keywordsMatcher(check)];
      break;
    default:
      ms = [];
  }
  compiled.set(check, ms);
  return ms;
}
