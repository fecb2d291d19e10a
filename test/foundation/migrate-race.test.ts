// Opening a store on PostgreSQL while other clients create and drop schemas (parallel test files,
// several gateways with a schema each): kysely's check for its migration table introspects every
// schema, and one dropped mid-query used to fail the whole migration.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { dialects, randomSchema, TEST_PG_URL } from '../helpers/dialects.ts';

const postgres = (await dialects()).find((d) => d.name === 'postgres');

test('migrations succeed while other schemas come and go', { skip: postgres?.skip }, async () => {
  if (!postgres) return;
  const churn = new pg.Client({ connectionString: TEST_PG_URL });
  await churn.connect();
  let stop = false;
  let churned = 0;
  const loop = (async () => {
    while (!stop) {
      const name = randomSchema();
      await churn.query(`CREATE SCHEMA "${name}"`);
      await churn.query(`CREATE TABLE "${name}".t (id int)`);
      await churn.query(`DROP SCHEMA "${name}" CASCADE`);
      churned++;
    }
  })();
  try {
    for (let i = 0; i < 8; i++) {
      const db = await postgres.open();
      await db.dispose();
    }
  } finally {
    stop = true;
    await loop;
    await churn.end();
  }
  assert.ok(churned > 10, `only ${churned} schemas churned`);
});
