// People who signed in through single sign-on, and their sessions. A user row is created on the
// first sign-in and refreshed on each later one (name, email, and the role and project mapped from
// the provider's claims, unless an admin has since set the role by hand). Sessions are looked up by
// the SHA-256 of the cookie's token, joined with their user, so one read answers "who, with what
// role, still allowed?".

import type { Role } from '../ports/roles.ts';
import { isRole } from '../ports/roles.ts';
import { newId } from '../util/ids.ts';
import { nowIso } from '../util/time.ts';
import type { Db } from './db.ts';

interface UsersRow {
  id: string;
  org_id: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: string;
  role_set_by_admin: number;
  project_id: string | null;
  active: number;
  created_at: string;
  updated_at: string;
  last_sign_in_at: string | null;
}

interface SessionsRow {
  id: string;
  token_hash: string;
  user_id: string;
  org_id: string;
  csrf_hash: string;
  created_at: string;
  expires_at: string;
  ended_at: string | null;
}

// A type alias, not an interface: kysely's withTables wants an index-signature-compatible shape.
type UserTables = {
  users: UsersRow;
  user_sessions: SessionsRow;
};

export interface UserRecord {
  id: string;
  orgId: string;
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  role: Role;
  /** True once an admin set the role: sign-ins no longer re-derive it from the claims. */
  roleSetByAdmin: boolean;
  projectId: string | null;
  active: boolean;
  createdAt: string;
  updatedAt: string;
  lastSignInAt: string | null;
}

/** What one sign-in tells about its user, already mapped from the provider's claims. */
export type SignIn = Pick<UserRecord, 'orgId' | 'issuer' | 'subject' | 'email' | 'name' | 'role' | 'projectId'>;

export interface NewSession {
  userId: string;
  orgId: string;
  tokenHash: string;
  csrfHash: string;
  expiresAt: string;
}

/** A live session (not ended, not expired) and its user as stored now. */
export interface SessionAuth {
  sessionId: string;
  csrfHash: string;
  expiresAt: string;
  user: UserRecord;
}

export interface UserChange {
  role?: Role;
  active?: boolean;
}

export interface UserStore {
  /** Creates the user on a first sign-in, refreshes it on later ones; returns it as stored. */
  recordSignIn(s: SignIn): Promise<UserRecord>;
  get(orgId: string, id: string): Promise<UserRecord | undefined>;
  /** Oldest first; `afterId` continues after the last id of the previous page. */
  list(orgId: string, opts: { afterId?: string; limit: number }): Promise<UserRecord[]>;
  /** Deactivating a user also ends every session it has. Undefined when there is no such user. */
  update(orgId: string, id: string, change: UserChange): Promise<UserRecord | undefined>;
  createSession(s: NewSession): Promise<string>;
  findSession(tokenHash: string, nowIso: string): Promise<SessionAuth | undefined>;
  endSession(tokenHash: string): Promise<void>;
}

function toRecord(r: UsersRow): UserRecord {
  return {
    id: r.id,
    orgId: r.org_id,
    issuer: r.issuer,
    subject: r.subject,
    email: r.email,
    name: r.name,
    // A role this version does not know (written by a newer one) reads as the least powerful.
    role: isRole(r.role) ? r.role : 'viewer',
    roleSetByAdmin: Number(r.role_set_by_admin) === 1,
    projectId: r.project_id,
    active: Number(r.active) === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    lastSignInAt: r.last_sign_in_at,
  };
}

export function createUserStore(baseDb: Db): UserStore {
  const db = baseDb.withTables<UserTables>();

  const byId = (orgId: string, id: string) =>
    db.selectFrom('users').selectAll().where('org_id', '=', orgId).where('id', '=', id).executeTakeFirst();

  return {
    async recordSignIn(s) {
      const now = nowIso();
      // Insert-or-nothing first, so two first sign-ins racing on two instances make one row.
      await db
        .insertInto('users')
        .values({
          id: newId('user'),
          org_id: s.orgId,
          issuer: s.issuer,
          subject: s.subject,
          email: s.email,
          name: s.name,
          role: s.role,
          role_set_by_admin: 0,
          project_id: s.projectId,
          active: 1,
          created_at: now,
          updated_at: now,
          last_sign_in_at: now,
        })
        .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
        .execute();
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('issuer', '=', s.issuer)
        .where('subject', '=', s.subject)
        .executeTakeFirstOrThrow();
      const mapped = Number(row.role_set_by_admin) === 1 ? {} : { role: s.role, project_id: s.projectId };
      await db
        .updateTable('users')
        .set({ email: s.email, name: s.name, last_sign_in_at: now, updated_at: now, ...mapped })
        .where('id', '=', row.id)
        .execute();
      return toRecord({ ...row, email: s.email, name: s.name, last_sign_in_at: now, updated_at: now, ...mapped });
    },

    async get(orgId, id) {
      const r = await byId(orgId, id);
      return r ? toRecord(r) : undefined;
    },

    async list(orgId, { afterId, limit }) {
      let q = db.selectFrom('users').selectAll().where('org_id', '=', orgId);
      if (afterId !== undefined) q = q.where('id', '>', afterId);
      const rows = await q.orderBy('id').limit(limit).execute();
      return rows.map(toRecord);
    },

    async update(orgId, id, change) {
      const now = nowIso();
      const found = await db.transaction().execute(async (tx) => {
        const set: Partial<UsersRow> = { updated_at: now };
        if (change.role !== undefined) Object.assign(set, { role: change.role, role_set_by_admin: 1 });
        if (change.active !== undefined) set.active = change.active ? 1 : 0;
        const res = await tx
          .updateTable('users')
          .set(set)
          .where('org_id', '=', orgId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 0) return false;
        if (change.active === false) {
          await tx
            .updateTable('user_sessions')
            .set({ ended_at: now })
            .where('user_id', '=', id)
            .where('ended_at', 'is', null)
            .execute();
        }
        return true;
      });
      if (!found) return undefined;
      const r = await byId(orgId, id);
      return r ? toRecord(r) : undefined;
    },

    async createSession(s) {
      const id = newId('sess');
      await db
        .insertInto('user_sessions')
        .values({
          id,
          token_hash: s.tokenHash,
          user_id: s.userId,
          org_id: s.orgId,
          csrf_hash: s.csrfHash,
          created_at: nowIso(),
          expires_at: s.expiresAt,
          ended_at: null,
        })
        .execute();
      return id;
    },

    async findSession(tokenHash, now) {
      const r = await db
        .selectFrom('user_sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .selectAll('u')
        .select(['s.id as session_id', 's.csrf_hash', 's.expires_at', 's.ended_at'])
        .where('s.token_hash', '=', tokenHash)
        .executeTakeFirst();
      if (!r || r.ended_at !== null || r.expires_at <= now) return undefined;
      const { session_id, csrf_hash, expires_at, ended_at: _ended, ...user } = r;
      return { sessionId: session_id, csrfHash: csrf_hash, expiresAt: expires_at, user: toRecord(user) };
    },

    async endSession(tokenHash) {
      await db
        .updateTable('user_sessions')
        .set({ ended_at: nowIso() })
        .where('token_hash', '=', tokenHash)
        .where('ended_at', 'is', null)
        .execute();
    },
  };
}
