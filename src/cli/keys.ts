// `switchyard keys create|list|revoke|rotate`: works offline against an existing store (no server needed).
// The store publishes each change on the cluster's change bus; a running gateway that does not share
// that bus (embedded mode: the bus is in-process) sees it through its periodic poll, within the
// refresh interval.
import { createChangeBus } from '../cluster/index.ts';
import { loadConfig } from '../config.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { recordCliAudit } from '../manage/audit.ts';
import { isRole, ROLES } from '../ports/roles.ts';
import { openStore, type Stores } from '../store/index.ts';
import { newId } from '../util/ids.ts';
import { createLogger } from '../util/logger.ts';
import { missingStore } from './store-check.ts';

async function withStore(run: (stores: Stores, orgId: string) => Promise<number>): Promise<number> {
  const config = loadConfig();
  const missing = await missingStore(config);
  if (missing !== null) {
    process.stderr.write(`${missing}\n`);
    return 1;
  }
  // Logs (none expected: nothing subscribes here) go to stderr, so stdout stays the command's output.
  const changes = await createChangeBus(config, createLogger(config.logLevel, process.stderr));
  const handle = await openStore(config, { changes });
  try {
    const org = await handle.stores.orgKeys.firstOrg();
    if (!org) throw new Error('the store has no organization');
    return await run(handle.stores, org.id);
  } finally {
    await handle.close();
    await changes.close();
  }
}

export interface KeyCreateOptions {
  project?: string;
  name?: string;
  role?: string;
  /** Comma-separated patterns. */
  allowedModels?: string;
  /** Comma-separated `<server>__<tool>` patterns. */
  allowedTools?: string;
  expiresAt?: string;
  /** `name=value`, repeatable. */
  metadata?: string[];
}

const patterns = (list: string | undefined): string[] | undefined =>
  list
    ?.split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');

/** The options as the store takes them, or the message to exit with (same bounds as the API). */
function keyControls(opts: KeyCreateOptions) {
  if (opts.role !== undefined && !isRole(opts.role)) return `--role takes one of ${ROLES.join(', ')}`;
  const allowedModels = patterns(opts.allowedModels);
  if (allowedModels !== undefined && (allowedModels.length === 0 || allowedModels.length > 50))
    return '--allowed-models takes 1 to 50 comma-separated patterns';
  const allowedTools = patterns(opts.allowedTools);
  if (allowedTools !== undefined && (allowedTools.length === 0 || allowedTools.length > 50))
    return '--allowed-tools takes 1 to 50 comma-separated patterns';
  const expiresMs = opts.expiresAt === undefined ? undefined : Date.parse(opts.expiresAt);
  if (expiresMs !== undefined && Number.isNaN(expiresMs)) return '--expires-at must be an ISO-8601 timestamp';
  const pairs = (opts.metadata ?? []).map((m) => [m.slice(0, m.indexOf('=')), m.slice(m.indexOf('=') + 1)]);
  if (pairs.length > 16 || pairs.some(([k]) => k === '' || k.length > 64))
    return '--metadata takes at most 16 name=value pairs';
  return {
    ...(opts.role !== undefined && isRole(opts.role) ? { role: opts.role } : {}),
    allowedModels: allowedModels ?? null,
    allowedTools: allowedTools ?? null,
    expiresAt: expiresMs === undefined ? null : new Date(expiresMs).toISOString(),
    metadata: pairs.length > 0 ? Object.fromEntries(pairs) : null,
  };
}

export function keysCreate(opts: KeyCreateOptions): Promise<number> {
  return withStore(async (stores, orgId) => {
    const controls = keyControls(opts);
    if (typeof controls === 'string') {
      process.stderr.write(`${controls}\n`);
      return 2;
    }
    const projectId = opts.project ?? null;
    if (projectId !== null) {
      const p = await stores.projects.get(orgId, projectId);
      if (!p || p.deletedAt !== null) {
        process.stderr.write(`no active project '${projectId}'\n`);
        return 1;
      }
    }
    const plaintext = generateApiKey();
    const k = await stores.orgKeys.createKey({
      id: newId('key'),
      orgId,
      projectId,
      name: opts.name ?? (projectId ? 'project key' : 'org key'),
      keyHash: hashApiKey(plaintext),
      prefix: displayPrefix(plaintext),
      ...controls,
    });
    const change = { action: 'api_key.create', resourceType: 'api_key', resourceId: k.id, before: null, after: k };
    await recordCliAudit(stores, orgId, change);
    process.stdout.write(`${k.id}\t${projectId ?? 'org-wide'}\t${k.name}\n${plaintext}\n`);
    return 0;
  });
}

export function keysList(): Promise<number> {
  return withStore(async (stores, orgId) => {
    let afterId: string | undefined;
    process.stdout.write('id\tprefix\tscope\tname\tcreated_at\trevoked_at\trole\n');
    for (;;) {
      const rows = await stores.orgKeys.listKeys(orgId, { afterId, limit: 200, includeRevoked: true });
      for (const k of rows) {
        process.stdout.write(
          `${k.id}\t${k.prefix}\t${k.projectId ?? 'org-wide'}\t${k.name}\t${k.createdAt}\t${k.revokedAt ?? '-'}\t${k.role}\n`,
        );
      }
      if (rows.length < 200) return 0;
      afterId = rows[rows.length - 1]?.id;
    }
  });
}

export function keysRevoke(id: string): Promise<number> {
  return withStore(async (stores, orgId) => {
    const before = (await stores.orgKeys.getKey(orgId, id)) ?? null;
    const k = await stores.orgKeys.revokeKey(orgId, id);
    if (!k) {
      process.stderr.write(`no API key '${id}'\n`);
      return 1;
    }
    const change = { action: 'api_key.revoke', resourceType: 'api_key', resourceId: k.id, before, after: k };
    await recordCliAudit(stores, orgId, change);
    process.stdout.write(`revoked ${k.id} at ${k.revokedAt}\n`);
    return 0;
  });
}

export function keysRotate(id: string, opts: { gracePeriod?: string }): Promise<number> {
  return withStore(async (stores, orgId) => {
    const grace = Number(opts.gracePeriod ?? '0');
    if (!Number.isInteger(grace) || grace < 0 || grace > 604_800) {
      process.stderr.write('--grace-period takes whole seconds from 0 to 604800\n');
      return 2;
    }
    const before = (await stores.orgKeys.getKey(orgId, id)) ?? null;
    const plaintext = generateApiKey();
    const k = await stores.orgKeys.rotateKey(orgId, id, {
      keyHash: hashApiKey(plaintext),
      prefix: displayPrefix(plaintext),
      previousExpiresAt: grace > 0 ? new Date(Date.now() + grace * 1000).toISOString() : null,
    });
    if (!k) {
      process.stderr.write(`no active API key '${id}'\n`);
      return 1;
    }
    const change = { action: 'api_key.rotate', resourceType: 'api_key', resourceId: k.id, before, after: k };
    await recordCliAudit(stores, orgId, change);
    process.stdout.write(`${k.id}\told key works until ${k.previousKeyExpiresAt ?? 'now (no grace)'}\n${plaintext}\n`);
    return 0;
  });
}
