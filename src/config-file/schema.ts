// The SWITCHYARD_CONFIG file's shape, declared once with TypeBox: the same object validates files
// (ajv), is served at GET /config.schema.json and is kept at docs/config.schema.json (drift test).
// Resources are matched by name or slug, and reference each other by those, never by ids.
import { type Static, type TSchema, Type } from '@sinclair/typebox';

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Slug = Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9_-]*$' });
const SecretRef = (description: string) =>
  Type.String({
    minLength: 1,
    maxLength: 8192,
    description: `${description}; write \${env:NAME} or \${file:/path}, resolved when the file is applied`,
  });
const Nullable = <T extends TSchema>(s: T) => Type.Union([s, Type.Null()]);
const strict = { additionalProperties: false } as const;

const Rate = Type.Integer({ minimum: 1, maximum: 10_000_000 });
const RateLimits = Type.Object(
  { rpm: Type.Optional(Rate), tpm: Type.Optional(Rate), concurrency: Type.Optional(Rate) },
  { ...strict, description: 'Requests per minute, tokens per minute, requests in flight' },
);

const Provider = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Matched by this name' }),
    vendor: Type.String({ minLength: 1, maxLength: 40, description: 'openai, anthropic, ... or vendor_1..vendor_7' }),
    api_key: SecretRef('The vendor key'),
    base_url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
    weight: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
    verify: Type.Optional(
      Type.Boolean({ description: 'false stores a new credential without asking the vendor (default true)' }),
    ),
  },
  strict,
);

const Project = Type.Object(
  {
    slug: Type.String({ ...Slug, description: 'Matched by this slug; other resources name the project by it' }),
    name: Type.Optional(Name),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    settings: Type.Optional(
      Type.Object(
        {
          log_bodies: Type.Optional(Type.Boolean()),
          rate_limits: Type.Optional(Nullable(RateLimits)),
          end_user_rate_limits: Type.Optional(Nullable(RateLimits)),
          semantic_cache: Type.Optional(Nullable(Type.Object({}, { additionalProperties: true }))),
        },
        strict,
      ),
    ),
  },
  strict,
);

const ApiKey = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Matched by this name' }),
    project: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Project slug' }))),
    role: Type.Optional(Type.Union(['admin', 'developer', 'viewer', 'inference'].map((r) => Type.Literal(r)))),
    key: Type.Optional(SecretRef('The plaintext key (sy-...)')),
    sha256: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: 'Hex SHA-256 of the plaintext, when the file must not see it',
      }),
    ),
    rate_limits: Type.Optional(Nullable(RateLimits)),
    allowed_models: Type.Optional(
      Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 50 })),
    ),
    allowed_tools: Type.Optional(
      Nullable(
        Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
          minItems: 1,
          maxItems: 50,
          description: 'MCP gateway tools the key may see and call: glob patterns over <server>__<tool>',
        }),
      ),
    ),
    expires_at: Type.Optional(Nullable(Type.String({ maxLength: 40 }))),
    metadata: Type.Optional(Nullable(Type.Record(Type.String(), Type.String({ maxLength: 512 })))),
  },
  strict,
);

const RoutingConfig = Type.Object(
  {
    slug: Type.String({ ...Slug, description: 'Matched by this slug; call it with model "@<slug>"' }),
    name: Type.Optional(Name),
    project: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 64, description: 'Project slug' }))),
    strategy: Type.String({ minLength: 1, maxLength: 40 }),
    config: Type.Object(
      {},
      {
        additionalProperties: true,
        description:
          'Strategy settings as the API takes them; a candidate may name a provider by `provider_credential: <name>`',
      },
    ),
    embedding_dimensions: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
  },
  strict,
);

const Budget = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Matched by this name' }),
    scope: Type.Object(
      {
        type: Type.Union(['org', 'project', 'api_key', 'end_user', 'tag'].map((t) => Type.Literal(t))),
        project: Type.Optional(Type.String({ minLength: 1, description: 'Project slug (type project)' })),
        api_key: Type.Optional(Type.String({ minLength: 1, description: 'API key name (type api_key)' })),
        id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'End user id (type end_user)' })),
        value: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'key=value (type tag)' })),
      },
      strict,
    ),
    period: Type.Union(['daily', 'weekly', 'monthly', 'total'].map((p) => Type.Literal(p))),
    limit_usd: Type.Number({ exclusiveMinimum: 0 }),
    thresholds: Type.Optional(Type.Array(Type.Number({ exclusiveMinimum: 0, maximum: 1 }), { minItems: 1 })),
    action: Type.Optional(Type.Union([Type.Literal('block'), Type.Literal('alert_only')])),
    models: Type.Optional(Nullable(Type.Array(Type.String({ maxLength: 256 }), { maxItems: 20 }))),
  },
  strict,
);

const Webhook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'Matched by this URL' }),
    event_types: Type.Optional(Type.Array(Type.String({ maxLength: 100 }), { minItems: 1 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    active: Type.Optional(Type.Boolean()),
  },
  strict,
);

const Guardrail = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Matched by this name' }),
    scope: Type.Object(
      {
        type: Type.Union(['org', 'project', 'api_key', 'routing_config'].map((t) => Type.Literal(t))),
        name: Type.Optional(
          Type.String({ minLength: 1, description: 'Project slug, API key name or routing config slug' }),
        ),
      },
      strict,
    ),
    mode: Type.Optional(Type.Union([Type.Literal('enforce'), Type.Literal('shadow')])),
    checks: Type.Array(Type.Object({}, { additionalProperties: true }), {
      minItems: 1,
      description: 'As the guardrails API takes them',
    }),
  },
  strict,
);

const Models = Type.Object(
  {
    aliases: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ minLength: 1, maxLength: 256 }), {
        description: 'alias -> "vendor/model" or "@slug"',
      }),
    ),
    prices: Type.Optional(
      Type.Record(
        Type.String({ minLength: 1, maxLength: 256 }),
        Type.Object(
          {
            input: Type.Number({ minimum: 0 }),
            output: Type.Number({ minimum: 0 }),
            cache_read: Type.Optional(Type.Number({ minimum: 0 })),
            cache_write: Type.Optional(Type.Number({ minimum: 0 })),
          },
          { ...strict, description: 'USD per million tokens' },
        ),
        {
          description: '"vendor/model" -> price override per million tokens',
        },
      ),
    ),
  },
  strict,
);

export const ConfigFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    version: Type.Optional(Type.Literal(1)),
    prune: Type.Optional(
      Type.Boolean({
        description: 'Delete resources of the listed kinds that the file does not declare (default false)',
      }),
    ),
    providers: Type.Optional(Type.Array(Provider)),
    projects: Type.Optional(Type.Array(Project)),
    api_keys: Type.Optional(Type.Array(ApiKey)),
    routing_configs: Type.Optional(Type.Array(RoutingConfig)),
    budgets: Type.Optional(Type.Array(Budget)),
    webhooks: Type.Optional(Type.Array(Webhook)),
    guardrails: Type.Optional(Type.Array(Guardrail)),
    models: Type.Optional(Models),
  },
  {
    ...strict,
    $id: 'https://switchyard.dev/config.schema.json',
    title: 'Switchyard configuration file (SWITCHYARD_CONFIG)',
  },
);

export type ConfigFile = Static<typeof ConfigFileSchema>;
export type ProviderDecl = Static<typeof Provider>;
export type ProjectDecl = Static<typeof Project>;
export type ApiKeyDecl = Static<typeof ApiKey>;
export type RoutingConfigDecl = Static<typeof RoutingConfig>;
export type BudgetDecl = Static<typeof Budget>;
export type WebhookDecl = Static<typeof Webhook>;
export type GuardrailDecl = Static<typeof Guardrail>;

/** The JSON Schema document as served and as kept in docs/ (TypeBox's symbols dropped). */
export function configJsonSchema(): string {
  return `${JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', ...ConfigFileSchema }, null, 2)}\n`;
}
