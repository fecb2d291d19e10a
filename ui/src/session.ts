// Who is signed in and what they may do. An API-key session is kept in sessionStorage: it lives as
// long as the tab, is never written to disk by a "remember me", and each tab signs in on its own.
// A single sign-on session is an HttpOnly cookie the page never sees; the readable CSRF cookie
// beside it says one may exist, and GET /manage/v1/me confirms it and names the user and role.
import { ApiError, api, csrfToken, setSessionKey, ssoGet, ssoPost } from './api.ts';

export type Scope = 'org' | 'project';
export type Role = 'admin' | 'developer' | 'viewer' | 'inference';

export interface Session {
  /** The API key; null for a single sign-on session (its cookie travels by itself). */
  key: string | null;
  via: 'key' | 'sso';
  scope: Scope;
  role: Role;
  /** Shown in the header: the key's or the user's name. */
  name: string;
}

interface Me {
  actor: { type: 'api_key'; name: string } | { type: 'user'; name: string | null; email: string | null };
  role: Role;
  project_id: string | null;
}

const STORAGE_KEY = 'switchyard.session';
const ROLES: readonly Role[] = ['admin', 'developer', 'viewer', 'inference'];

/** Whether the session may change things; a viewer's pages show no edit controls. */
export function mayWrite(s: Session): boolean {
  return s.role === 'admin' || s.role === 'developer';
}

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Partial<Session>;
    if (typeof s.key !== 'string' || (s.scope !== 'org' && s.scope !== 'project')) return null;
    setSessionKey(s.key);
    // Sessions stored before roles existed: an org-wide key was an admin, a project key inference.
    const role = s.role !== undefined && ROLES.includes(s.role) ? s.role : s.scope === 'org' ? 'admin' : 'inference';
    return { key: s.key, via: 'key', scope: s.scope, role, name: typeof s.name === 'string' ? s.name : 'API key' };
  } catch {
    return null;
  }
}

export function saveSession(s: Session): void {
  if (s.key !== null) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(s));
  setSessionKey(s.key);
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  setSessionKey(null);
}

function sessionOf(me: Me, key: string | null): Session {
  const name = me.actor.type === 'api_key' ? me.actor.name : (me.actor.name ?? me.actor.email ?? 'Signed-in user');
  return {
    key,
    via: key === null ? 'sso' : 'key',
    scope: me.project_id === null ? 'org' : 'project',
    role: me.role,
    name,
  };
}

/** Checks a key and learns its role and scope from GET /manage/v1/me. */
export async function signIn(key: string): Promise<Session> {
  return sessionOf(await api<Me>('GET', '/me', { key }), key);
}

/** The single sign-on session this browser holds, if any (null when there is none or it ended). */
export async function ssoSession(): Promise<Session | null> {
  if (csrfToken() === null) return null;
  try {
    // An empty key sends no Authorization header, and its 401 is an answer here, not a lost session.
    const me = await api<Me>('GET', '/me', { key: '' });
    return me.actor.type === 'user' ? sessionOf(me, null) : null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

/** Ends a single sign-on session at the gateway; an API-key session only forgets its key. */
export async function signOut(s: Session): Promise<void> {
  clearSession();
  if (s.via !== 'sso') return;
  const token = csrfToken();
  await ssoPost('/logout', token);
}

export interface SsoStatus {
  enabled: boolean;
  login_url: string | null;
}

export async function ssoStatus(): Promise<SsoStatus> {
  const status = await ssoGet<SsoStatus>('/status');
  return status ?? { enabled: false, login_url: null };
}
