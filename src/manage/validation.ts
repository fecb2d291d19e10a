// Request validation. Bodies are validated strictly (a number is not a string); query and path
// values arrive as text and are coerced ("50" -> 50), so `limit=abc` fails as "must be integer".
// Errors become one clear sentence naming the field, used by REST and MCP alike.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { FastifyInstance, FastifySchema } from 'fastify';

function newAjv(coerce: boolean): Ajv {
  return new Ajv({
    allErrors: false,
    coerceTypes: coerce,
    useDefaults: true,
    removeAdditional: false,
    strict: false,
  });
}

const strictAjv = newAjv(false);
const coercingAjv = newAjv(true);

export function compileStrict(schema: object): ValidateFunction {
  return strictAjv.compile(schema);
}

/** Each app's validators not compiled yet, so that a check can compile them all (compileEveryValidator). */
const pending = new WeakMap<FastifyInstance, Set<() => void>>();

/**
 * Validators compile on their route's first call, not at start: the management API's 129, compiled
 * eagerly, cost ~2.5 MB of resident memory at rest and ~6 MB just after start (bench/memory.ts), in a
 * gateway whose traffic is mostly proxy calls, which no schema validates.
 */
export function registerValidators(app: FastifyInstance): void {
  const uncompiled = new Set<() => void>();
  pending.set(app, uncompiled);
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
    let compiled: ValidateFunction | undefined;
    const compile = (): ValidateFunction => {
      uncompiled.delete(compile);
      compiled ??= ajv.compile(schema as FastifySchema & object);
      return compiled;
    };
    uncompiled.add(compile);
    // Fastify reads a failed validation's errors from the function it was given.
    const validate = (data: unknown): boolean => {
      const fn = compiled ?? compile();
      const ok = fn(data);
      validate.errors = fn.errors;
      return ok;
    };
    validate.errors = null as ValidateFunction['errors'];
    return validate;
  });
}

/** Compiles every validator of a ready app now; throws on a schema ajv cannot compile. */
export function compileEveryValidator(app: FastifyInstance): number {
  const uncompiled = [...(pending.get(app) ?? [])];
  for (const compile of uncompiled) compile();
  return uncompiled.length;
}

export type ValidationPart = 'body' | 'querystring' | 'params' | 'headers' | 'arguments';

const PART_LABEL: Record<ValidationPart, string> = {
  body: 'body field',
  querystring: 'query parameter',
  params: 'path parameter',
  headers: 'header',
  arguments: 'argument',
};

interface ErrorLike {
  instancePath?: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}

/** One human sentence and the offending field for the first validation error. */
export function describeValidationError(
  part: ValidationPart,
  errors: ReadonlyArray<ErrorLike | ErrorObject>,
): { message: string; param: string | null } {
  const e = errors[0];
  if (!e) return { message: 'Invalid request', param: null };
  const label = PART_LABEL[part];
  const p = e.params as Record<string, unknown>;
  const path = e.instancePath ?? '';
  switch (e.keyword) {
    case 'required': {
      const field = fieldPath(path, String(p.missingProperty));
      return { message: `Missing required ${label} '${field}'`, param: field };
    }
    case 'additionalProperties': {
      const field = fieldPath(path, String(p.additionalProperty));
      return { message: `Unknown ${label} '${field}'`, param: field };
    }
    default:
      break;
  }
  const field = fieldPath(path);
  if (field === '') {
    const what = part === 'body' ? 'Request body' : `The ${label}s`;
    return { message: `${what} ${e.message ?? 'is invalid'}`, param: null };
  }
  let detail = e.message ?? 'is invalid';
  const choices = e.keyword === 'const' ? constChoices(errors, path) : undefined;
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) {
    detail = `must be one of: ${p.allowedValues.map(String).join(', ')}`;
  } else if (choices !== undefined) {
    detail = `must be one of: ${choices.join(', ')}`;
  } else if (e.keyword === 'maxLength') detail = `must be at most ${String(p.limit)} characters long`;
  else if (e.keyword === 'minLength') detail = `must be at least ${String(p.limit)} characters long`;
  else if (e.keyword === 'type') detail = `must be of type ${String(p.type)}`;
  return { message: `Invalid ${label} '${field}': ${detail}`, param: field };
}

/**
 * The allowed values of a union of literals (TypeBox's `Union([Literal('2xx'), ...])` is an
 * `anyOf` of `const`s): ajv reports one "must be equal to constant" per branch, then the `anyOf`
 * itself. Undefined when the union has branches of another kind.
 */
function constChoices(errors: ReadonlyArray<ErrorLike | ErrorObject>, path: string): string[] | undefined {
  const values: string[] = [];
  for (const e of errors) {
    if ((e.instancePath ?? '') !== path) return undefined;
    if (e.keyword === 'anyOf') return values.length > 0 ? values : undefined;
    if (e.keyword !== 'const') return undefined;
    values.push(String((e.params as Record<string, unknown>).allowedValue));
  }
  return undefined;
}
