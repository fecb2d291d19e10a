// The organization's projects, loaded once per session and shared by every page that shows a
// project's name or offers a project picker. Pages that create or delete a project invalidate it.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get } from './api.ts';
import type { Page, Project } from './types.ts';

let cached: Promise<Project[]> | null = null;
const listeners = new Set<() => void>();

async function loadAll(): Promise<Project[]> {
  const out: Project[] = [];
  let cursor: string | null = null;
  // Pages of 200 until the end; an organization with thousands of projects still loads in a few.
  for (let i = 0; i < 50; i++) {
    const page: Page<Project> = await get<Page<Project>>('/projects', { limit: 200, cursor });
    out.push(...page.data);
    if (!page.has_more || !page.next_cursor) break;
    cursor = page.next_cursor;
  }
  return out;
}

export function projectsPromise(): Promise<Project[]> {
  cached ??= loadAll().catch((err: unknown) => {
    cached = null;
    throw err;
  });
  return cached;
}

export function invalidateProjects(): void {
  cached = null;
  for (const fn of listeners) fn();
}

export interface ProjectsState {
  projects: Project[];
  loaded: boolean;
  error: ApiError | undefined;
}

/** The projects (org-wide keys only; `enabled` false for a project key, which may not list them). */
export function useProjectsState(enabled: boolean): ProjectsState {
  const [state, setState] = useState<ProjectsState>({ projects: [], loaded: false, error: undefined });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const fn = () => setTick((t) => t + 1);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    projectsPromise().then(
      (projects) => live && setState({ projects, loaded: true, error: undefined }),
      (err: unknown) =>
        live &&
        setState({ projects: [], loaded: true, error: err instanceof ApiError ? err : new ApiError(0, String(err)) }),
    );
    return () => {
      live = false;
    };
  }, [enabled, tick]);
  return state;
}

/**
 * Just the list, for names and pickers. A failure here leaves names as ids; the page's own request
 * (or useProjectsState on pages that need the list) shows the error.
 */
export function useProjects(enabled: boolean): Project[] {
  return useProjectsState(enabled).projects;
}

export function projectName(projects: readonly Project[], id: string | null | undefined): string {
  if (!id) return '—';
  return projects.find((p) => p.id === id)?.name ?? id;
}
