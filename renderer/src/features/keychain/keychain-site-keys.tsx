// Site keys, on the home: how a new site joins (the two variables), making keys (each shown
// once, in a marked box with Copy, gone when dismissed or when the page is left: the answer
// lives only in the mutation, which is dropped as soon as nothing shows it), and the keys by
// id and status, an open one revocable. On a member: where keys are made instead.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useLayoutEffect, useState } from 'react';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useKeychainAction } from './keychain-action.js';
import { adminWhy, Field, SiteKeyBadge, SubmitRow, TextField } from './keychain-bits.js';
import { CopyButton } from '../../shared/clipboard.js';
import {
  keychainApi,
  type KeychainView,
  type SiteKeyRow,
  type SiteKeysCreated,
  type SiteKeysInput,
} from './api.js';
import { homeLabel } from './keychain-words.js';
import { keychainKeys } from './queries.js';

const origin = (): string => window.location.origin;

/** The two lines a new site starts with. */
const joinLines = (key: string): string =>
  `SVC_KEYCHAIN_JOIN=${origin()}\nSVC_KEYCHAIN_SITE_KEY=${key}`;

function JoinSteps() {
  const join = `SVC_KEYCHAIN_JOIN=${origin()}`;
  return (
    <div className="kc-join" aria-label="how a new site joins">
      <h3>Setting up a new site</h3>
      <ol>
        <li>Make a site key below, one per new site.</li>
        <li>
          On the new site, before its first start, set:
          <pre className="kc-env">
            <code>{join}</code>
          </pre>
          <CopyButton text={join} what="the SVC_KEYCHAIN_JOIN line" />
          <p className="hint">
            This is the address this console is open at. If the new site reaches this install at
            another address (a DNS name, a proxy), use that one.
          </p>
        </li>
        <li>
          and <code>SVC_KEYCHAIN_SITE_KEY</code> to the site key, or{' '}
          <code>SVC_KEYCHAIN_SITE_KEY_FILE</code> to a file that holds it (a mounted secret such as{' '}
          <code>/run/secrets/site-key</code>), which keeps the key out of the process environment.
        </li>
        <li>
          Start it. It checks that this home is the one the key names, joins, and shows up under
          Members with health ok. A key works once, until it expires.
        </li>
      </ol>
    </div>
  );
}

/** The keys just made: shown once, never again. */
function ShownOnce({ made, onDismiss }: { made: SiteKeysCreated; onDismiss: () => void }) {
  const warn = useId();
  return (
    <section className="kc-once" aria-label="New site keys, shown once" aria-describedby={warn}>
      <p id={warn} className="kc-once-warning">
        <strong>⚠ Shown once.</strong> Copy each key now: it will not be shown again, here or
        anywhere. Each works for one new site, once, until it expires.
      </p>
      {made.keys.map((k) => (
        <div key={k.id} className="kc-once-key" aria-label={`site key for ${k.label}`}>
          <p>
            <strong>{k.label}</strong> <span className="muted">id {k.id} · expires </span>
            <Time iso={k.expires_at} />
          </p>
          <p className="kc-key">
            <code>{k.key}</code>
          </p>
          <p className="actions">
            <CopyButton text={k.key} what={`the site key for ${k.label}`} label="Copy key" />
            <CopyButton
              text={joinLines(k.key)}
              what={`both variables for ${k.label}`}
              label="Copy both variables"
            />
          </p>
        </div>
      ))}
      <p className="actions">
        <button type="button" onClick={onDismiss}>
          I have copied them: hide the keys
        </button>
      </p>
    </section>
  );
}

function MakeKeys({ why }: { why: string | null }) {
  const qc = useQueryClient();
  const [labels, setLabels] = useState('');
  const [purpose, setPurpose] = useState('');
  const [hours, setHours] = useState('24');
  const [licence, setLicence] = useState(false);
  const [note, setNote] = useState<string | null>(null);
  // The keys live in this mutation's answer only; gcTime 0 drops it once this form is gone.
  const make = useMutation({
    mutationFn: (body: SiteKeysInput) => keychainApi.createSiteKeys(body),
    gcTime: 0,
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keychainKeys.all });
    },
  });
  // Left for another page, the form may stay mounted but hidden while that page loads
  // (Suspense): hiding runs layout-effect cleanups, so the keys are dropped then too.
  const { reset } = make;
  useLayoutEffect(() => reset, [reset]);
  const list = labels
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return (
    <>
      <form
        className="settings-form"
        aria-label="Make site keys"
        onSubmit={(e) => {
          e.preventDefault();
          setNote(null);
          const h = Number(hours);
          if (list.length === 0) return setNote('Type a label for each new site first.');
          if (list.length > 20) return setNote('At most 20 keys at a time.');
          if (list.some((l) => l.length > 64)) return setNote('A label has at most 64 characters.');
          if (!Number.isInteger(h) || h < 1 || h > 168)
            return setNote('A key is valid for 1 to 168 hours (a week).');
          make.mutate(
            {
              labels: list,
              hours: h,
              ...(purpose.trim() !== '' && { purpose: purpose.trim() }),
              ...(licence && { licence: true }),
            },
            {
              onSuccess: () => {
                setLabels('');
                setPurpose('');
              },
            },
          );
        }}
      >
        <Field label="Labels, one per line (one key for each new site)">
          {(id) => (
            <textarea
              id={id}
              rows={3}
              value={labels}
              disabled={why !== null}
              onChange={(e) => {
                setLabels(e.target.value);
              }}
            />
          )}
        </Field>
        <TextField
          label="Purpose (optional)"
          value={purpose}
          maxLength={64}
          disabled={why !== null}
          onChange={setPurpose}
        />
        <TextField
          label="Valid for (hours, 1 to 168)"
          type="number"
          min={1}
          max={168}
          value={hours}
          className="kc-hours"
          disabled={why !== null}
          onChange={setHours}
        />
        <label className="inline">
          <input
            type="checkbox"
            checked={licence}
            disabled={why !== null}
            onChange={(e) => {
              setLicence(e.target.checked);
            }}
          />{' '}
          The new sites take a seat on the licence
        </label>
        <SubmitRow why={why} blocked={make.isPending}>
          Make site keys
        </SubmitRow>
        {note !== null && (
          <p className="error" role="alert">
            ⚠ {note}
          </p>
        )}
        <Refusal error={make.error} />
      </form>
      {make.data !== undefined && (
        <ShownOnce
          made={make.data}
          onDismiss={() => {
            make.reset();
          }}
        />
      )}
    </>
  );
}

function RevokeButton({ k, why }: { k: SiteKeyRow; why: string | null }) {
  const action = useKeychainAction();
  return (
    <>
      <button
        type="button"
        disabled={why !== null || action.busy}
        title={why ?? `Revoke ${k.id}: no site can join with it any more`}
        onClick={() => {
          action.run(() => keychainApi.revoke(k.id));
        }}
      >
        Revoke
      </button>
      <Refusal error={action.error} />
    </>
  );
}

function KeysTable({ view, why }: { view: KeychainView; why: string | null }) {
  if (view.site_keys.length === 0)
    return <p className="muted">No site keys have been made on this home yet.</p>;
  return (
    <table className="table kc-table" aria-label="site keys">
      <thead>
        <tr>
          <th>Key id</th>
          <th>Label</th>
          <th>Status</th>
          <th>Made</th>
          <th>Expires</th>
          <th>Used by</th>
          <th>Wrong tries</th>
          <th>Revoke</th>
        </tr>
      </thead>
      <tbody>
        {view.site_keys.map((k) => {
          const user = view.members.find((m) => m.fingerprint === k.used_by);
          return (
            <tr key={k.id}>
              <td data-label="Key id">
                <code>{k.id}</code>
              </td>
              <td data-label="Label">
                {k.label}
                {k.purpose !== '' && <span className="muted"> · {k.purpose}</span>}
                {k.licence && <span className="muted"> · takes a licence seat</span>}
              </td>
              <td data-label="Status">
                <SiteKeyBadge status={k.status} />
              </td>
              <td data-label="Made">
                <Time iso={k.created_at} />
              </td>
              <td data-label="Expires">
                <Time iso={k.expires_at} />
              </td>
              <td data-label="Used by">
                {k.used_by === null ? (
                  '—'
                ) : (
                  <code title={k.used_by}>{user?.label ?? `${k.used_by.slice(0, 12)}…`}</code>
                )}
              </td>
              <td data-label="Wrong tries" className="num">
                {k.failed_attempts}
              </td>
              <td data-label="Revoke">
                {k.status === 'open' ? <RevokeButton k={k} why={why} /> : '—'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export function SiteKeysSection({
  view,
  admin,
  role,
}: {
  view: KeychainView;
  admin: boolean;
  role: string | undefined;
}) {
  if (view.role === 'none') return null;
  if (view.role === 'member')
    return (
      <section aria-labelledby="kc-keys-heading">
        <h2 id="kc-keys-heading">Site keys and new sites</h2>
        <p>
          Site keys are made on the home, <strong>{homeLabel(view)}</strong>: a new site joins
          through the home, with <code>SVC_KEYCHAIN_JOIN</code> set to the home&apos;s address and{' '}
          <code>SVC_KEYCHAIN_SITE_KEY</code> (or <code>SVC_KEYCHAIN_SITE_KEY_FILE</code>) to a key
          made there.
        </p>
      </section>
    );
  const why = adminWhy(admin, role, 'Making and revoking site keys');
  return (
    <section aria-labelledby="kc-keys-heading">
      <h2 id="kc-keys-heading">Site keys and new sites</h2>
      <JoinSteps />
      <MakeKeys why={why} />
      <h3>Site keys made here</h3>
      <p className="hint">Listed by id and status; the secret itself is never shown again.</p>
      <KeysTable view={view} why={why} />
    </section>
  );
}
