// The shell: sign-in gate, navigation, and the route table. Each route names the page and whether
// it needs an org-wide key (the management API refuses project keys everywhere but logs and the
// analytics report); a project key sees those pages' links hidden and an explanation if it goes
// there directly.
import { html } from 'htm/preact';
import type { FunctionComponent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { setWritable } from './access.ts';
import { isBusy, onBusyChange, setUnauthorizedHandler } from './api.ts';
import { OrgOnly } from './components/common.ts';
import type { PageProps } from './page.ts';
import { AuditPage } from './pages/audit.ts';
import { BudgetsPage } from './pages/budgets.ts';
import { CachePage } from './pages/cache.ts';
import { ConfigEditorPage } from './pages/config-editor.ts';
import { ConfigsPage } from './pages/configs.ts';
import { GuardrailsPage } from './pages/guardrails.ts';
import { KeysPage } from './pages/keys.ts';
import { LogDetailPage } from './pages/log-detail.ts';
import { LogsPage } from './pages/logs.ts';
import { McpServersPage } from './pages/mcp-servers.ts';
import { ModelsPage } from './pages/models.ts';
import { NotFoundPage } from './pages/not-found.ts';
import { OverviewPage } from './pages/overview.ts';
import { ProjectsPage } from './pages/projects.ts';
import { ProvidersPage } from './pages/providers.ts';
import { SignIn } from './pages/signin.ts';
import { WebhooksPage } from './pages/webhooks.ts';
import { projectsPromise } from './projects.ts';
import { navigate, useLocation } from './router.ts';
import { clearSession, loadSession, mayWrite, type Session, signOut, ssoSession } from './session.ts';

interface Route {
  pattern: RegExp;
  title: string;
  page: FunctionComponent<PageProps>;
  org: boolean;
  /** The nav entry this route highlights. */
  nav: string;
}

const ROUTES: Route[] = [
  { pattern: /^\/overview$/, title: 'Overview', page: OverviewPage, org: false, nav: '/overview' },
  { pattern: /^\/logs$/, title: 'Logs', page: LogsPage, org: false, nav: '/logs' },
  { pattern: /^\/logs\/([^/]+)$/, title: 'Request', page: LogDetailPage, org: false, nav: '/logs' },
  { pattern: /^\/configs$/, title: 'Routing configs', page: ConfigsPage, org: true, nav: '/configs' },
  { pattern: /^\/configs\/([^/]+)$/, title: 'Routing config', page: ConfigEditorPage, org: true, nav: '/configs' },
  { pattern: /^\/providers$/, title: 'Providers', page: ProvidersPage, org: true, nav: '/providers' },
  { pattern: /^\/models$/, title: 'Models', page: ModelsPage, org: true, nav: '/models' },
  { pattern: /^\/projects$/, title: 'Projects', page: ProjectsPage, org: true, nav: '/projects' },
  { pattern: /^\/keys$/, title: 'API keys', page: KeysPage, org: true, nav: '/keys' },
  { pattern: /^\/budgets$/, title: 'Budgets', page: BudgetsPage, org: true, nav: '/budgets' },
  { pattern: /^\/webhooks$/, title: 'Webhooks', page: WebhooksPage, org: true, nav: '/webhooks' },
  { pattern: /^\/mcp-servers$/, title: 'MCP servers', page: McpServersPage, org: true, nav: '/mcp-servers' },
  { pattern: /^\/guardrails$/, title: 'Guardrails', page: GuardrailsPage, org: true, nav: '/guardrails' },
  { pattern: /^\/cache$/, title: 'Cache', page: CachePage, org: true, nav: '/cache' },
  { pattern: /^\/audit$/, title: 'Audit log', page: AuditPage, org: true, nav: '/audit' },
];

const NAV: Array<{ path: string; label: string; org: boolean }> = [
  { path: '/overview', label: 'Overview', org: false },
  { path: '/logs', label: 'Logs', org: false },
  { path: '/configs', label: 'Routing configs', org: true },
  { path: '/providers', label: 'Providers', org: true },
  { path: '/models', label: 'Models', org: true },
  { path: '/projects', label: 'Projects', org: true },
  { path: '/keys', label: 'API keys', org: true },
  { path: '/budgets', label: 'Budgets', org: true },
  { path: '/webhooks', label: 'Webhooks', org: true },
  { path: '/mcp-servers', label: 'MCP servers', org: true },
  { path: '/guardrails', label: 'Guardrails', org: true },
  { path: '/cache', label: 'Cache', org: true },
  { path: '/audit', label: 'Audit log', org: true },
];

function useBusy(): boolean {
  const [busy, setBusy] = useState(isBusy());
  useEffect(() => {
    // A request may have started or ended between the first render and this subscription.
    setBusy(isBusy());
    return onBusyChange(setBusy);
  }, []);
  return busy;
}

export function App() {
  const loc = useLocation();
  const [session, setSession] = useState<Session | null>(() => {
    const s = loadSession();
    // Most pages name projects: asking before the first page's own requests lets the list arrive
    // first. Only a prefetch; a page that needs the list shows its failure itself.
    if (s?.scope === 'org') projectsPromise().catch(() => undefined);
    return s;
  });
  // A single sign-on session cannot be read from storage: until GET /me answers, the shell waits.
  const [checkingSso, setCheckingSso] = useState(session === null);
  const [notice, setNotice] = useState<string | null>(null);
  const [menuOpen, setMenuOpen] = useState(false);
  const busy = useBusy();
  const main = useRef<HTMLElement>(null);
  const firstRender = useRef(true);
  // Read by the 401 handler, which is registered once and so cannot see later renders' session.
  const viaRef = useRef(session?.via);
  viaRef.current = session?.via;

  useEffect(() => {
    if (!checkingSso) return;
    ssoSession()
      .then((s) => {
        if (s?.scope === 'org') projectsPromise().catch(() => undefined);
        setSession(s);
      })
      .catch(() => setSession(null))
      .finally(() => setCheckingSso(false));
  }, []);

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setNotice(
        viaRef.current === 'sso'
          ? 'Your sign-in session has ended (signed out elsewhere, expired, or your account was deactivated). Sign in again.'
          : 'The gateway no longer accepts this API key (revoked, or the store was reset). Sign in again.',
      );
      clearSession();
      setSession(null);
    });
  }, []);

  // The root has no page of its own.
  useEffect(() => {
    if (loc.path === '/' || (session !== null && loc.path === '/signin')) navigate('/overview', { replace: true });
  }, [loc.path, session]);

  const route = ROUTES.find((r) => r.pattern.test(loc.path));
  const params = route ? (route.pattern.exec(loc.path)?.slice(1) ?? []).map(decodeURIComponent) : [];

  // Pages are keyed by path: a new request id or config id starts a fresh page, while filter
  // changes (the query string) keep the page and its paging state.
  // After a navigation, focus goes to the new page's heading so keyboard and screen-reader users
  // land on the content, as a full page load would put them at the top.
  useEffect(() => {
    document.title = `${route?.title ?? 'Not found'} · Switchyard`;
    setMenuOpen(false);
    if (firstRender.current) {
      firstRender.current = false;
      return;
    }
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [loc.path]);

  if (!session && checkingSso) return html`<main id="main" class="signin" aria-busy="true"></main>`;
  if (!session) {
    return html`<${SignIn}
      notice=${notice}
      onSignedIn=${(s: Session) => {
        setNotice(null);
        setSession(s);
        if (loc.path === '/' || loc.path === '/signin') navigate('/overview', { replace: true });
      }}
    />`;
  }

  const onSignOut = () => {
    void signOut(session).finally(() => {
      setSession(null);
      setNotice('Signed out.');
    });
  };
  // Before any page renders: pages and shared controls read it to hide what the role cannot do.
  setWritable(mayWrite(session));
  const Page = route?.page ?? NotFoundPage;
  const blocked = route?.org === true && session.scope !== 'org';

  return html`<div class="shell" data-access=${mayWrite(session) ? 'write' : 'read'}>
    <a class="skip" href="#main">Skip to content</a>
    <header class="top">
      <a class="brand" href="/ui/overview">Switchyard</a>
      <button
        type="button"
        class="menu-toggle"
        aria-expanded=${menuOpen}
        aria-controls="nav"
        onClick=${() => setMenuOpen(!menuOpen)}
      >
        Menu
      </button>
      <span class="scope" title=${session.via === 'sso' ? 'Signed in through single sign-on' : 'What this API key may see'}>
        ${session.via === 'sso' ? session.name : session.scope === 'org' ? 'Org-wide key' : 'Project key'}
        <span class="role"> · ${session.role}</span>
      </span>
      <button type="button" class="signout" onClick=${onSignOut}>Sign out</button>
    </header>
    <nav id="nav" class=${menuOpen ? 'nav open' : 'nav'} aria-label="Main">
      <ul>
        ${NAV.filter((n) => !n.org || session.scope === 'org').map(
          (n) => html`<li>
            <a href=${`/ui${n.path}`} aria-current=${route?.nav === n.path ? 'page' : undefined}>${n.label}</a>
          </li>`,
        )}
      </ul>
    </nav>
    <main id="main" ref=${main} aria-busy=${busy ? 'true' : 'false'}>
      ${blocked ? html`<h1 tabindex="-1">${route?.title}</h1><${OrgOnly} />` : html`<${Page} key=${loc.path} session=${session} loc=${loc} params=${params} />`}
    </main>
  </div>`;
}
