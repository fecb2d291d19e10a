// `switchyard keys create|list|revoke`: works offline against an existing store (no server needed).
// The store publishes each change on the cluster's change bus; a running gateway that does not share
// that bus (embedded mode: the bus is in-process) sees it through its periodic poll, within the
// refresh interval.
import { createChangeBus } from '../cluster/index.ts';
import { loadConfig } from '../config.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
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
  const changes = createChangeBus(config, createLogger(config.logLevel, process.stderr));
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

export function keysCreate(opts: { project?: string; name?: string }): Promise<number> {
  return withStore(async (stores, orgId) => {
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
    });
    process.stdout.write(`${k.id}\t${projectId ?? 'org-wide'}\t${k.name}\n${plaintext}\n`);
    return 0;
  });
}

export function keysList(): Promise<number> {
  return withStore(async (stores, orgId) => {
    let afterId: string | undefined;
    process.stdout.write('id\tprefix\tscope\tname\tcreated_at\trevoked_at\n');
    for (;;) {
      const rows = await stores.orgKeys.listKeys(orgId, { afterId, limit: 200, includeRevoked: true });
      for (const k of rows) {
        process.stdout.write(
          `${k.id}\t${k.prefix}\t${k.projectId ?? 'org-wide'}\t${k.name}\t${k.createdAt}\t${k.revokedAt ?? '-'}\n`,
        );
      }
      if (rows.length < 200) return 0;
      afterId = rows[rows.length - 1]?.id;
    }
  });
}

export function keysRevoke(id: string): Promise<number> {
  return withStore(async (stores, orgId) => {
    const k = await stores.orgKeys.revokeKey(orgId, id);
    if (!k) {
      process.stderr.write(`no API key '${id}'\n`);
      return 1;
    }
    process.stdout.write(`revoked ${k.id} at ${k.revokedAt}\n`);
    return 0;
  });
}
