// The signed-in key and what it may see. Kept in sessionStorage: it lives as long as the tab, is
// never written to disk by a "remember me", and each tab signs in on its own.
import { ApiError, api, setSessionKey } from './api.ts';
import type { Page, Project } from './types.ts';

export type Scope = 'org' | 'project';

export interface Session {
  key: string;
  scope: Scope;
}

const STORAGE_KEY = 'switchyard.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (typeof s.key !== 'string' || (s.scope !== 'org' && s.scope !== 'project')) return null;
    setSessionKey(s.key);
    return { key: s.key, scope: s.scope };
  } catch {
    return null;
  }
}

export function saveSession(s: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  setSessionKey(s.key);
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  setSessionKey(null);
}

/**
 * Checks a key and finds its scope. The log list answers any valid key (401 otherwise); the
 * project list answers org-wide keys only, and a 403 there means the key is scoped to a project.
 * The API has no "who am I" call, so this probe is how any client learns it.
 */
export async function signIn(key: string): Promise<Session> {
  await api<Page<unknown>>('GET', '/logs', { key, query: { limit: 1 } });
  try {
    await api<Page<Project>>('GET', '/projects', { key, query: { limit: 1 } });
    return { key, scope: 'org' };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return { key, scope: 'project' };
    throw err;
  }
}
