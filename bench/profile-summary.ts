// Reads a V8 .cpuprofile and ranks functions by self time, so the profile of a bench run can be
// read in a terminal. Pure apart from the file read in `summarizeFile`.
import { readFile } from 'node:fs/promises';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface HotFunction {
  name: string;
  /** `path:line` relative to the repo when the file is inside it. */
  where: string;
  selfMs: number;
  share: number;
}

export function hotFunctions(
  p: CpuProfile,
  root: string,
  filter: (url: string) => boolean = () => true,
): HotFunction[] {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, { frame: CallFrame; us: number }>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const us = p.timeDeltas[i] ?? 0;
    total += us;
    const node = byId.get(p.samples[i]);
    if (!node) continue;
    const f = node.callFrame;
    const key = `${f.functionName}@${f.url}:${f.lineNumber}`;
    const e = self.get(key);
    if (e) e.us += us;
    else self.set(key, { frame: f, us });
  }
  const out: HotFunction[] = [];
  for (const { frame, us } of self.values()) {
    if (!filter(frame.url)) continue;
    const path = frame.url.replace(/^file:\/\//, '');
    out.push({
      name: frame.functionName || '(anonymous)',
      where: `${path.startsWith(root) ? path.slice(root.length + 1) : path || '(native)'}:${frame.lineNumber + 1}`,
      selfMs: us / 1000,
      share: total > 0 ? us / total : 0,
    });
  }
  return out.sort((a, b) => b.selfMs - a.selfMs);
}

export async function summarizeFile(file: string, root: string, top = 25): Promise<string> {
  const p = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const fmt = (h: HotFunction) =>
    `${(h.share * 100).toFixed(1).padStart(5)}%  ${h.selfMs.toFixed(0).padStart(6)} ms  ${h.name}  ${h.where}`;
  const ours = hotFunctions(p, root, (u) => u.includes('/src/'));
  const all = hotFunctions(p, root);
  return [
    `profile: ${file}`,
    'top self time, all code:',
    ...all.slice(0, top).map(fmt),
    '',
    'top self time, src/** only:',
    ...ours.slice(0, top).map(fmt),
  ].join('\n');
}
