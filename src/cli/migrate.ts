// `switchyard migrate`: bring the schema to the latest version (serve does this too on start).
import { loadConfig } from '../config.ts';
import { openStore } from '../store/index.ts';

export async function migrateCommand(): Promise<number | undefined> {
  const handle = await openStore(loadConfig());
  try {
    process.stdout.write(`migrated ${handle.dialect} database at ${handle.where}\n`);
  } finally {
    await handle.close();
  }
  return 0;
}
