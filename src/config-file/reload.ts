// SWITCHYARD_CONFIG at start and on SIGHUP: applied before the gateway listens (a bad file stops the
// start), re-applied on SIGHUP (a bad file is logged and the running state stays).
import type { Services } from '../manage/services.ts';
import { applyFile, planSize } from './index.ts';

/** Applies the file; throws with the file, line and field named when it cannot be applied. */
export async function applyAtStart(svc: Services, file: string): Promise<void> {
  const plan = await applyFile(svc, file);
  svc.logger.info({ file, changes: planSize(plan) }, 'configuration file applied');
}

/** Re-applies on SIGHUP; returns the function that stops listening. */
export function reloadOnHangup(svc: Services, file: string): () => void {
  let running = Promise.resolve();
  const onHup = () => {
    running = running.then(async () => {
      try {
        const plan = await applyFile(svc, file);
        svc.logger.info({ file, changes: planSize(plan) }, 'configuration file re-applied (SIGHUP)');
      } catch (err) {
        svc.logger.error(
          { file, err: err instanceof Error ? err.message : String(err) },
          'configuration file not applied; the running state stays',
        );
      }
    });
  };
  process.on('SIGHUP', onHup);
  return () => process.off('SIGHUP', onHup);
}
