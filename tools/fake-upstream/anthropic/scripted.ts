// Applies the model-name script (slow / hang / fail-*) before a vendor answers; shared by three vendors.
import type { FakeContext } from '../context.ts';
import { type Script, sleep } from '../script.ts';
import { untilClosed } from './util.ts';

export type ScriptedFailure = 429 | 500 | 400;

/**
 * Returns true when the script consumed the request (an error was sent, or the fake hangs until the
 * client gives up). `fail` writes the failure in the vendor's own error shape.
 */
export async function runScript(
  ctx: FakeContext,
  script: Script,
  fail: (status: ScriptedFailure) => void,
): Promise<boolean> {
  if (script.slowMs > 0) await sleep(script.slowMs);
  if (script.hang) {
    await untilClosed(ctx);
    return true;
  }
  const status: ScriptedFailure | 0 = script.fail429 ? 429 : script.fail500 ? 500 : script.fail400 ? 400 : 0;
  if (status === 0) return false;
  fail(status);
  return true;
}
