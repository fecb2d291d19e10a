// Sign-in: "Sign in with SSO" when the gateway has an identity provider, and always an API key
// (checked against the management API before it is kept for the tab), which stays the way in when
// the provider is down.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { ErrorBox } from '../components/common.ts';
import { type Session, type SsoStatus, saveSession, signIn, ssoStatus } from '../session.ts';

/** The provider's refusal, sent back by the gateway's callback as `?sso_error=`. */
function ssoErrorOf(): ApiError | null {
  const message = new URLSearchParams(location.search).get('sso_error');
  return message ? new ApiError(0, message) : null;
}

function SsoButton() {
  const [status, setStatus] = useState<SsoStatus | null>(null);
  useEffect(() => {
    ssoStatus().then(setStatus);
  }, []);
  if (!status?.enabled || status.login_url === null) return null;
  const back =
    location.pathname.startsWith('/ui/') && location.pathname !== '/ui/signin' ? location.pathname : '/ui/overview';
  return html`<p class="sso">
      <a class="button primary" href=${`${status.login_url}?return_to=${encodeURIComponent(back)}`}>Sign in with SSO</a>
    </p>
    <p class="hint">Or use an API key (break-glass, and for automation):</p>`;
}

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (s: Session) => void }) {
  const [error, setError] = useState<ApiError | null>(ssoErrorOf);
  const [pending, setPending] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const key = String(new FormData(form).get('api_key') ?? '').trim();
    if (key === '') {
      setError(new ApiError(0, 'Enter an API key (sy-...).', null, 'api_key'));
      return;
    }
    setPending(true);
    setError(null);
    try {
      const session = await signIn(key);
      saveSession(session);
      onSignedIn(session);
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? new ApiError(401, 'The gateway does not know this key, or it was revoked.', err.code)
          : err instanceof ApiError
            ? err
            : new ApiError(0, String(err)),
      );
    } finally {
      setPending(false);
    }
  };

  return html`<main id="main" class="signin" aria-busy=${pending ? 'true' : 'false'}>
    <form class="card signin-card" onSubmit=${submit} novalidate>
      <h1>Switchyard</h1>
      <p>Sign in with a Switchyard API key. An org-wide key sees everything; a project key sees its project's logs and analytics.</p>
      ${notice ? html`<p class="notice" role="status">${notice}</p>` : null}
      <${SsoButton} />
      <label for="api_key">API key</label>
      <input
        id="api_key"
        name="api_key"
        type="password"
        autocomplete="off"
        spellcheck="false"
        placeholder="sy-..."
        required
        autofocus
        aria-invalid=${error ? 'true' : undefined}
        aria-describedby=${error ? 'signin-error' : 'signin-help'}
      />
      <p id="signin-help" class="hint">Kept in this tab's session storage only, and sent as a Bearer header to /manage/v1.</p>
      <div id="signin-error"><${ErrorBox} error=${error} title="Sign-in failed" /></div>
      <button type="submit" class="primary" disabled=${pending}>${pending ? 'Signing in…' : 'Sign in'}</button>
    </form>
  </main>`;
}
