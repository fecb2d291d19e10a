// History routing under /ui. Links are plain <a href="/ui/..."> elements, so they work with the
// keyboard, open in a new tab and can be copied; one document-level listener turns ordinary
// clicks on them into pushState navigation. Filters live in the query string, so every view of a
// list can be bookmarked and shared.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/ui';

export interface Location {
  /** The path below /ui, always starting with '/'. */
  path: string;
  query: URLSearchParams;
  /** The full href, for effects that depend on any part of it. */
  href: string;
}

function current(): Location {
  const raw = window.location.pathname;
  const below = raw === BASE || raw === `${BASE}/` ? '/' : raw.startsWith(`${BASE}/`) ? raw.slice(BASE.length) : '/';
  const path = below.length > 1 && below.endsWith('/') ? below.slice(0, -1) : below;
  return { path, query: new URLSearchParams(window.location.search), href: window.location.href };
}

const listeners = new Set<() => void>();

function notify(): void {
  for (const fn of listeners) fn();
}

/** `to` is a path below /ui ('/logs?status=5xx') or a full /ui/... path. */
export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith(`${BASE}/`) || to === BASE ? to : `${BASE}${to}`;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  notify();
}

/** Replaces the query string of the current path; empty values are dropped. */
export function setQuery(values: Record<string, string | undefined>, opts: { replace?: boolean } = {}): void {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v !== undefined && v !== '') params.set(k, v);
  const qs = params.toString();
  navigate(`${window.location.pathname}${qs ? `?${qs}` : ''}`, opts);
}

export function href(path: string, query?: Record<string, string | null | undefined>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) if (v) params.set(k, v);
  const qs = params.toString();
  return `${BASE}${path}${qs ? `?${qs}` : ''}`;
}

function onClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.('a');
  if (!a || a.target || a.hasAttribute('download') || a.origin !== window.location.origin) return;
  if (a.pathname !== BASE && !a.pathname.startsWith(`${BASE}/`)) return;
  e.preventDefault();
  navigate(`${a.pathname}${a.search}${a.hash}`);
}

let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  document.addEventListener('click', onClick);
  window.addEventListener('popstate', notify);
}

export function useLocation(): Location {
  install();
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const fn = () => setLoc(current());
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  return loc;
}
