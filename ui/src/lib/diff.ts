// Line diff of two texts (routing-config versions, pretty-printed). A longest-common-subsequence
// table is plenty for documents of a few hundred lines; the common prefix and suffix are cut off
// first, so the table only covers the changed middle.

export type DiffLine = { op: 'same' | 'add' | 'del'; text: string; a: number | null; b: number | null };

const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: 'same', text: a[i] as string, a: i + 1, b: i + 1 });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  out.push(...middle(midA, midB, start));
  for (let i = endA, j = endB; i < a.length; i++, j++)
    out.push({ op: 'same', text: a[i] as string, a: i + 1, b: j + 1 });
  return out;
}

function middle(a: string[], b: string[], offset: number): DiffLine[] {
  const n = a.length;
  const m = b.length;
  // Too large to compare line by line: show it as replaced rather than stall the page.
  if (n * m > MAX_CELLS) {
    return [
      ...a.map((text, i) => ({ op: 'del' as const, text, a: offset + i + 1, b: null })),
      ...b.map((text, j) => ({ op: 'add' as const, text, a: null, b: offset + j + 1 })),
    ];
  }
  // lcs[i][j] = length of the LCS of a[i..] and b[j..], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] =
        a[i] === b[j]
          ? (lcs[(i + 1) * w + j + 1] as number) + 1
          : Math.max(lcs[(i + 1) * w + j] as number, lcs[i * w + j + 1] as number);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] as string, a: offset + i + 1, b: offset + j + 1 });
      i++;
      j++;
    } else if (i < n && (j === m || (lcs[(i + 1) * w + j] as number) >= (lcs[i * w + j + 1] as number))) {
      // Removals before additions, as diffs are usually read.
      out.push({ op: 'del', text: a[i] as string, a: offset + i + 1, b: null });
      i++;
    } else {
      out.push({ op: 'add', text: b[j] as string, a: null, b: offset + j + 1 });
      j++;
    }
  }
  return out;
}

export function diffStats(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.op === 'add') added++;
    else if (l.op === 'del') removed++;
  }
  return { added, removed };
}
