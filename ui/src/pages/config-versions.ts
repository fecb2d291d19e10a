// A routing config's versions: pick any two to compare (a line diff of their definitions), and
// restore an old one (which writes a new version equal to it).
import { html } from 'htm/preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { WriteOnly } from '../access.ts';
import { enc, post } from '../api.ts';
import { Badge, ConfirmButton, ErrorBox, Loading, Time } from '../components/common.ts';
import { HeadRow } from '../components/table-head.ts';
import { useAction, useApi } from '../hooks.ts';
import { diffLines, diffStats } from '../lib/diff.ts';
import type { ConfigVersion } from '../types.ts';

export function versionText(v: ConfigVersion): string {
  const doc: Record<string, unknown> = { name: v.name, strategy: v.strategy };
  if (v.embedding_dimensions !== null) doc.embedding_dimensions = v.embedding_dimensions;
  doc.config = v.config;
  return JSON.stringify(doc, null, 2);
}

function DiffView({ a, b }: { a: ConfigVersion; b: ConfigVersion }) {
  const lines = useMemo(() => diffLines(versionText(a), versionText(b)), [a, b]);
  const { added, removed } = diffStats(lines);
  return html`<div class="diff" data-testid="version-diff">
    <p class="hint" role="status">
      Version ${a.version} → version ${b.version}:${added === 0 && removed === 0 ? ' identical definitions.' : ` ${added} line${added === 1 ? '' : 's'} added, ${removed} removed.`}
    </p>
    <pre class="diff-body" tabindex="0" aria-label=${`Differences between version ${a.version} and ${b.version}`}>${lines.map(
      (l) =>
        html`<span class=${`diff-${l.op}`}><span class="diff-sign" aria-hidden="true">${l.op === 'add' ? '+' : l.op === 'del' ? '-' : ' '}</span>${l.op === 'add' ? html`<span class="sr-only">added: </span>` : l.op === 'del' ? html`<span class="sr-only">removed: </span>` : null}${l.text}\n</span>`,
    )}</pre>
  </div>`;
}

export function Versions({
  configId,
  managed = false,
  revision,
  onRestored,
}: {
  configId: string;
  /** Declared in the config file: restoring a version would only be refused (409). */
  managed?: boolean;
  revision: string;
  onRestored: () => void;
}) {
  const versions = useApi<{ data: ConfigVersion[] }>(`/routing-configs/${enc(configId)}/versions`);
  const [pick, setPick] = useState<{ a: number | null; b: number | null }>({ a: null, b: null });
  const restore = useAction((version: number) =>
    post<ConfigVersion>(`/routing-configs/${enc(configId)}/versions/${version}/restore`),
  );
  const seen = useRef(revision);
  useEffect(() => {
    if (seen.current === revision) return;
    seen.current = revision;
    versions.reload();
    setPick({ a: null, b: null });
  }, [revision]);

  const list = versions.data?.data ?? [];
  if (versions.error) return html`<${ErrorBox} error=${versions.error} title="Versions failed to load" />`;
  if (!versions.data) return html`<${Loading} what="versions" />`;
  // By default: the version before the current one against the current one.
  const current = list.find((v) => v.current) ?? list[list.length - 1];
  const a = list.find((v) => v.version === pick.a) ?? list[list.length - 2] ?? current;
  const b = list.find((v) => v.version === pick.b) ?? current;

  return html`<div class="table-wrap">
      <table data-testid="versions-table">
        <caption class="sr-only">Versions, oldest first; choose two to compare</caption>
        <thead>
          <${HeadRow} columns=${['Version', 'Compare from', 'Compare to', 'Name', 'Strategy', 'Created', 'Action']} />
        </thead>
        <tbody>
          ${list.map(
            (v) => html`<tr>
              <td>
                v${v.version} ${v.current ? html`<${Badge} tone="ok">current<//>` : null}
                ${v.restored_from !== null ? html`<small> restored from v${v.restored_from}</small>` : null}
              </td>
              <td><input type="radio" name="diff-a" aria-label=${`Compare from version ${v.version}`} checked=${a?.version === v.version} onChange=${() => setPick({ ...pick, a: v.version, b: b?.version ?? null })} /></td>
              <td><input type="radio" name="diff-b" aria-label=${`Compare to version ${v.version}`} checked=${b?.version === v.version} onChange=${() => setPick({ ...pick, b: v.version, a: a?.version ?? null })} /></td>
              <td>${v.name}</td>
              <td>${v.strategy}</td>
              <td><${Time} iso=${v.created_at} /></td>
              <td>
                ${
                  v.current || managed
                    ? null
                    : html`<${WriteOnly}><${ConfirmButton}
                        label=${`Restore v${v.version}`}
                        confirm=${`Make version ${v.version}'s definition current (as a new version)?`}
                        onConfirm=${async () => {
                          if (await restore.run(v.version)) onRestored();
                        }}
                      /><//>`
                }
              </td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <${ErrorBox} error=${restore.error} title="Restore failed" />
    ${
      list.length < 2
        ? html`<p class="hint">Only one version so far: saving a change writes version 2, and any two can then be compared here.</p>`
        : a && b
          ? html`<${DiffView} a=${a} b=${b} />`
          : null
    }`;
}
