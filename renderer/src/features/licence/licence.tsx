// The Licence page (docs/licence.md): the licence in force (tier, customer, limits, expiry,
// grace and stage, verified, check mode and last confirmation, the mounted file), installing
// one by pasting or choosing a file (a refusal names its check; one that gives something up
// lists the losses and installs only when acknowledged), removing it (owner, confirmed), the
// installs and the offline exchange (licence-installs.tsx), and the usage statement.
import { useMe } from '../people/index.js';
import { useStatus } from '../status/index.js';
import { useId, useRef, useState } from 'react';
import { ApiError, roleAtLeast } from '../../shared/api.js';
import { type StatusLicence } from '../status/index.js';
import { ErrorNote, Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { InstallsSection } from './licence-installs.js';
import { Field, WouldLose } from './licence-parts.js';
import { licenceApi, type LicenceAnswer } from './api.js';
import { useLicenceAction } from './queries.js';
import { daysLeftText, limitText, STAGE_WORDS } from './words.js';
import './licence.css';
import { saveBlob } from '../../shared/download.js';

/** What POST /v1/licence takes at most (server/licence/licence.schemas.ts). */
const MAX_TEXT = 512 * 1024;

const CHECK_WORDS: Record<string, string> = {
  auto: 'auto: confirmed with the licence authority every hour; never stops the service',
  strict: 'strict: must be confirmed within 72 hours, or the service stops operating',
  offline: 'offline: never asks the licence authority',
};

function Summary({ l, fingerprint }: { l: StatusLicence; fingerprint: string | null }) {
  const stage = STAGE_WORDS[l.stage];
  return (
    <dl className="facts" aria-label="licence in force">
      <dt>Tier</dt>
      <dd>
        {l.tier}
        {l.kind === 'trial' && ' (offline trial)'}
      </dd>
      <dt>Customer</dt>
      <dd>{l.customer ?? '—'}</dd>
      <dt>Services</dt>
      <dd>
        {typeof l.services_used === 'number' && `${String(l.services_used)} counted of `}
        {limitText(l.services)}
        {l.services === null && ' (no limit)'}
      </dd>
      <dt>Installs</dt>
      <dd>
        {l.installs} of {limitText(l.install_limit)}
        {l.install_limit === null && ' (site licence)'}
      </dd>
      <dt>Expires</dt>
      <dd>
        {l.expires_at === null ? (
          'never (perpetual)'
        ) : (
          <>
            <Time iso={l.expires_at} /> ({daysLeftText(l)})
          </>
        )}
      </dd>
      <dt>Grace ends</dt>
      <dd>{l.grace_ends_at === null ? '—' : <Time iso={l.grace_ends_at} />}</dd>
      <dt>Stage</dt>
      <dd>
        <span className={`badge ${stage.tone}`}>
          {stage.glyph} {stage.words}
        </span>
        {l.stage === 'in_grace' && ' — everything works until the grace period ends'}
      </dd>
      <dt>Valid</dt>
      <dd>
        {l.valid ? (
          <span className="badge ok">✓ yes</span>
        ) : (
          <>
            <span className="badge fail">✗ no</span> {l.why ?? ''}
          </>
        )}
      </dd>
      <dt>Verified</dt>
      <dd>
        {l.verified
          ? '✓ signed by the licence authority'
          : '! not verified: an offline trial nobody vouched for'}
      </dd>
      <dt>Check mode</dt>
      <dd>{CHECK_WORDS[l.check] ?? l.check}</dd>
      {l.confirmed_at !== undefined && (
        <>
          <dt>Last confirmation</dt>
          <dd>{l.confirmed_at === null ? 'never' : <Time iso={l.confirmed_at} />}</dd>
        </>
      )}
      <dt>Managed as</dt>
      <dd>
        {l.file_mounted === null ? (
          'installed here (through the API or this page)'
        ) : (
          <>
            the file <code>{l.file_mounted}</code> (SVC_LICENCE)
          </>
        )}
      </dd>
      <dt>This install</dt>
      <dd>
        <code>{fingerprint ?? 'no fingerprint: the host gives no usable id'}</code>
      </dd>
    </dl>
  );
}

/** A refusal of POST /v1/licence: the check that failed, or what the new licence gives up. */
function InstallRefusal({ error, inForce }: { error: unknown; inForce: boolean }) {
  if (!(error instanceof ApiError) || error.code !== 'licence_refused')
    return <Refusal error={error} />;
  const check = error.body['check'];
  return (
    <div className="error" role="alert">
      <p>
        ✗ Not installed: the check <code>{typeof check === 'string' ? check : 'unknown'}</code>{' '}
        failed. {inForce ? 'The licence in force is unchanged.' : 'Nothing was installed.'}
      </p>
      <p className="muted">{error.message}</p>
    </div>
  );
}

function InstallForm({
  owner,
  mounted,
  inForce,
}: {
  owner: boolean;
  mounted: string | null;
  inForce: boolean;
}) {
  const [text, setText] = useState('');
  const [from, setFrom] = useState<string | null>(null);
  // What the form itself says is wrong (nothing pasted, too large), before anything is sent.
  const [note, setNote] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const action = useLicenceAction();
  const busy = action.busy;
  const error = note ?? action.error;
  const setError = (e: unknown) => {
    setNote(e);
    if (e === null) action.reset();
  };
  const fileInput = useRef<HTMLInputElement>(null);
  const hint = useId();
  const disabledWhy = mounted
    ? `The licence is managed as the file ${mounted} (SVC_LICENCE): replace that file instead; the service reads it again within a minute and on SIGHUP.`
    : !owner
      ? 'Installing a licence needs the owner role.'
      : null;

  function send(acknowledge: boolean) {
    setError(null);
    setDone(null);
    action.run(
      () => licenceApi.install(text, acknowledge),
      (answer: LicenceAnswer) => {
        // The server declares the licence a free object: its fields are read one by one.
        const l = answer.licence as Record<string, unknown> | null;
        const tier = typeof l?.['tier'] === 'string' ? l['tier'] : 'licence';
        const customer = typeof l?.['customer'] === 'string' ? ` for ${l['customer']}` : '';
        setDone(
          answer.changed
            ? `Installed: ${tier}${customer}.`
            : 'This licence is already in force: nothing changed.',
        );
        setText('');
        setFrom(null);
        if (fileInput.current) fileInput.current.value = '';
      },
    );
  }

  return (
    <form
      className="settings-form"
      aria-label="Install a licence"
      onSubmit={(e) => {
        e.preventDefault();
        if (text.trim() === '') {
          setError(new Error('Paste the licence text or choose the licence file first.'));
          return;
        }
        if (text.length > MAX_TEXT) {
          setError(new Error('That is larger than any licence (512 KiB at most).'));
          return;
        }
        send(false);
      }}
    >
      <p className="hint" id={hint}>
        {disabledWhy ??
          'Paste the licence text (licence.json, or an install grant from another install), or choose the file. It is verified before anything changes; a refused licence leaves the one in force as it was.'}
      </p>
      <Field label="Licence text">
        {(id) => (
          <textarea
            id={id}
            name="licence"
            rows={6}
            spellCheck={false}
            value={text}
            disabled={disabledWhy !== null}
            aria-describedby={hint}
            onChange={(e) => {
              setText(e.target.value);
              setFrom(null);
            }}
          />
        )}
      </Field>
      <Field label="Or choose the licence file">
        {(id) => (
          <input
            id={id}
            ref={fileInput}
            type="file"
            accept=".json,.txt,.lic,application/json,text/plain"
            disabled={disabledWhy !== null}
            onChange={(e) => {
              const file = e.target.files?.[0];
              if (file === undefined) return;
              setError(null);
              setDone(null);
              if (file.size > MAX_TEXT) {
                setError(new Error(`${file.name} is larger than any licence (512 KiB at most).`));
                return;
              }
              void file.text().then((t) => {
                setText(t);
                setFrom(file.name);
              });
            }}
          />
        )}
      </Field>
      {from !== null && <p className="muted">Read from {from}.</p>}
      <p className="actions">
        <button type="submit" className="primary" disabled={disabledWhy !== null || busy}>
          Install licence
        </button>
      </p>
      <WouldLose
        error={error}
        busy={busy}
        onAnyway={() => {
          send(true);
        }}
        onKeep={() => {
          setError(null);
        }}
        otherwise={<InstallRefusal error={error} inForce={inForce} />}
      />
      {done !== null && (
        <p className="ok" role="status">
          ✓ {done}
        </p>
      )}
    </form>
  );
}

function RemoveControl({ l, owner }: { l: StatusLicence; owner: boolean }) {
  const [asking, setAsking] = useState(false);
  const action = useLicenceAction();
  const { busy, error } = action;
  const why =
    l.file_mounted !== null
      ? `The licence is managed as the file ${l.file_mounted}: remove that file instead.`
      : !owner
        ? 'Removing the licence needs the owner role.'
        : null;
  if (!asking)
    return (
      <div>
        <button
          type="button"
          className="danger"
          disabled={why !== null}
          title={why ?? 'Remove the licence: the service goes back to setup mode'}
          onClick={() => {
            setAsking(true);
          }}
        >
          Remove licence…
        </button>
        {why !== null && <p className="hint">{why}</p>}
      </div>
    );
  return (
    <div role="dialog" aria-label="Confirm removing the licence" className="banner managed">
      <p>
        <strong>Remove the licence?</strong> The service goes back to setup mode at once: alerts are
        answered 503 until a licence is installed (Alertmanager retries them, so they are delayed,
        not lost), and nothing is investigated or acted on.
        {l.kind === 'trial' && ' The offline trial is not offered again on this install.'}
      </p>
      <p className="confirm">
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={() => {
            action.run(licenceApi.remove, () => {
              setAsking(false);
            });
          }}
        >
          Remove the licence
        </button>
        <button
          type="button"
          className="quiet"
          onClick={() => {
            setAsking(false);
            action.reset();
          }}
        >
          Cancel
        </button>
      </p>
      <Refusal error={error} />
    </div>
  );
}

function UsageStatement({ admin }: { admin: boolean }) {
  const action = useLicenceAction();
  const { busy, error } = action;
  const [saved, setSaved] = useState<string | null>(null);
  return (
    <section aria-labelledby="usage-heading">
      <h2 id="usage-heading">Usage statement</h2>
      <p className="hint">
        A signed statement of what this install uses (services counted, installs, checks, clock),
        for the vendor. Each download is a new statement, recorded in the audit log.
      </p>
      <button
        type="button"
        disabled={!admin || busy}
        title={admin ? undefined : 'Usage statements need the admin role'}
        onClick={() => {
          setSaved(null);
          action.run(licenceApi.usage, ({ name, blob }) => {
            saveBlob(name, blob);
            setSaved(name);
          });
        }}
      >
        Download usage statement
      </button>
      {!admin && <p className="hint">Usage statements need the admin role.</p>}
      {saved !== null && (
        <p className="ok" role="status">
          ✓ Saved {saved}.
        </p>
      )}
      <Refusal error={error} />
    </section>
  );
}

export function LicencePage() {
  const status = useStatus();
  const me = useMe();
  const owner = roleAtLeast(me.data?.role, 'owner');
  const admin = roleAtLeast(me.data?.role, 'admin');
  const s = status.data;
  const l = s?.licence ?? null;
  return (
    <main className="page licence-page">
      <h1>Licence</h1>
      <ErrorNote error={status.error} />
      {s !== undefined && l === null && (
        <p>
          <span className="badge fail">✗ No licence</span> The service is in setup mode until a
          licence is installed: install one below.
        </p>
      )}
      {l !== null && <Summary l={l} fingerprint={s?.fingerprint ?? null} />}
      <section aria-labelledby="install-heading">
        <h2 id="install-heading">{l === null ? 'Install a licence' : 'Install or renew'}</h2>
        <InstallForm owner={owner} mounted={l?.file_mounted ?? null} inForce={l !== null} />
      </section>
      {l !== null && (
        <section aria-labelledby="remove-heading">
          <h2 id="remove-heading">Remove</h2>
          <RemoveControl l={l} owner={owner} />
        </section>
      )}
      <InstallsSection owner={owner} />
      {/* A statement covers a licence or the trial in force; with none there is nothing to state. */}
      {l !== null && <UsageStatement admin={admin} />}
    </main>
  );
}
