// `switchyard config validate|plan|apply|export`: the SWITCHYARD_CONFIG file against an existing
// store (no server needed). apply writes through the management operations; a running gateway on
// the same store follows through its change feed (the Redis bus, or its periodic poll).
import { writeFileSync } from 'node:fs';
import { stringify } from 'yaml';
import { loadConfig } from '../config.ts';
import { applyPlan, exportState, makePlan, planSize, readConfigFile, renderPlan } from '../config-file/index.ts';
import { createServices, type Services } from '../services.ts';
import { missingMasterKey, missingStore } from './store-check.ts';

/** Exit codes of `config plan`: 0 nothing to do, 2 changes; 1 is an error. */
const PLAN_CHANGES = 2;

function fileOf(given: string | undefined): string | undefined {
  return given ?? process.env.SWITCHYARD_CONFIG;
}

function fail(err: unknown): number {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

async function withServices(run: (svc: Services, orgId: string) => Promise<number>): Promise<number> {
  const config = loadConfig(process.env, { logLevel: 'warn' });
  const missing = (await missingStore(config)) ?? missingMasterKey(config);
  if (missing !== null) return fail(missing);
  const { default: pino } = await import('pino');
  const svc = await createServices(config, { logDestination: pino.destination(2) });
  try {
    const org = await svc.stores.orgKeys.firstOrg();
    if (!org) return fail('the store has no organization');
    return await run(svc, org.id);
  } catch (err) {
    return fail(err);
  } finally {
    await svc.close();
  }
}

export function configValidate(given: string | undefined): number {
  const file = fileOf(given);
  if (file === undefined)
    return fail('config validate needs a file: switchyard config validate <file>, or SWITCHYARD_CONFIG');
  try {
    readConfigFile(file);
  } catch (err) {
    return fail(err);
  }
  process.stdout.write(`${file}: valid\n`);
  return 0;
}

export async function configPlan(given: string | undefined, opts: { apply: boolean }): Promise<number> {
  const file = fileOf(given);
  if (file === undefined) return fail('a file is needed: the argument, or SWITCHYARD_CONFIG');
  let parsed: ReturnType<typeof readConfigFile>;
  try {
    parsed = readConfigFile(file);
  } catch (err) {
    return fail(err);
  }
  return withServices(async (svc, orgId) => {
    const plan = await makePlan(svc, orgId, parsed);
    process.stdout.write(renderPlan(plan));
    if (!opts.apply) return planSize(plan) === 0 ? 0 : PLAN_CHANGES;
    await applyPlan(plan);
    process.stdout.write(`Applied ${planSize(plan)} change(s).\n`);
    return 0;
  });
}

export async function configExport(opts: { out?: string; json?: boolean }): Promise<number> {
  return withServices(async (svc, orgId) => {
    const { config, env } = await exportState(svc, orgId);
    const text = opts.json === true ? `${JSON.stringify(config, null, 2)}\n` : stringify(config);
    if (opts.out !== undefined) writeFileSync(opts.out, text);
    else process.stdout.write(text);
    const names = Object.keys(env);
    if (names.length > 0) process.stderr.write(`Provider keys are references; set: ${names.join(', ')}\n`);
    return 0;
  });
}
