// Finds the places in htm templates where words would run together on the page. htm drops any
// whitespace run that contains a line break at the start or end of a text (as JSX does), so
//   for example
//   <code>POST /alpha/v1/chat/completions</code>
// renders "for examplePOST ...". A join is flagged where text ends in a word and a line break before
// an inline element or an interpolation, or starts after one with a line break and then a word, or
// where two elements of words (links, code, badges) are separated by nothing but a line break: their
// text then runs together in the page's text and in what a screen reader says.

export interface Join {
  line: number;
  /** The source around the join, line breaks shown as ⏎. */
  context: string;
}

const INLINE_TAGS = 'a|code|strong|em|small|span|time|b|i|kbd|abbr';
/** Components that render inline content (a badge, a time). */
const INLINE_COMPONENTS = new Set(['Badge', 'StatusBadge', 'Time']);

interface Piece {
  /** Template text with each interpolation replaced by one \u0000. */
  text: string;
  /** Offset in the file of each character of `text`. */
  offsets: number[];
  /** The source of each interpolation, in order. */
  exprs: string[];
}

/** Every html`` template in a TypeScript source, nested ones included. */
function templates(src: string): Piece[] {
  const out: Piece[] = [];
  const isHtmlTag = (at: number) => src.slice(Math.max(0, at - 4), at) === 'html';

  const skipString = (i: number): number => {
    const q = src[i];
    let j = i + 1;
    while (j < src.length && src[j] !== q) j += src[j] === '\\' ? 2 : 1;
    return j + 1;
  };

  // From just after an opening backtick; returns the index after the closing one.
  const readTemplate = (start: number, keep: boolean): number => {
    const piece: Piece = { text: '', offsets: [], exprs: [] };
    let i = start;
    while (i < src.length) {
      const c = src[i] as string;
      if (c === '\\') {
        piece.text += src.slice(i, i + 2);
        piece.offsets.push(i, i + 1);
        i += 2;
      } else if (c === '`') {
        if (keep) out.push(piece);
        return i + 1;
      } else if (c === '$' && src[i + 1] === '{') {
        const end = skipExpression(i + 2);
        piece.text += '\u0000';
        piece.offsets.push(i);
        piece.exprs.push(src.slice(i + 2, end - 1).trim());
        i = end;
      } else {
        piece.text += c;
        piece.offsets.push(i);
        i++;
      }
    }
    return i;
  };

  // From just after "${"; returns the index after the matching "}".
  const skipExpression = (start: number): number => {
    let depth = 1;
    let i = start;
    while (i < src.length) {
      const c = src[i];
      if (c === '`') i = readTemplate(i + 1, isHtmlTag(i));
      else if (c === "'" || c === '"') i = skipString(i);
      else {
        if (c === '{') depth++;
        else if (c === '}' && --depth === 0) return i + 1;
        i++;
      }
    }
    return i;
  };

  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') i = src.indexOf('\n', i) === -1 ? src.length : src.indexOf('\n', i);
    else if (c === '/' && src[i + 1] === '*') i = src.indexOf('*/', i) + 2;
    else if (c === "'" || c === '"') i = skipString(i);
    else if (c === '`') i = readTemplate(i + 1, isHtmlTag(i));
    else i++;
  }
  return out;
}

const OPENS_INLINE = new RegExp(`^<(${INLINE_TAGS})[\\s>]`);
const CLOSES_INLINE = new RegExp(`</(${INLINE_TAGS})>$`);
const WORD_TAGS = 'a|code|strong|em|b|i|kbd|abbr|time';
const OPENS_WORDS = new RegExp(`^<(${WORD_TAGS})[\\s>]`);
const CLOSES_WORDS = new RegExp(`</(${WORD_TAGS})>$`);

export function findJoins(src: string): Join[] {
  const joins: Join[] = [];
  for (const piece of templates(src)) {
    const { text } = piece;
    let expr = 0;
    const exprAt: number[] = [];
    for (let k = 0; k < text.length; k++) if (text[k] === '\u0000') exprAt[k] = expr++;
    const inlineComponentAt = (k: number) =>
      text[k] === '<' && text[k + 1] === '\u0000' && INLINE_COMPONENTS.has(piece.exprs[exprAt[k + 1] ?? -1] ?? '');
    // What precedes a text: an interpolation, an inline element's end, or a component's end (<//>).
    const endsInline = (before: string) =>
      before.endsWith('\u0000') || CLOSES_INLINE.test(before) || before.endsWith('<//>');
    const startsInline = (k: number) =>
      text[k] === '\u0000' || OPENS_INLINE.test(text.slice(k, k + 8)) || inlineComponentAt(k);
    // Two elements of words meeting at a line break; spans and smalls are left out, being mostly
    // blocks of a grid or flex layout that keeps them apart.
    const wordsEnd = (before: string) => CLOSES_WORDS.test(before) || before.endsWith('<//>');
    const wordsStart = (k: number) => OPENS_WORDS.test(text.slice(k, k + 8)) || inlineComponentAt(k);

    const report = (k: number) => {
      const at = piece.offsets[Math.min(k, piece.offsets.length - 1)] ?? 0;
      joins.push({
        line: src.slice(0, at).split('\n').length,
        context: text
          .slice(Math.max(0, k - 30), k + 30)
          .split('\u0000')
          .join('{…}')
          .replace(/\n\s*/g, '⏎'),
      });
    };

    let inTag = false;
    let start = 0;
    for (let k = 0; k <= text.length; k++) {
      const c = text[k];
      if (inTag) {
        if (c === '>') {
          inTag = false;
          start = k + 1;
        }
        continue;
      }
      if (k < text.length && c !== '<' && c !== '\u0000') continue;
      const run = text.slice(start, k);
      const before = text.slice(0, start);
      if (/\S/.test(run)) {
        if (/[^\s([]\s*\n\s*$/.test(run) && k < text.length && startsInline(k)) report(k);
        if (/^\s*\n\s*[^\s,.;:!?)\]…]/.test(run) && endsInline(before)) report(start + run.search(/\S/));
      } else if (run.includes('\n') && wordsEnd(before) && wordsStart(k)) {
        report(k);
      }
      if (c === '<') inTag = true;
      start = k + 1;
    }
  }
  return joins;
}
