// Whether the signed-in caller may change things. The shell sets it on every render, before any page
// renders, so pages and shared controls hide what a read-only role (viewer) would only be refused,
// without each page threading the session down to every button.
import type { ComponentChildren } from 'preact';

let writable = true;

export function setWritable(v: boolean): void {
  writable = v;
}

export function mayWriteNow(): boolean {
  return writable;
}

/** Its children for a caller who may write; nothing for a read-only one. */
export function WriteOnly({ children }: { children?: ComponentChildren }): ComponentChildren {
  return writable ? children : null;
}
