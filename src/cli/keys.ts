// `switchyard keys create|list|revoke`: works offline against the store (no server needed). The store
// publishes each change on the cluster's change bus; a running gateway that does not share that bus
// (embedded mode: the bus is in-process) sees it through its periodic poll, within the refresh interval.
import { parseArgs } from 'node:util';
import { createChangeBus } from '../cluster/index.ts';
import { loadConfig } from '../config.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../crypto/api-keys.ts';
import { bootstrap } from '../store/bootstrap.ts';
import { openStore, type Stores } from '../store/index.ts';
import { newId } from '../util/ids.ts';
import { createLogger } from '../util/logger.ts';

async function create(stores: Stores, orgId: string, args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { project: { type: 'string' }, name: { type: 'string' } } });
  const projectId = values.project ?? null;
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
    name: values.name ?? (projectId ? 'project key' : 'org key'),
    keyHash: hashApiKey(plaintext),
    prefix: displayPrefix(plaintext),
  });
  process.stdout.write(`${k.id}\t${projectId ?? 'org-wide'}\t${k.name}\n${plaintext}\n`);
  return 0;
}

async function list(stores: Stores, orgId: string): Promise<number> {
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
}

async function revoke(stores: Stores, orgId: string, id: string | undefined): Promise<number> {
  if (!id) {
    process.stderr.write('usage: switchyard keys revoke <key_id>\n');
    return 2;
  }
  const k = await stores.orgKeys.revokeKey(orgId, id);
  if (!k) {
    process.stderr.write(`no API key '${id}'\n`);
    return 1;
  }
  process.stdout.write(`revoked ${k.id} at ${k.revokedAt}\n`);
  return 0;
}

export async function keysCommand(args: string[]): Promise<number | undefined> {
  const [sub, ...rest] = args;
  const config = loadConfig();
  // Logs (none expected: nothing subscribes here) go to stderr, so stdout stays the command's output.
  const changes = createChangeBus(config, createLogger(config.logLevel, process.stderr));
  const handle = await openStore(config, { changes });
  try {
    const boot = await bootstrap(handle.stores, config);
    if (boot.generatedAdminKey !== null) {
      process.stderr.write(`initialized a new store; admin key (shown once): ${boot.generatedAdminKey}\n`);
    }
    if (sub === 'create') return await create(handle.stores, boot.orgId, rest);
    if (sub === 'list') return await list(handle.stores, boot.orgId);
    if (sub === 'revoke') return await revoke(handle.stores, boot.orgId, rest[0]);
    process.stderr.write('usage: switchyard keys create [--project <id>] [--name <n>] | list | revoke <id>\n');
    return 2;
  } finally {
    await handle.close();
    await changes.close();
  }
}
