// Credentials: cloud and vendor API keys, GitHub tokens, JWTs and PEM private key blocks. Keys are
// recognised by their documented prefixes and alphabets; the open-ended ones (prefix plus a long
// body) must also look random, so prose like `sk-this-is-my-example` is not a key.
import { eachMatch, type Finding, findBounded, type Matcher, trailingRun } from './matcher.ts';

/** Longest token-shaped secret, a JWT with a large payload. Streams hold an unfinished token up to this. */
export const TOKEN_SECRET_MAX = 8192;
/** Longest PEM block looked for (an 8192-bit RSA key is about 6.5 KB). */
export const PEM_MAX = 16384;

const TOKEN_RE = new RegExp(
  [
    '(?:',
    [
      // AWS access key ids: a four-letter kind, then 16 base32 characters.
      '(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}',
      // Anthropic before OpenAI: both start with `sk-`.
      'sk-ant-[a-z]{2,8}\\d{2}-[A-Za-z0-9_-]{32,200}',
      'sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{32,200}',
      'AIza[0-9A-Za-z_-]{35}',
      '(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{24,99}',
      'xox[abposr]-[0-9A-Za-z-]{10,100}',
      'hf_[A-Za-z0-9]{34}',
      'gh[opusr]_[A-Za-z0-9]{36}',
      'github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}',
      'eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]*',
    ].join('|'),
    ')(?![A-Za-z0-9_-]|\\.[A-Za-z0-9_-])',
  ].join(''),
  'g',
);

const PEM_RE = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]{16,16300}?-----END \1PRIVATE KEY-----/g;
const PEM_HEADER_RE = /^-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/;
const PEM_OPEN = '-----BEGIN ';

const hasDigit = (s: string): boolean => /\d/.test(s);
const hasLower = (s: string): boolean => /[a-z]/.test(s);
const hasUpper = (s: string): boolean => /[A-Z]/.test(s);

function jsonObjectPart(part: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The validation behind each prefix; the regex already fixed alphabet and length. */
function tokenValid(t: string): boolean {
  if (t.startsWith('eyJ')) {
    if (t.length > TOKEN_SECRET_MAX) return false;
    const [header, payload] = t.split('.');
    return typeof jsonObjectPart(header!)?.alg === 'string' && jsonObjectPart(payload!) !== null;
  }
  if (t.startsWith('sk-ant-')) return hasDigit(t.slice(7)) && hasLower(t) && hasUpper(t);
  if (t.startsWith('sk-')) {
    const body = t.replace(/^sk-(?:proj-|svcacct-|admin-)?/, '');
    return !body.startsWith('ant-') && hasDigit(body) && hasLower(body) && hasUpper(body);
  }
  if (t.startsWith('xox') || t.startsWith('sk_') || t.startsWith('rk_') || t.startsWith('AIza')) {
    const body = t.slice(4);
    return hasDigit(body) && (hasLower(body) || hasUpper(body));
  }
  // AWS, GitHub and Hugging Face have fixed lengths and alphabets; require some digits anyway so
  // that a placeholder like ghp_xxxxxxxx... in documentation is not flagged.
  return hasDigit(t.slice(4));
}

const isTokenChar = (c: number): boolean =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;

/** Start of a PEM block that has begun but not ended, or -1. */
function openPemStart(text: string): number {
  const at = text.lastIndexOf(PEM_OPEN);
  if (at < 0 || text.length - at > PEM_MAX) return -1;
  const rest = text.slice(at);
  const header = PEM_HEADER_RE.exec(rest);
  if (header === null) {
    // Header still arriving: hold while it could become a private key header.
    const line = rest.indexOf('\n');
    return line < 0 && rest.length < 64 ? at : -1;
  }
  return rest.includes('-----END ', header[0].length) && /PRIVATE KEY-----/.test(rest.slice(header[0].length))
    ? -1
    : at;
}

const SECRET = { kind: 'secret', label: 'SECRET' };

export const secretMatcher: Matcher = {
  ...SECRET,
  maxLen: PEM_MAX,
  find(text, out) {
    findBounded(TOKEN_RE, text, out, SECRET, isTokenChar, tokenValid);
    if (!text.includes(PEM_OPEN)) return;
    eachMatch(PEM_RE, text, (m) => {
      out.push({ start: m.index, end: m.index + m[0].length, ...SECRET });
    });
  },
  hold(text) {
    // A token secret is a whole run of token characters (the regex refuses a token character on
    // either side), so only the trailing run can still become one.
    const run = trailingRun(text, isTokenChar, TOKEN_SECRET_MAX);
    const tokenHold = run > TOKEN_SECRET_MAX ? 0 : run;
    const pem = openPemStart(text);
    return pem < 0 ? tokenHold : Math.max(tokenHold, text.length - pem);
  },
};

/** Exported for the tests of the hold rule. */
export function findSecrets(text: string): Finding[] {
  const out: Finding[] = [];
  secretMatcher.find(text, out);
  return out;
}
