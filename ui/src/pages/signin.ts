// Sign-in: one API key, checked against the management API before it is kept for the tab.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { ErrorBox } from '../components/common.ts';
import { type Session, saveSession, signIn } from '../session.ts';

export function SignIn({ notice, onSignedIn }: { notice: string | null; onSignedIn: (s: Session) => void }) {
  const [error, setError] = useState<ApiError | null>(null);
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
