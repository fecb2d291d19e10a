// API keys that say what they may do (issue 33): a model allow-list, an expiry, free-form metadata,
// the last time the key was used, and the previous hash of a rotated key with the end of its grace
// period, so the old plaintext keeps working until then on every instance.
import type { Kysely } from 'kysely';

const COLUMNS = [
  // JSON array of model glob / `@slug` patterns; null = every model.
  'allowed_models',
  'expires_at',
  // JSON object of string to string; null = none.
  'metadata',
  // Written by the principal mirror's flush (at most once a minute per key), never per call.
  'last_used_at',
  'previous_key_hash',
  'previous_key_expires_at',
] as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const c of COLUMNS) await db.schema.alterTable('api_keys').addColumn(c, 'text').execute();
  // Authentication looks a plaintext up by either hash.
  await db.schema.createIndex('api_keys_previous_hash').on('api_keys').column('previous_key_hash').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('api_keys_previous_hash').execute();
  for (const c of [...COLUMNS].reverse()) await db.schema.alterTable('api_keys').dropColumn(c).execute();
}
