// Settings: the branding (every role sees it, an admin changes it), the impact figures and
// the sign-in settings (admin; loaded on demand).
import { Suspense } from 'react';
import { SignInSettings } from '../access/index.js';
import { SupportLinks, useBranding } from '../branding/index.js';
import { useMe } from '../people/index.js';
import { BrandingForm } from './branding-form.js';
import { ImpactSection } from './impact.js';
import { ErrorNote, Time } from '../../shared/parts.js';
import './settings.css';

export function SettingsPage() {
  const branding = useBranding();
  const me = useMe();
  const b = branding.data;
  const role = me.data?.role;
  return (
    <main className="page settings">
      <h1>Settings</h1>
      <h2>Branding</h2>
      <p className="hint">
        The name, logos, theme, accent colour and support links of this install. Severity and result
        colours are not brandable.
      </p>
      <ErrorNote error={branding.error} />
      {b && (
        <>
          <dl className="facts">
            <dt>Last set</dt>
            <dd>
              {b.set_at === null ? (
                'never (the defaults)'
              ) : (
                <>
                  <Time iso={b.set_at} /> by {b.set_by ?? 'unknown'}
                </>
              )}
            </dd>
            <dt>Support</dt>
            <dd>{b.support.length === 0 ? 'no links' : <SupportLinks links={b.support} />}</dd>
          </dl>
          {me.data !== undefined && (
            <BrandingForm saved={b} canEdit={role === 'admin' || role === 'owner'} />
          )}
        </>
      )}
      {me.data !== undefined &&
        (role === 'admin' || role === 'owner' ? (
          <ImpactSection />
        ) : (
          <>
            <h2 id="impact">Impact figures</h2>
            <p className="banner" role="note">
              Only an admin can see and change the impact figures the scorecard counts minutes saved
              with; you are {role}.
            </p>
          </>
        ))}
      {me.data !== undefined &&
        (role === 'admin' || role === 'owner' ? (
          <Suspense fallback={<p className="muted">Loading the sign-in settings…</p>}>
            <SignInSettings myEmail={me.data.email ?? ''} />
          </Suspense>
        ) : (
          <>
            <h2 id="access">Access, mail and single sign-on</h2>
            <p className="banner" role="note">
              Only an admin can see and change who may sign in, the mail settings and single
              sign-on; you are {role}.
            </p>
          </>
        ))}
    </main>
  );
}
