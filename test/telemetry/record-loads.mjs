// Module hooks for off.test.ts: every URL the ESM loader resolves is posted to the test, which
// cannot otherwise see what `import()` loaded (require.cache only holds CommonJS modules).
let port;

export function initialize(data) {
  port = data.port;
}

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  port.postMessage(resolved.url);
  return resolved;
}
