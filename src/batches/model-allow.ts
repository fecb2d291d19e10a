// A key's allowed_models at batch creation (issue 33): a batch naming a model the key may not call
// is refused whole, 403 model_not_allowed, before anything is stored or sent upstream, as one call
// for that model would be. Without the check the batch would be accepted and each of its items
// would fail alone, after the caller had already been told the batch was on its way.
import { GatewayError } from '../errors/gateway-error.ts';
import type { Principal } from '../live/principals.ts';
import { keyAllows } from '../pipeline/route.ts';
import { parseModelRef } from '../providers/registry.ts';
import type { FileRecord } from '../store/files.ts';
import { isRecord } from '../util/json.ts';
import type { BatchDeps } from './deps.ts';
import { jsonObjects } from './jsonl.ts';

/** Throws model_not_allowed for the first model the key may not call; `param` names where it was. */
export function refuseDisallowedModels(p: Principal, models: readonly string[], param: (i: number) => string): void {
  const allow = p.modelAllow;
  if (allow == null) return;
  models.forEach((model, i) => {
    const ref = parseModelRef(model);
    // An unknown model is refused later for what it is (model_not_found), by the item's own call.
    const allowed = ref === undefined || keyAllows(allow, model, ref);
    if (!allowed) throw new GatewayError('model_not_allowed', { vars: { model }, param: param(i) });
  });
}

/** The same for an alpha input file: read only for a key with an allow-list, so other keys pay nothing. */
export async function refuseDisallowedFileModels(
  p: Principal,
  deps: Pick<BatchDeps, 'openFile' | 'settings'>,
  file: FileRecord,
): Promise<void> {
  if (p.modelAllow == null) return;
  const models: string[] = [];
  for await (const line of jsonObjects(await deps.openFile(file), deps.settings.maxLineBytes)) {
    const body = line.body;
    if (isRecord(body) && typeof body.model === 'string') models.push(body.model);
  }
  refuseDisallowedModels(p, models, () => 'input_file_id');
}
