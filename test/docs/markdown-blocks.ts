// Fenced code blocks of a Markdown file, with the `<!-- doc-test: ... -->` annotation written on the
// line right before each (blank lines between are allowed). Annotations:
//   <!-- doc-test: skip (reason) -->          the block is not run; the reason is required
//   <!-- doc-test: expect-status 4xx 503 -->  HTTP statuses this block's curl calls may answer with
// An unknown or malformed annotation throws, so a typo cannot silently turn a check off.

export type Annotation = { kind: 'skip'; reason: string } | { kind: 'expect-status'; statuses: string[] };

export interface DocBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** The info string's first word, lower-cased ('' when none). */
  lang: string;
  code: string;
  annotation: Annotation | null;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;
const ANNOTATION = /^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$/;
const STATUS = /^[1-5](\d\d|xx)$/;

export function parseAnnotation(text: string, line: number): Annotation {
  const skip = /^skip\s*\((.+)\)$/.exec(text);
  if (skip?.[1]?.trim()) return { kind: 'skip', reason: skip[1].trim() };
  const expect = /^expect-status\s+(.+)$/.exec(text);
  if (expect?.[1]) {
    const statuses = expect[1].split(/[\s,]+/).filter((s) => s !== '');
    const bad = statuses.filter((s) => !STATUS.test(s));
    if (bad.length === 0) return { kind: 'expect-status', statuses };
    throw new Error(`line ${line}: expect-status takes statuses like 404 or 4xx, got ${bad.join(', ')}`);
  }
  throw new Error(`line ${line}: unknown doc-test annotation "${text}" (skip (reason) | expect-status <statuses>)`);
}

export function parseBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split('\n');
  const blocks: DocBlock[] = [];
  let pending: { annotation: Annotation; line: number } | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const note = ANNOTATION.exec(text);
    if (note) {
      if (pending)
        throw new Error(`line ${i + 1}: two doc-test annotations in a row (the first is on ${pending.line})`);
      pending = { annotation: parseAnnotation(note[1] ?? '', i + 1), line: i + 1 };
      continue;
    }
    const open = FENCE.exec(text);
    if (!open) {
      if (pending && text.trim() !== '')
        throw new Error(`line ${pending.line}: a doc-test annotation must come right before a code block`);
      continue;
    }
    const marker = open[1] ?? '```';
    const body: string[] = [];
    let j = i + 1;
    // A closing fence uses the same character, at least as long, and nothing after it.
    while (j < lines.length && !isClosing(lines[j] ?? '', marker)) body.push(lines[j++] ?? '');
    if (j >= lines.length) throw new Error(`line ${i + 1}: code block is never closed`);
    blocks.push({
      line: i + 1,
      lang: (open[2] ?? '').toLowerCase(),
      code: body.join('\n'),
      annotation: pending?.annotation ?? null,
    });
    pending = null;
    i = j;
  }
  if (pending) throw new Error(`line ${pending.line}: a doc-test annotation must come right before a code block`);
  return blocks;
}

function isClosing(line: string, marker: string): boolean {
  const t = line.trim();
  return t.length >= marker.length && t === (marker[0] ?? '`').repeat(t.length) && line.search(/\S/) <= 3;
}

export const isShell = (b: DocBlock): boolean => b.lang === 'sh' || b.lang === 'bash';
