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

// For tables of many rows: the time of day and the day on two short lines instead of one long one.
const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
const day = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric' });

export function localTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** The local time of day and the local day, apart: ["10:43:17 PM", "Nov 26, 2026"]. */
export function localClockAndDay(iso: string): [string, string] {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? [iso, ''] : [clock.format(d), day.format(d)];
}

export function int(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : integer.format(n);
}

const compactFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 1 });

/** Large counts at a glance: 2.3M, 609K. */
export function compact(n: number | null | undefined): string {
  return n === null || n === undefined ? '—' : compactFormat.format(n);
}

/**
 * Small per-call costs keep three significant digits ($0.0000088), larger ones read as cents. Never
 * in exponent form: String(1.2e-7) is "1.2e-7", which reads as nothing on a price.
 */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '—';
  if (n === 0) return '$0';
  const abs = Math.abs(n);
  const sign = n < 0 ? '-' : '';
  if (abs >= 1) return `${sign}$${abs.toFixed(2)}`;
  if (abs >= 0.01) return `${sign}$${trimZeros(abs.toFixed(4), 2)}`;
  const digits = Math.min(20, 2 - Math.floor(Math.log10(abs)));
  return `${sign}$${trimZeros(abs.toFixed(digits), 0)}`;
}

/** "0.5000" -> "0.50" (keeping `keep` decimals, as cents read), "0.0000120" -> "0.000012". */
function trimZeros(fixed: string, keep: number): string {
  const [whole, frac = ''] = fixed.split('.');
  let end = frac.length;
  while (end > keep && frac[end - 1] === '0') end--;
  return end === 0 ? (whole as string) : `${whole}.${frac.slice(0, end)}`;
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
