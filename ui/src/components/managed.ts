// Resources the SWITCHYARD_CONFIG file owns (`managed_by: "config"`): the API answers 409 to any write
// to them, so the dashboard shows them read-only, with a badge and the reason in place of the
// controls that would only be refused.
import { html } from 'htm/preact';
import type { ComponentChildren } from 'preact';
import { Badge } from './common.ts';

interface MaybeManaged {
  managed_by?: 'config' | null;
}

export const REASON = 'Declared in the SWITCHYARD_CONFIG file: change it there and re-apply.';

export function isManaged(item: MaybeManaged | null | undefined): boolean {
  return item?.managed_by === 'config';
}

/** The "managed by config" badge, for file-owned items only. */
export function ManagedBadge({ item }: { item: MaybeManaged | null | undefined }) {
  return isManaged(item) ? html` <span title=${REASON}><${Badge} tone="neutral">managed by config<//></span>` : null;
}

/** The edit and delete controls for an item the API lets people change; the reason for one it refuses. */
export function UnlessManaged({
  item,
  children,
}: {
  item: MaybeManaged | null | undefined;
  children?: ComponentChildren;
}) {
  return isManaged(item) ? html`<small class="hint" data-testid="managed-reason">${REASON}</small>` : children;
}
