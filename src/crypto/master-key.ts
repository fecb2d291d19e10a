// Finds the master key: SWITCHYARD_MASTER_KEY, else `<dataDir>/master.key`, created on first use
// with mode 0600 so that the embedded default needs no configuration.
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.ts';
import { parseMasterKey } from './secretbox.ts';

export interface MasterKey {
  key: Buffer;
  source: 'env' | 'file' | 'generated';
  path?: string;
}

export function loadMasterKey(config: Config): MasterKey {
  if (config.masterKey !== null) return { key: parseMasterKey(config.masterKey), source: 'env' };
  const path = join(config.dataDir, 'master.key');
  if (existsSync(path)) return { key: parseMasterKey(readFileSync(path, 'utf8')), source: 'file', path };
  mkdirSync(config.dataDir, { recursive: true });
  const key = randomBytes(32);
  // `wx` refuses to overwrite: two processes racing on first start must not each write their own key.
  try {
    writeFileSync(path, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      return { key: parseMasterKey(readFileSync(path, 'utf8')), source: 'file', path };
    }
    throw err;
  }
  chmodSync(path, 0o600);
  return { key, source: 'generated', path };
}
