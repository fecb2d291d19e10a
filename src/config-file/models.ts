// The file's `models: {aliases, prices}` section, planned and applied through the model settings
// service (src/manage/models-settings.ts), which judges every entry before anything is written.
import { GatewayError } from '../errors/gateway-error.ts';
import { recordAudit } from '../manage/audit.ts';
import { CONFIG_ACTOR, markManaged, unmarkManaged } from '../manage/config-managed.ts';
import {
  applyModelSettings,
  checkPricedModel,
  type ModelSettingChange,
  type ModelSettings,
} from '../manage/models-settings.ts';
import type { ApplyContext } from './context.ts';
import { ConfigFileError, type ParsedConfig } from './parse.ts';

function desiredOf(parsed: ParsedConfig): Partial<ModelSettings> | undefined {
  const m = parsed.config.models;
  if (m === undefined) return undefined;
  return {
    ...(m.aliases !== undefined ? { aliases: m.aliases } : {}),
    ...(m.prices !== undefined ? { prices: m.prices as ModelSettings['prices'] } : {}),
  };
}

/** The changes the section makes (nothing written); a refused entry names its line. */
export async function planModels(ctx: ApplyContext, parsed: ParsedConfig): Promise<ModelSettingChange[]> {
  const desired = desiredOf(parsed);
  if (desired === undefined) return [];
  try {
    return await applyModelSettings(ctx.svc, ctx.orgId, desired, { prune: parsed.config.prune === true, apply: false });
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    // The service names `aliases.<name>` or `prices.<model>[.field]`; the name may hold dots itself.
    const param = err.param ?? '';
    const [section] = param.split('.');
    const entries = section === 'aliases' || section === 'prices' ? Object.keys(desired[section] ?? {}) : [];
    const entry = entries.find((e) => param === `${section}.${e}` || param.startsWith(`${section}.${e}.`));
    const path = entry !== undefined && section !== undefined ? ['models', section, entry] : ['models'];
    throw new ConfigFileError(parsed.file, parsed.lineOf(path), `models.${param}`, err.message);
  }
}

/** Marks what the section declares as the file's (API writes to it answer 409), unmarks what it pruned. */
async function markModels(ctx: ApplyContext, desired: Partial<ModelSettings>, made: readonly ModelSettingChange[]) {
  const { db } = ctx.svc;
  for (const name of Object.keys(desired.aliases ?? {}))
    await markManaged(db, ctx.orgId, { resourceType: 'model_alias', resourceId: name, name });
  for (const model of Object.keys(desired.prices ?? {})) {
    const key = checkPricedModel(model);
    await markManaged(db, ctx.orgId, { resourceType: 'model_price', resourceId: key, name: key });
  }
  for (const c of made) if (c.action === 'delete') await unmarkManaged(db, ctx.orgId, typeOf(c), c.name);
}

const typeOf = (c: ModelSettingChange) => (c.kind === 'alias' ? 'model_alias' : 'model_price');

/** Writes the section and audits each change as the file. */
export async function applyModels(
  ctx: ApplyContext,
  parsed: ParsedConfig,
  planned: readonly ModelSettingChange[],
  mark = true,
): Promise<void> {
  const desired = desiredOf(parsed);
  if (desired === undefined) return;
  const made =
    planned.length === 0
      ? []
      : await applyModelSettings(ctx.svc, ctx.orgId, desired, { prune: parsed.config.prune === true });
  if (mark) await markModels(ctx, desired, made);
  for (const c of made) {
    const type = typeOf(c);
    await recordAudit(ctx.svc.stores, {
      orgId: ctx.orgId,
      actor: CONFIG_ACTOR,
      action: `${type}.${c.action === 'delete' ? 'delete' : 'set'}`,
      resourceType: type,
      resourceId: c.name,
      before: c.before,
      after: c.after,
      requestId: null,
      origin: ctx.origin,
    });
  }
}
