import { startProxyEnv } from '../helpers/proxy-env.ts';
const env = await startProxyEnv();
const ac = new AbortController();
setTimeout(() => ac.abort(), 300);
try {
  await fetch(`${env.gw.url}/alpha/v1/chat/completions`, { method: 'POST', signal: ac.signal, headers: { authorization: `Bearer ${env.gw.adminKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'openai/gpt-4o-mini-hang', messages: [{ role: 'user', content: 'x' }] }) });
} catch (e) { console.log('aborted', String(e)); }
await new Promise((r) => setTimeout(r, 200));
let t = Date.now();
await env.gw.close(); console.log('gw close', Date.now() - t);
t = Date.now();
await env.fake.close(); console.log('fake close', Date.now() - t);
const h = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
console.log(h.map((x) => (x as object).constructor.name));
