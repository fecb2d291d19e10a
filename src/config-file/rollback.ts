// Applying a file is all or nothing. A compensating rollback, not a store transaction: the file
// applies through the management operations (validation, config versions, audit entries, change
// events that every instance's in-memory mirrors follow), and they write through stores bound to the
// base handle; none takes a transaction handle, and an event another instance already acted on
// cannot be taken back by one anyway. So the state is exported before the first write (the export
// `config export` writes, provider keys kept inline), and when a change fails, that export is applied
// back with prune through the same operations: the store reads as before, and the audit log and the
// events tell the whole story, the undo included. One exception: a project the failed apply created
// stays (empty, owned by the file). A project's slug is never reused once deleted, so undoing its
// creation would make the file impossible to apply again; the retry adopts it instead.
import { listManaged, type ManagedResource, replaceManaged } from '../manage/config-managed.ts';
import type { Services } from '../manage/services.ts';
import { projects } from './kinds-access.ts';
import type { ParsedConfig } from './parse.ts';
import { applyChanges, exportState, KINDS, makePlan, type Plan, planSize } from './plan.ts';
import type { ConfigFile } from './schema.ts';

interface Snapshot {
  config: ConfigFile;
  managed: ManagedResource[];
}

async function snapshot(svc: Services, orgId: string): Promise<Snapshot> {
  const { config } = await exportState(svc, orgId, { inline: true });
  return { config, managed: await listManaged(svc.db, orgId) };
}

/** Brings the store back to the snapshot: what the failed apply made is pruned, what it changed is set back. */
async function restore(svc: Services, orgId: string, snap: Snapshot): Promise<void> {
  const config: Record<string, unknown> = { ...snap.config, prune: true };
  // An empty section is still a section: prune removes what the failed apply created in it.
  for (const kind of KINDS) config[kind.section] ??= [];
  config.models = { aliases: snap.config.models?.aliases ?? {}, prices: snap.config.models?.prices ?? {} };
  const parsed: ParsedConfig = {
    file: 'the state before the failed apply',
    config: config as ConfigFile,
    lineOf: () => null,
  };
  const plan = await makePlan(svc, orgId, parsed);
  const kept = plan.changes.filter((c) => c.kind === projects && c.action === 'delete');
  plan.changes = plan.changes.filter((c) => !kept.includes(c));
  await applyChanges(plan, { mark: false });
  // A resource the failed apply deleted comes back with a new id: its marker follows it by name.
  const markers = snap.managed.map((m) => ({
    ...m,
    resourceId: plan.ctx.ids.get(m.resourceType)?.get(m.name) ?? m.resourceId,
  }));
  for (const c of kept) if (c.id !== null) markers.push({ resourceType: 'project', resourceId: c.id, name: c.key });
  await replaceManaged(svc.db, orgId, markers);
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Makes the plan's changes, all of them or none: a failure part way undoes what was made before it. */
export async function applyPlan(plan: Plan): Promise<void> {
  // Nothing to change: only the markers of unchanged resources are written, nothing to undo.
  if (planSize(plan) === 0) return applyChanges(plan);
  const { svc, orgId } = plan.ctx;
  const before = await snapshot(svc, orgId);
  try {
    await applyChanges(plan);
  } catch (err) {
    try {
      await restore(svc, orgId, before);
    } catch (undo) {
      svc.logger.error({ err: messageOf(undo) }, 'configuration file: rolling back a failed apply failed');
      throw new Error(`${messageOf(err)} (rolling back failed too: ${messageOf(undo)})`, { cause: err });
    }
    throw new Error(`${messageOf(err)} (nothing applied: the changes made before it were rolled back)`, {
      cause: err,
    });
  }
}
