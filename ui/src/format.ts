// How numbers, money and times read on every page. Times are always shown in the viewer's local
// zone (the API speaks UTC); the UTC value stays in the <time> element's title and datetime.

const dateTime = new Intl.DateTimeFormat(undefined, {
  year: 'numeric',
  month: 'short',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});
const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function int(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

const compactFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** Large counts at a glance: 2.3M, 609K. */
export function compact(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : compactFormat.format(n);
}

/** Small per-call costs keep their significant digits ($0.0000088), larger ones read as cents. */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n === 0) return '$0';
  const abs = Math.abs(n);
  if (abs >= 1) return `$${n.toFixed(2)}`;
  if (abs >= 0.01) return `$${Number(n.toFixed(4))}`;
  return `$${Number(n.toPrecision(3))}`;
}

export function ms(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`;
  if (n >= 1000) return `${(n / 1000).toFixed(2)} s`;
  return `${n >= 100 ? Math.round(n) : Number(n.toFixed(1))} ms`;
}

export function pct(rate: number | null | undefined, digits = 1): string {
  if (rate === null || rate === undefined) return '—';
  return `${(rate * 100).toFixed(digits)}%`;
}

/** A datetime-local input's value (local time) for an ISO time, and back. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function pretty(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** The assistant's text in either family's response shape, for a quick side-by-side read. */
export function responseText(body: unknown): string | null {
  if (typeof body !== 'object' || body === null) return null;
  const b = body as { choices?: Array<{ message?: { content?: unknown } }>; content?: unknown };
  const alpha = b.choices?.[0]?.message?.content;
  if (typeof alpha === 'string') return alpha;
  if (Array.isArray(b.content)) {
    const texts = b.content
      .map((c) => (typeof c === 'object' && c !== null && 'text' in c ? String((c as { text: unknown }).text) : ''))
      .filter((t) => t !== '');
    if (texts.length > 0) return texts.join('\n');
  }
  return null;
}
