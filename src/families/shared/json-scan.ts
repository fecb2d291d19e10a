// Reading and editing a few members of JSON text without parsing all of it: the same-family relays
// look at every record of a stream, and a parse plus a serialize per record cost more than the rest
// of the relay together. Why a plain search is safe: inside a JSON string a quote is always escaped,
// so a string followed by optional spaces and `:` can only be a member name. It may still be a member
// of a nested object; callers only rely on names the vendor's schema has at one depth, or check the
// depth with topLevelStringMember. Searches go from quote to quote with indexOf: a needle that starts
// with a quote (`"usage"`) is far slower to find in JSON, where every other character is one.

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/** The index of the first non-space character at or after `i` (the text's length if none). */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index of the quote that closes the string opening at `start`, or -1 for unterminated text. */
export function stringEnd(text: string, start: number): number {
  let i = text.indexOf('"', start + 1);
  while (i >= 0) {
    let slashes = 0;
    for (let j = i - 1; text.charCodeAt(j) === 92 /* \ */; j--) slashes++;
    if (slashes % 2 === 0) return i;
    i = text.indexOf('"', i + 1);
  }
  return -1;
}

/**
 * One pass over JSON text that finds members by name, at any depth: `first[k]` is where the value of
 * the first member named `names[k]` starts (-1 when there is none) and `count[k]` how many there
 * are. Names are compared as written (an upstream does not escape plain ASCII names). `from` skips
 * a head already known to hold none of the names; it must end outside any string.
 */
export function scanMembers(text: string, names: readonly string[], first: number[], count: number[], from = 0): void {
  for (let k = 0; k < names.length; k++) {
    first[k] = -1;
    count[k] = 0;
  }
  let i = text.indexOf('"', from);
  while (i >= 0) {
    const end = stringEnd(text, i);
    if (end < 0) return;
    const colon = skipSpace(text, end + 1);
    if (text.charCodeAt(colon) !== 58 /* : */) {
      i = text.indexOf('"', end + 1);
      continue;
    }
    const length = end - i - 1;
    for (let k = 0; k < names.length; k++) {
      if (names[k].length === length && text.startsWith(names[k], i + 1)) {
        if (count[k]++ === 0) first[k] = skipSpace(text, colon + 1);
        break;
      }
    }
    i = text.indexOf('"', colon + 1);
  }
}

/** The string value starting at `start` (a quote), unescaped; undefined when it is not a string. */
export function stringAt(text: string, start: number): string | undefined {
  if (text.charCodeAt(start) !== 34 /* " */) return undefined;
  const end = stringEnd(text, start);
  if (end < 0) return undefined;
  const raw = text.slice(start + 1, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(text.slice(start, end + 1)) as string;
  } catch {
    return undefined;
  }
}

/** The value of the first member of that name when it is a string, else undefined. */
export function stringMember(text: string, name: string): string | undefined {
  const first = [-1];
  scanMembers(text, [name], first, [0]);
  return first[0] < 0 ? undefined : stringAt(text, first[0]);
}

/**
 * The text without its one member `name` whose value is `null`, with one neighbouring comma so the
 * object stays valid; undefined when there is no such member or more than one.
 */
export function withoutNullMember(text: string, name: string): string | undefined {
  const first = [-1];
  const count = [0];
  scanMembers(text, [name], first, count);
  if (count[0] !== 1 || !text.startsWith('null', first[0])) return undefined;
  return withoutMemberAt(text, first[0], first[0] + 4);
}

/**
 * The text without the member whose value spans [valueStart, valueEnd) (as found by scanMembers, so
 * its name has no escaped quote), with one neighbouring comma: the one before when the member was
 * not first, else the one after.
 */
export function withoutMemberAt(text: string, valueStart: number, valueEnd: number): string {
  let colon = valueStart - 1;
  while (isSpace(text.charCodeAt(colon))) colon--;
  let close = colon - 1;
  while (isSpace(text.charCodeAt(close))) close--;
  let start = text.lastIndexOf('"', close - 1);
  let end = valueEnd;
  let i = start - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  if (text.charCodeAt(i) === 44 /* , */) start = i;
  else {
    const j = skipSpace(text, end);
    if (text.charCodeAt(j) === 44) end = j + 1;
  }
  return text.slice(0, start) + text.slice(end);
}

/** A member's value as a range of the text: `text.slice(start, end)` is the value's JSON. */
export interface ValueRange {
  start: number;
  end: number;
}

/**
 * The value range of the string member `name` of the top-level object, when the text has exactly
 * one such member and its value is a string; undefined otherwise (absent, repeated, not a string, or
 * not an object at all). Walks the whole text once, skipping strings with indexOf.
 */
export function topLevelStringMember(text: string, name: string): ValueRange | undefined {
  let i = skipSpace(text, 0);
  if (text.charCodeAt(i) !== 123 /* { */) return undefined;
  let depth = 0;
  let found: ValueRange | undefined;
  let count = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      const end = stringEnd(text, i);
      if (end < 0) return undefined;
      if (depth === 1 && end - i - 1 === name.length && text.startsWith(name, i + 1)) {
        const colon = skipSpace(text, end + 1);
        if (text.charCodeAt(colon) === 58) {
          count++;
          const v = skipSpace(text, colon + 1);
          const vEnd = text.charCodeAt(v) === 34 ? stringEnd(text, v) : -1;
          if (vEnd < 0) return undefined;
          found = { start: v, end: vEnd + 1 };
          i = vEnd;
          continue;
        }
      }
      i = end;
    } else if (c === 123 || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) depth--;
  }
  return count === 1 ? found : undefined;
}

/** The text with the given range replaced. */
export function spliced(text: string, range: ValueRange, replacement: string): string {
  return text.slice(0, range.start) + replacement + text.slice(range.end);
}

/** The top-level object's text with one more member at its end; undefined when the text is not one. */
export function withMemberAdded(text: string, member: string): string | undefined {
  const close = text.lastIndexOf('}');
  if (close < 0) return undefined;
  let i = close - 1;
  while (i >= 0 && isSpace(text.charCodeAt(i))) i--;
  if (i < 0) return undefined;
  // An empty object takes the member without a comma.
  const sep = text.charCodeAt(i) === 123 ? '' : ',';
  return `${text.slice(0, close)}${sep}${member}${text.slice(close)}`;
}
