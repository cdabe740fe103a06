// The licence banner under the top bar on every page while the licence is expiring (days left)
// or in grace (when it ends), linking to the Licence page. Lapsed or missing licences put the
// service in setup mode, whose own banner leads to the same page.
import { useStatus } from '../features/status/index.js';
import { type StatusLicence } from '../features/status/index.js';
import { Link, Time } from '../shared/parts.js';
import { daysLeftText } from '../features/licence/index.js';

function words(l: StatusLicence) {
  const what = l.kind === 'trial' ? 'The trial' : 'The licence';
  if (l.stage === 'in_grace') {
    return (
      <>
        <strong>! {what} has expired</strong>
        {l.expires_at !== null && (
          <>
            {' '}
            (<Time iso={l.expires_at} />)
          </>
        )}
        : everything still works until the grace period ends
        {l.grace_ends_at !== null && (
          <>
            {' '}
            at <Time iso={l.grace_ends_at} />
          </>
        )}
        . After that the service stops operating until a new licence is installed.
      </>
    );
  }
  return (
    <>
      <strong>
        ! {what} expires {daysLeftText(l)}
      </strong>
      {l.expires_at !== null && (
        <>
          {' '}
          (<Time iso={l.expires_at} />)
        </>
      )}
      .
    </>
  );
}

export function LicenceBanner({ path }: { path: string }) {
  const status = useStatus();
  const l = status.data?.licence;
  if (l === null || l === undefined) return null;
  if (l.stage !== 'expiring' && l.stage !== 'in_grace') return null;
  return (
    <div className={`banner licence ${l.stage}`} role="status" aria-label="licence">
      {words(l)} {path !== '/licence' && <Link to="/licence">Renew or install a licence</Link>}
    </div>
  );
}
