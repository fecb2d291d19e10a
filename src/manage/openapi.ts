// Generates /openapi.yaml (OpenAPI 3.1) from the operation list and the proxy path table, and the
// MCP tool list from the same operations. Output is deterministic so a drift test can compare it
// byte for byte with the committed files.
import type { TObject, TSchema } from '@sinclair/typebox';
import { stringify } from 'yaml';
import type { Operation } from './operation.ts';
import type { ProxyPathDoc } from './proxy-paths.ts';

type Json = Record<string, unknown>;

/** Plain JSON copy: drops TypeBox's symbol keys. */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or invalid API key',
  403: 'The caller lacks the role or scope the operation needs',
  404: 'Not found',
  409: 'Conflict',
  422: 'Key verification failed',
};

function parameters(schema: TObject | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).map(([name, s]) => {
    const { description, ...rest } = plain(s);
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: rest,
    };
  });
}

function errorResponses(statuses: number[]): Json {
  const out: Json = {};
  for (const s of [...new Set([400, 401, 403, 404, ...statuses])].sort()) {
    out[String(s)] = { $ref: `#/components/responses/Error${s}` };
  }
  return out;
}

function operationDoc(op: Operation): Json {
  const params = [...parameters(op.input.params, 'path'), ...parameters(op.input.query, 'query')];
  return {
    operationId: op.name,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [op.tag],
    ...(params.length ? { parameters: params } : {}),
    ...(op.input.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: plain(op.input.body) } } } }
      : {}),
    responses: {
      [String(op.status)]: { description: op.summary, content: { 'application/json': { schema: plain(op.output) } } },
      ...errorResponses(op.errors),
    },
    'x-mcp-tool': op.name,
    'x-required-role': op.role,
  };
}

function proxyDoc(p: ProxyPathDoc): Json {
  const content: Json = { 'application/json': { schema: { type: 'object' } } };
  if (p.streams) content['text/event-stream'] = { schema: { type: 'string' } };
  const params = [...p.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const schema = p.modelFree
    ? { type: 'object' }
    : { type: 'object', required: ['model'], properties: { model: { type: 'string' } } };
  return {
    operationId: `${p.family}_${p.method.toLowerCase()}_${p.path.replace(/[{}]/g, '').split('/').slice(3).join('_')}`,
    summary: p.summary,
    tags: [`proxy-${p.family}`],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(p.jsonBody ? { requestBody: { required: true, content: { 'application/json': { schema } } } } : {}),
    responses: { '200': { description: 'Success', content }, '401': { $ref: '#/components/responses/Error401' } },
  };
}

export function buildOpenApi(operations: readonly Operation[], proxyPaths: readonly ProxyPathDoc[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const p of proxyPaths) {
    paths[p.path] ??= {};
    (paths[p.path] as Record<string, Json>)[p.method.toLowerCase()] = proxyDoc(p);
  }
  // The root base URL serves every proxy path without its family prefix (/v1/models: the family the
  // anthropic-version header names, else alpha; the first family listed documents it).
  for (const p of proxyPaths) {
    const root = p.path.replace(/^\/(alpha|beta)\/v1\//, '/v1/');
    paths[root] ??= {};
    const byMethod = paths[root] as Record<string, Json>;
    const method = p.method.toLowerCase();
    if (byMethod[method] !== undefined) continue;
    const doc = proxyDoc(p);
    byMethod[method] = {
      ...doc,
      operationId: `root_${String(doc.operationId)}`,
      summary: root === '/v1/models' ? `${p.summary}; beta shape when anthropic-version is sent` : p.summary,
    };
  }
  for (const op of operations) {
    paths[op.path] ??= {};
    (paths[op.path] as Record<string, Json>)[op.method.toLowerCase()] = operationDoc(op);
  }
  const statuses = [400, 401, 403, 404, ...operations.flatMap((o) => o.errors)];
  const responses: Json = {};
  for (const s of [...new Set(statuses)].sort()) {
    responses[`Error${s}`] = {
      description: STATUS_TEXT[s] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchyard',
      version: '1.0.0',
      description:
        'LLM gateway: two proxy wire families (/alpha/v1, /beta/v1), also served at the root (/v1/...: the openai SDK with baseURL <host>/v1, the anthropic SDK with baseURL <host>), and the management API (/manage/v1). Every management operation is also an MCP tool at /mcp.',
    },
    security: [{ bearerAuth: [] }, { apiKeyHeader: [] }],
    tags: [...new Set([...proxyPaths.map((p) => `proxy-${p.family}`), ...operations.map((o) => o.tag)])].map(
      (name) => ({ name }),
    ),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['message', 'type'],
              properties: {
                message: { type: 'string' },
                type: { type: 'string' },
                param: { type: ['string', 'null'] },
                code: { type: ['string', 'null'] },
              },
            },
          },
        },
      },
      responses,
    },
  };
}

export function openApiYaml(operations: readonly Operation[], proxyPaths: readonly ProxyPathDoc[]): string {
  return stringify(buildOpenApi(operations, proxyPaths), { lineWidth: 0 });
}

export interface ToolDoc {
  name: string;
  description: string;
  inputSchema: Json & { type: 'object' };
  outputSchema: Json & { type: 'object' };
}

/** One flat argument object per tool: path, query and body fields side by side. */
export function toolInputSchema(op: Operation): Json & { type: 'object' } {
  const properties: Json = {};
  const required: string[] = [];
  for (const part of [op.input.params, op.input.query, op.input.body]) {
    if (!part) continue;
    for (const [k, s] of Object.entries(part.properties)) properties[k] = plain(s);
    required.push(...(part.required ?? []));
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function roleNote(op: Operation): string {
  return op.role === 'any' ? 'any caller' : `needs role ${op.role}`;
}

export function toolDocs(operations: readonly Operation[]): ToolDoc[] {
  return operations.map((op) => ({
    name: op.name,
    description: `${op.summary} (${op.method} ${op.path}; ${roleNote(op)})`,
    inputSchema: toolInputSchema(op),
    outputSchema: { ...plain(op.output), type: 'object' },
  }));
}

export function toolsJson(operations: readonly Operation[]): string {
  return `${JSON.stringify(toolDocs(operations), null, 2)}\n`;
}
