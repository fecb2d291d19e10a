// A JSON parser that remembers where each value starts, so that an error about a field (from the
// schema check here, or a 400 from the API naming `param: "config.attempts[0]"`) can point at its
// line in the editor. JSON.parse gives neither positions of values nor, in every browser, the line
// of a syntax error.

export interface Parsed {
  value: unknown;
  /** Path as the API names fields (`config.attempts[0].model`) -> 1-based line. */
  lines: Map<string, number>;
}

export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

export function joinPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

export function parseWithPositions(text: string): Parsed {
  let i = 0;
  const lines = new Map<string, number>();
  const newlines: number[] = [];
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) newlines.push(k);
  /** 1 + the newlines before `pos`, by binary search. */
  const lineAt = (pos: number) => {
    let lo = 0;
    let hi = newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((newlines[mid] as number) < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  const fail = (message: string, pos = i): never => {
    const line = lineAt(pos);
    const column = pos - text.lastIndexOf('\n', pos - 1);
    throw new JsonSyntaxError(`${message} (line ${line}, column ${column})`, line, column);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i] as string)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    let out = '';
    while (i < text.length) {
      const c = text[i] as string;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        const e = text[i + 1];
        const simple: Record<string, string> = {
          '"': '"',
          '\\': '\\',
          '/': '/',
          b: '\b',
          f: '\f',
          n: '\n',
          r: '\r',
          t: '\t',
        };
        if (e !== undefined && e in simple) {
          out += simple[e];
          i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
          out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
          i += 6;
        } else fail('Invalid escape in string');
        continue;
      }
      if (c.charCodeAt(0) < 0x20) fail('Unescaped control character in string');
      out += c;
      i++;
    }
    return fail('Unterminated string', start);
  };
  const value = (path: string): unknown => {
    ws();
    lines.set(path, lineAt(i));
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, unknown> = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expected a property name in double quotes');
        const keyPos = i;
        const key = str();
        ws();
        if (text[i] !== ':') fail(`Expected ':' after "${key}"`);
        i++;
        const child = joinPath(path, key);
        obj[key] = value(child);
        lines.set(child, lineAt(keyPos));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail("Expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(joinPath(path, arr.length)));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("Expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (m) {
      i += m[0].length;
      return Number(m[0]);
    }
    for (const [word, v] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail(i >= text.length ? 'Unexpected end of input' : `Unexpected '${c}'`);
  };
  const result = value('');
  ws();
  if (i < text.length) fail('Unexpected text after the JSON value');
  return { value: result, lines };
}

/** The line of a field path, or of its closest parent the document has. */
export function lineOf(parsed: Parsed | null, path: string | null | undefined): number | null {
  if (!parsed || !path) return null;
  let p = path.replace(/^body\./, '');
  for (;;) {
    const line = parsed.lines.get(p);
    if (line !== undefined) return line;
    const cut = Math.max(p.lastIndexOf('.'), p.lastIndexOf('['));
    if (cut <= 0) return parsed.lines.get('') ?? null;
    p = p.slice(0, cut);
  }
}
