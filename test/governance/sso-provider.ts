// A real OpenID provider for the single sign-on tests: oidc-provider with its development login
// page (any login name, any password), on loopback. The login name picks the account; each account's
// groups are what the gateway's role map reads.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export const CLIENT_ID = 'switchyard-dashboard';
export const CLIENT_SECRET = 'test-client-secret-0123456789abcdef';

export interface TestAccount {
  name: string;
  email: string;
  groups: string[];
}

export interface TestProvider {
  issuer: string;
  /** Serves the provider with `redirectUri` registered for the gateway's client. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

/** Starts listening first (the issuer URL needs the port); the provider itself is made by `register`. */
export async function startProvider(accounts: Record<string, TestAccount>): Promise<TestProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) handler(req, res);
    else res.writeHead(503).end('provider not ready');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    register(redirectUri) {
      const provider = new Provider(issuer, {
        clients: [
          {
            client_id: CLIENT_ID,
            client_secret: CLIENT_SECRET,
            redirect_uris: [redirectUri],
            response_types: ['code'],
            grant_types: ['authorization_code'],
            token_endpoint_auth_method: 'client_secret_basic',
          },
        ],
        // Groups ride with `profile`, the scope the gateway asks for besides openid and email.
        claims: { openid: ['sub'], email: ['email'], profile: ['name', 'groups'] },
        // The gateway reads the role from the ID token: put the scopes' claims there, not only in userinfo.
        conformIdTokenClaims: false,
        async findAccount(_ctx, id) {
          const account = accounts[id];
          if (!account) return undefined;
          return {
            accountId: id,
            async claims() {
              return { sub: id, email: account.email, name: account.name, groups: account.groups };
            },
          };
        },
        pkce: { required: () => true },
        features: { devInteractions: { enabled: true } },
        cookies: { keys: ['sso-test-cookie-key'] },
      });
      provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider', err));
      handler = provider.callback();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
