// Walks src/ and the error registry (src/errors/codes.ts) against each other. Every error code a
// route can produce is listed, and every listed code is produced somewhere, so the README's error
// table (generated from the registry) names exactly what callers can see. The TypeScript parser
// finds the code literals where an error is made: `new GatewayError('x')`, `sendCode(reply, 'x')`,
// `invalid(path, problem, 'x')`, `wireCode: 'x'`, tables and variables typed `ErrorCode`, and the
// `code` of a failed attempt (an object with `retryable`), which must also be one of the codes
// `fromUpstream` keeps as the gateway's own; otherwise it would reach the caller as an upstream's
// code with an upstream's status. A 4xx failed attempt the gateway makes needs a code at all
// (embeddings on anthropic answered `code: null` for want of one).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ERROR_CODES } from '../../src/errors/codes.ts';
import { OWN_OUTCOME_CODES } from '../../src/errors/gateway-error.ts';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [p] : [];
  });
}

interface Found {
  code: string;
  where: string;
}

interface Scan {
  /** Codes an error is made with. */
  produced: Found[];
  /** Codes put on a failed attempt's UpstreamErrorInfo. */
  attempts: Found[];
  /** Failed attempts the gateway makes with a 4xx status and no code. */
  uncoded: string[];
}

const ERROR_MAKERS: Record<string, number> = { sendCode: 1, invalid: 2, errorSpec: 0 };

/** The literals an expression can evaluate to (not those it only compares against). */
function valueStrings(n: ts.Node): ts.StringLiteralLike[] {
  if (ts.isStringLiteralLike(n)) return [n];
  if (ts.isConditionalExpression(n)) return [...valueStrings(n.whenTrue), ...valueStrings(n.whenFalse)];
  if (ts.isBinaryExpression(n)) {
    const op = n.operatorToken.kind;
    if (op === ts.SyntaxKind.QuestionQuestionToken || op === ts.SyntaxKind.BarBarToken)
      return [...valueStrings(n.left), ...valueStrings(n.right)];
    return [];
  }
  if (ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isSatisfiesExpression(n))
    return valueStrings(n.expression);
  if (ts.isObjectLiteralExpression(n))
    return n.properties.flatMap((p) => (ts.isPropertyAssignment(p) ? valueStrings(p.initializer) : []));
  if (ts.isArrayLiteralExpression(n)) return n.elements.flatMap(valueStrings);
  return [];
}

function scan(file: string, scanResult: Scan): void {
  const text = readFileSync(file, 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const where = (n: ts.Node): string =>
    `${relative(SRC, file)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const add = (list: Found[], n: ts.Node): void => {
    for (const s of valueStrings(n)) list.push({ code: s.text, where: where(s) });
  };
  const typedErrorCode = (t: ts.TypeNode | undefined): boolean =>
    t !== undefined && /\bErrorCode\b/.test(t.getText(sf));
  const visit = (n: ts.Node): void => {
    if (ts.isNewExpression(n) && n.expression.getText(sf) === 'GatewayError' && n.arguments?.[0]) {
      add(scanResult.produced, n.arguments[0]);
    } else if (ts.isCallExpression(n) && ts.isIdentifier(n.expression)) {
      const at = ERROR_MAKERS[n.expression.text];
      if (at !== undefined && n.arguments[at]) add(scanResult.produced, n.arguments[at]);
    } else if (ts.isPropertyAssignment(n) && n.name.getText(sf) === 'wireCode') {
      add(scanResult.produced, n.initializer);
    } else if ((ts.isVariableDeclaration(n) || ts.isParameter(n)) && typedErrorCode(n.type) && n.initializer) {
      add(scanResult.produced, n.initializer);
    } else if (ts.isObjectLiteralExpression(n)) {
      const prop = (name: string) =>
        n.properties.find((p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === name);
      const code = prop('code');
      if (code && prop('retryable') && ts.isStringLiteralLike(code.initializer))
        add(scanResult.attempts, code.initializer);
      const status = prop('status')?.initializer;
      if (!code && prop('retryable') && status && ts.isNumericLiteral(status) && status.text.startsWith('4'))
        scanResult.uncoded.push(where(n));
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
}

function scanSrc(): Scan {
  const result: Scan = { produced: [], attempts: [], uncoded: [] };
  for (const f of sourceFiles(SRC)) if (!f.endsWith(join('errors', 'codes.ts'))) scan(f, result);
  return result;
}

const listed = new Set(Object.keys(ERROR_CODES));
const describeAll = (found: Found[]): string => found.map((f) => `${f.code} (${f.where})`).join(', ');

test('the scan finds the ways errors are made (it is not vacuous)', () => {
  const { produced, attempts } = scanSrc();
  assert.ok(produced.length > 50, `only ${produced.length} error sites found`);
  assert.ok(
    attempts.some((a) => a.code === 'no_eligible_candidate'),
    describeAll(attempts),
  );
});

test('every code an error is made with is in the registry', () => {
  const unlisted = scanSrc().produced.filter((f) => !listed.has(f.code));
  assert.deepEqual(describeAll(unlisted), '', 'add them to src/errors/codes.ts');
});

test("every code the gateway puts on a failed attempt is in the registry and kept as the gateway's own", () => {
  const { attempts } = scanSrc();
  const own = new Set<string>(OWN_OUTCOME_CODES);
  const stray = attempts.filter((a) => !listed.has(a.code) || !own.has(a.code));
  assert.deepEqual(describeAll(stray), '', 'list them in OWN_OUTCOME_CODES (src/errors/gateway-error.ts)');
  const unused = [...own].filter((c) => !attempts.some((a) => a.code === c));
  assert.deepEqual(unused, [], 'OWN_OUTCOME_CODES entries no attempt produces');
});

test('every 4xx failure the gateway makes for an attempt carries its code', () => {
  // Without one, fromUpstream takes it for an upstream's refusal and the caller reads `code: null`.
  assert.deepEqual(scanSrc().uncoded, []);
});

test('every registry code is produced somewhere', () => {
  const { produced, attempts } = scanSrc();
  const seen = new Set([...produced, ...attempts].map((f) => f.code));
  const dead = [...listed].filter((c) => !seen.has(c));
  assert.deepEqual(dead, [], 'codes no route produces: remove them, or make the error with them');
});
