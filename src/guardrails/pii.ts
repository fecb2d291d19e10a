// PII detectors. Each one finds loose candidates with a regex and keeps only those a validator
// accepts (Luhn, IBAN mod-97, phone numbering plans, SSA rules, node's IP parser), so that order
// numbers, dates and version strings that merely look like PII are left alone.
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { electronicFormatIBAN, isValidIBAN } from 'ibantools';
import type * as PhoneLibrary from 'libphonenumber-js/max';
import { eachIslandMatch, eachMatch, type Finding, findBounded, type Matcher, Memo, trailingRun } from './matcher.ts';
import type { PiiEntity } from './policy.ts';
import { secretMatcher } from './secrets.ts';

// ---- email ----

// The domain after an `@`, read in place (sticky); the local part is read backwards by hand, which
// keeps the scan linear (a leading `[...]+@` regex retries every start inside every word).
const DOMAIN_RE = /[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+/y;
const LOCAL_SCAN_MAX = 80;
// File names such as `icon@2x.png` have the shape of an address; these endings are not TLDs.
const FILE_ENDINGS = new Set([
  'png',
  'jpg',
  'jpeg',
  'gif',
  'svg',
  'webp',
  'bmp',
  'ico',
  'js',
  'ts',
  'css',
  'json',
  'txt',
  'yaml',
  'yml',
  'md',
]);
const TLD_RE = /^(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
const EMAIL_MAX = 254;

const isLocalChar = (c: number): boolean =>
  (c >= 48 && c <= 57) ||
  (c >= 65 && c <= 90) ||
  (c >= 97 && c <= 122) ||
  c === 46 ||
  c === 95 ||
  c === 37 ||
  c === 43 ||
  c === 45 ||
  c === 39;

/** Local-part characters plus `@`: what an address can be made of. */
const isEmailChar = (c: number): boolean => c === 64 || isLocalChar(c);

export const emailMatcher: Matcher = {
  kind: 'email',
  label: 'EMAIL',
  maxLen: EMAIL_MAX,
  find(text, out) {
    for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
      let start = at;
      while (start > 0 && at - start < LOCAL_SCAN_MAX && isLocalChar(text.charCodeAt(start - 1))) start -= 1;
      // Quotes, dots and dashes before the address belong to the sentence, not to it.
      while (start < at && (text[start] === '.' || text[start] === "'" || text[start] === '-')) start += 1;
      const local = text.slice(start, at);
      DOMAIN_RE.lastIndex = at + 1;
      const domain = DOMAIN_RE.exec(text)?.[0];
      if (domain === undefined) continue;
      const end = at + 1 + domain.length;
      const tld = domain.slice(domain.lastIndexOf('.') + 1);
      if (local.length === 0 || local.length > 64 || local.endsWith('.') || local.includes('..')) continue;
      if (domain.length > 253 || end - start > EMAIL_MAX) continue;
      if (!TLD_RE.test(tld) || FILE_ENDINGS.has(tld.toLowerCase())) continue;
      out.push({ start, end, kind: 'email', label: 'EMAIL' });
      at = end - 1;
    }
  },
  // An address has no spaces: only the trailing unbroken run can still grow into one.
  hold: (text) => Math.min(trailingRun(text, isEmailChar, EMAIL_MAX), EMAIL_MAX - 1),
};

// ---- phone ----

const PHONE_MAX = 32;
const PHONE_RE = /(?<![\w+./-])(?:\+ ?)?(?:\(\d{1,5}\)|\d)[\d(). -]{5,28}\d(?![\w/-]|[.:]\d)/g;
// North American shape (NANP: area and exchange codes start 2-9); anything else must carry `+`.
const NANP_RE = /^(?:1[ .-]?)?(?:\([2-9]\d{2}\)|[2-9]\d{2})[ .-]?[2-9]\d{2}[ .-]?\d{4}$/;
const phoneValid = new Memo<boolean>(2048);
// The numbering-plan metadata is ~10 MB resident: required (synchronously, matchers are sync) when
// a policy with the phone entity compiles, through PII_MATCHERS.phone, not at start.
const require = createRequire(import.meta.url);
let phoneLibrary: typeof PhoneLibrary | undefined;
const loadPhoneLibrary = (): typeof PhoneLibrary => {
  phoneLibrary ??= require('libphonenumber-js/max') as typeof PhoneLibrary;
  return phoneLibrary;
};

function isPhone(candidate: string): boolean {
  if (candidate.length > PHONE_MAX || /[ .()-]{3}|[.-]{2}/.test(candidate)) return false;
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < 8 || digits > 15) return false;
  if (!candidate.startsWith('+') && !NANP_RE.test(candidate)) return false;
  // The library costs tens of microseconds per number, hence the cheap filters above and the memo.
  return phoneValid.get(candidate, (c) => loadPhoneLibrary().parsePhoneNumberFromString(c, 'US')?.isValid() === true);
}

/** A matcher run over the numeric islands of the text; `accept` tells an entity from a look-alike. */
function islandMatcher(
  kind: string,
  label: string,
  maxLen: number,
  re: RegExp,
  minDigits: number,
  accept: (candidate: string, m: RegExpExecArray) => boolean,
): Matcher {
  return {
    kind,
    label,
    maxLen,
    find(text, out) {
      eachIslandMatch(re, text, minDigits, (candidate, index, m) => {
        if (accept(candidate, m)) out.push({ start: index, end: index + candidate.length, kind, label });
      });
    },
  };
}

export const phoneMatcher: Matcher = islandMatcher('phone', 'PHONE', PHONE_MAX, PHONE_RE, 8, isPhone);

// ---- credit card ----

const CARD_RE = /(?<![\w-])\d(?:[ -]?\d){11,18}(?![\w-]|[.,]\d)/g;
const CARD_MAX = 23; // 19 digits in groups of four

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i -= 1) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes and lengths of the card networks in use; a Luhn-valid number outside them is not a card. */
function cardNetworkFits(d: string): boolean {
  const n = d.length;
  const p2 = Number(d.slice(0, 2));
  const p3 = Number(d.slice(0, 3));
  const p4 = Number(d.slice(0, 4));
  if (d[0] === '4') return n === 13 || n === 16 || n === 19; // Visa
  if ((p2 >= 51 && p2 <= 55) || (p4 >= 2221 && p4 <= 2720)) return n === 16; // Mastercard
  if (p2 === 34 || p2 === 37) return n === 15; // American Express
  if (p4 === 6011 || p2 === 65 || (p3 >= 644 && p3 <= 649)) return n >= 16 && n <= 19; // Discover
  if ((p3 >= 300 && p3 <= 305) || p2 === 36 || p2 === 38 || p2 === 39) return n >= 14 && n <= 19; // Diners
  if (p4 >= 3528 && p4 <= 3589) return n >= 16 && n <= 19; // JCB
  if (p2 === 62) return n >= 16 && n <= 19; // UnionPay
  if (p2 === 50 || (p2 >= 56 && p2 <= 58) || p2 === 63 || p2 === 67) return n >= 12 && n <= 19; // Maestro
  return false;
}

/** Grouping as printed on cards and forms: fours (the last group shorter), or Amex/Diners 4-6-5 / 4-6-4. */
function cardGroupingFits(candidate: string): boolean {
  const groups = candidate.split(/[ -]/);
  if (groups.length === 1) return true;
  const sep = candidate[groups[0]!.length];
  if (!candidate.split('').every((c) => c === sep || (c >= '0' && c <= '9'))) return false;
  const lens = groups.map((g) => g.length);
  if (lens.length === 3 && lens[0] === 4 && lens[1] === 6 && (lens[2] === 5 || lens[2] === 4)) return true;
  return lens.every((l, i) => (i < lens.length - 1 ? l === 4 : l >= 1 && l <= 4));
}

export const creditCardMatcher: Matcher = islandMatcher(
  'credit_card',
  'CREDIT_CARD',
  CARD_MAX,
  CARD_RE,
  12,
  (candidate) => {
    const digits = candidate.replace(/[ -]/g, '');
    return candidate.length <= CARD_MAX && cardGroupingFits(candidate) && cardNetworkFits(digits) && luhnValid(digits);
  },
);

// ---- IBAN ----

// The boundary before is checked in code: a look-behind first would slow the scan of every position.
// No digit-count prefilter: counting the digits of the text in JavaScript cost more than this scan,
// which fails fast at nearly every position (two capitals, then two digits).
const IBAN_RE = /[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?(?![A-Za-z0-9])/g;
const isAlnum = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const IBAN_MAX = 42; // 34 characters in groups of four
const ibanValid = new Memo<boolean>(1024);

const IBAN = { kind: 'iban', label: 'IBAN' };

export const ibanMatcher: Matcher = {
  ...IBAN,
  maxLen: IBAN_MAX,
  find(text, out) {
    findBounded(IBAN_RE, text, out, IBAN, isAlnum, (candidate) =>
      ibanValid.get(candidate, (c) => isValidIBAN(electronicFormatIBAN(c) ?? '')),
    );
  },
};

// ---- US social security number ----

const SSN_RE = /(?<![\w-])(\d{3})([- ])(\d{2})\2(\d{4})(?![\w-])/g;

/** SSA rules: area not 000, 666 or 900-999; group not 00; serial not 0000. */
export function ssnValid(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

// Every SSN_RE match is 11 characters long, the matcher's maxLen.
export const usSsnMatcher: Matcher = islandMatcher('us_ssn', 'US_SSN', 11, SSN_RE, 9, (_, m) =>
  ssnValid(m[1]!, m[3]!, m[4]!),
);

// ---- IP address ----

const IPV4_RE = /(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)/g;
const IPV6_RE = /(?<![\w:])(?:[0-9A-Fa-f]{1,4}|:)(?::[0-9A-Fa-f]{0,4}){1,7}(?:\.\d{1,3}){0,3}(?![\w:]|\.\d)/g;
const IP_MAX = 45; // the longest IPv6 text form, with an embedded IPv4

export const ipAddressMatcher: Matcher = {
  kind: 'ip_address',
  label: 'IP_ADDRESS',
  maxLen: IP_MAX,
  find(text, out) {
    eachIslandMatch(IPV4_RE, text, 4, (candidate, index) => {
      if (isIP(candidate) === 4)
        out.push({ start: index, end: index + candidate.length, kind: 'ip_address', label: 'IP_ADDRESS' });
    });
    if (!text.includes(':')) return;
    eachMatch(IPV6_RE, text, (m) => {
      // `::` alone is valid but is also C++ and Rust syntax; an address names at least one group.
      if (/[0-9A-Fa-f]/.test(m[0]) && isIP(m[0]) === 6)
        out.push({ start: m.index, end: m.index + m[0].length, kind: 'ip_address', label: 'IP_ADDRESS' });
    });
  },
};

export const PII_MATCHERS: Record<PiiEntity, Matcher> = {
  email: emailMatcher,
  get phone() {
    loadPhoneLibrary();
    return phoneMatcher;
  },
  credit_card: creditCardMatcher,
  iban: ibanMatcher,
  us_ssn: usSsnMatcher,
  ip_address: ipAddressMatcher,
  secret: secretMatcher,
};

/** Every validated span of the given entities in `text`, overlaps not yet resolved. */
export function findPii(text: string, entities: readonly PiiEntity[]): Finding[] {
  const out: Finding[] = [];
  for (const e of entities) PII_MATCHERS[e].find(text, out);
  return out;
}
