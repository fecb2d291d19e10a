// What the schema cannot see, checked before anything is written: every name a declaration refers
// to exists (in the store, or declared in the same file), a key gives its plaintext or its hash,
// and a routing config compiles. A file that fails here changes nothing.
import { normalizeCreate } from '../routing/normalize.ts';
import { ConfigError } from '../routing/types.ts';
import { isRecord } from '../util/json.ts';
import type { ApplyContext } from './context.ts';
import { ConfigFileError, fieldName, type ParsedConfig } from './parse.ts';

type PathPart = string | number;

/** `config.models[1].model` -> ['config', 'models', 1, 'model']. */
function pathOfField(field: string): PathPart[] {
  return field
    .split(/\.|\[|\]/)
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

export function checkDeclarations(parsed: ParsedConfig, ctx: ApplyContext): void {
  const { config, file } = parsed;
  const fail = (path: PathPart[], problem: string): never => {
    throw new ConfigFileError(file, parsed.lineOf(path), fieldName(path), problem);
  };
  const known = (kind: string, section: 'providers' | 'projects' | 'api_keys', key: 'name' | 'slug') => {
    const names = new Set(ctx.ids.get(kind)?.keys() ?? []);
    for (const d of config[section] ?? []) names.add(String((d as Record<string, unknown>)[key]));
    return names;
  };
  const providers = known('provider', 'providers', 'name');
  const projects = known('project', 'projects', 'slug');
  const keys = known('api_key', 'api_keys', 'name');
  const needProject = (path: PathPart[], v: unknown) => {
    if (typeof v === 'string' && !projects.has(v)) fail(path, `no project with slug '${v}' in the store or the file`);
  };

  (config.api_keys ?? []).forEach((k, i) => {
    if (k.key === undefined && k.sha256 === undefined) fail(['api_keys', i], 'give key (a reference) or sha256');
    if (k.key !== undefined && k.sha256 !== undefined) fail(['api_keys', i, 'sha256'], 'give key or sha256, not both');
    needProject(['api_keys', i, 'project'], k.project);
  });

  (config.routing_configs ?? []).forEach((c, i) => {
    needProject(['routing_configs', i, 'project'], c.project);
    const walk = (v: unknown, path: PathPart[]): unknown => {
      if (Array.isArray(v)) return v.map((x, j) => walk(x, [...path, j]));
      if (!isRecord(v)) return v;
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        if (k === 'provider_credential') {
          if (typeof x !== 'string' || !providers.has(x))
            fail([...path, k], `no provider named '${String(x)}' in the store or the file`);
          out.provider_credential_id = 'prov_checked';
        } else out[k] = walk(x, [...path, k]);
      }
      return out;
    };
    const base: PathPart[] = ['routing_configs', i];
    const body = {
      slug: c.slug,
      name: c.name ?? c.slug,
      strategy: c.strategy,
      config: walk(c.config, [...base, 'config']),
    };
    try {
      normalizeCreate(body);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      fail([...base, ...pathOfField(err.field)], err.message.slice(err.field.length + 2));
    }
  });

  const configs = new Set(ctx.ids.get('routing_config')?.keys() ?? []);
  for (const c of config.routing_configs ?? []) configs.add(c.slug);
  (config.guardrails ?? []).forEach((g, i) => {
    const { type, name } = g.scope;
    const path = ['guardrails', i, 'scope'];
    if (type === 'org') return;
    if (name === undefined) fail(path, `a ${type} scope needs name`);
    const names = type === 'project' ? projects : type === 'api_key' ? keys : configs;
    if (name !== undefined && !names.has(name))
      fail([...path, 'name'], `no ${type.replace('_', ' ')} '${name}' in the store or the file`);
  });

  (config.budgets ?? []).forEach((b, i) => {
    needProject(['budgets', i, 'scope', 'project'], b.scope.project);
    if (b.scope.api_key !== undefined && !keys.has(b.scope.api_key))
      fail(['budgets', i, 'scope', 'api_key'], `no API key named '${b.scope.api_key}' in the store or the file`);
  });
}
