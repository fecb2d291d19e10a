// Turns a validated check into the matchers that run it. Compiled once per policy version and
// cached by object identity, since regex compilation costs more than a scan of a short prompt.
import { eachMatch, type Matcher } from './matcher.ts';
import { PII_MATCHERS } from './pii.ts';
import type { GuardrailCheck, KeywordsCheck, RegexCheck } from './policy.ts';

/** `max_match` assumed for a regex check that only looks at the input (no stream to bound). */
export const INPUT_ONLY_MAX_MATCH = 4096;

function regexMatchers(check: RegexCheck): Matcher[] {
  const maxLen = check.max_match ?? INPUT_ONLY_MAX_MATCH;
  return check.patterns.map((p) => {
    const re = new RegExp(p, `g${check.flags ?? ''}`);
    return {
      kind: 'regex',
      label: 'REDACTED',
      maxLen,
      find(text, out) {
        eachMatch(re, text, (m) => {
          out.push({ start: m.index, end: m.index + m[0].length, kind: 'regex', label: 'REDACTED' });
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
  const lowered = words.map((w) => w.toLowerCase());
  const asciiWords = lowered.every((w) => !NON_ASCII.test(w));
  return {
    kind: 'keyword',
    label: 'KEYWORD',
    maxLen,
    find(text, out) {
      // Most texts hold none of the words: a plain substring test on ASCII text settles that without
      // the Unicode regex (which folds case beyond what toLowerCase does, hence ASCII only).
      if (asciiWords && !NON_ASCII.test(text)) {
        const lower = text.toLowerCase();
        if (!lowered.some((w) => lower.includes(w))) return;
      }
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
