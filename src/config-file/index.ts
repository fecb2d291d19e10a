// Configuration as code (issue 36): read a SWITCHYARD_CONFIG file, plan it against the store, apply it.
import type { Services } from '../manage/services.ts';
import { readConfigFile } from './parse.ts';
import { makePlan, type Plan, renderPlan } from './plan.ts';
import { applyPlan } from './rollback.ts';

export { ConfigFileError, parseConfigText, readConfigFile } from './parse.ts';
export { exportState, makePlan, planSize, renderPlan } from './plan.ts';
export { applyPlan } from './rollback.ts';
export { configJsonSchema } from './schema.ts';

/** The organization a file configures: the store's first (the gateway has one per store). */
async function orgOf(svc: Services): Promise<string> {
  const org = await svc.stores.orgKeys.firstOrg();
  if (!org) throw new Error('the store has no organization');
  return org.id;
}

export async function planFile(svc: Services, file: string): Promise<Plan> {
  // Parsed (schema, secrets) before the store is read: a bad file changes nothing.
  const parsed = readConfigFile(file);
  return makePlan(svc, await orgOf(svc), parsed);
}

/** Plans and applies; returns the plan that was applied (no changes: nothing written). */
export async function applyFile(svc: Services, file: string): Promise<Plan> {
  const plan = await planFile(svc, file);
  await applyPlan(plan);
  return plan;
}

export { renderPlan as render };
