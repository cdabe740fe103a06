// Settings sections for signing in (admin, loaded on demand): who may sign in without being
// added (/v1/settings/access), mail for sign-in codes (/v1/settings/mail, with a test mail)
// and single sign-on (/v1/settings/sso, with Discover and Test). Each form keeps its own draft,
// taken from the saved document once: a refetch never replaces what is being typed. A 400 is
// shown naming its field, which is marked invalid and focused.
import { AccessSection } from './access-form.js';
import { MailSection } from './mail-settings.js';
import { SsoSection } from './sso-settings.js';
import './access-settings.css';

/** The three sections, for the Settings page (admin only; the page says so otherwise). */
export default function SignInSettings({ myEmail }: { myEmail: string }) {
  return (
    <>
      <section aria-labelledby="access" className="settings-section">
        <h2 id="access">Access: who may sign in</h2>
        <AccessSection />
      </section>
      <section aria-labelledby="mail" className="settings-section">
        <h2 id="mail">Mail</h2>
        <p className="hint">Sign-in codes are sent with these settings.</p>
        <MailSection myEmail={myEmail} />
      </section>
      <section aria-labelledby="sso" className="settings-section">
        <h2 id="sso">Single sign-on</h2>
        <SsoSection />
      </section>
    </>
  );
}
