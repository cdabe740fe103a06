// The installs of the licence and the offline exchange (licence.md §3.7): this install, the
// licence's installs, requests going out, the history, and the four steps a person carries
// text through: ask (on the new install: a text to copy and its code, large), look (on an
// install on the licence: the request checked, with its digits to compare), vouch (the code
// typed as read out), and the answer pasted back or polled for. Each button follows the
// caller's `can`.
import { useState } from 'react';
import { ErrorNote, Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { type Allowed, type InstallHistoryEvent, type InstallsView, licenceApi } from './api.js';
import { useInstalls, useLicenceAction } from './queries.js';
import { limitText } from './words.js';
import { AskPanel } from './ask-panel.js';
import { allowed, CanButton } from './licence-parts.js';
import { VouchPanel } from './vouch-panel.js';

function historyText(h: InstallHistoryEvent): string {
  const type = h.type.replace(/^licence\./, '');
  const d: Record<string, unknown> =
    typeof h.data === 'object' && h.data !== null ? (h.data as Record<string, unknown>) : {};
  const bits = ['fingerprint', 'label', 'purpose', 'result', 'state', 'why']
    .map((k) => d[k])
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return `${type}${bits.length > 0 ? `: ${bits.join(', ')}` : ''}`;
}

function RemoveInstall({ fingerprint, can }: { fingerprint: string; can: Allowed }) {
  const [asking, setAsking] = useState(false);
  const action = useLicenceAction();
  const { busy, error } = action;
  if (!asking)
    return (
      <CanButton
        can={can}
        onClick={() => {
          setAsking(true);
        }}
      >
        Remove…
      </CanButton>
    );
  return (
    <span className="confirm" role="group" aria-label={`Remove install ${fingerprint}?`}>
      Frees its seat; it stops being covered once the authority issues the next licence.
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={() => {
          action.run(
            () => licenceApi.removeInstall(fingerprint),
            () => {
              setAsking(false);
            },
          );
        }}
      >
        Remove install
      </button>
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setAsking(false);
        }}
      >
        Cancel
      </button>
      <Refusal error={error} />
    </span>
  );
}

function Installs({ view, owner }: { view: InstallsView; owner: boolean }) {
  const t = view.this;
  const removeCan = allowed(view.can, 'remove');
  // An install holding no licence lists nobody and has no limit to count against (the service
  // answers limit.installs null then, which is not "unlimited").
  const held = view.installs.length > 0 || t.on_licence;
  // Keyed, so that the two trade places without losing what they hold: installing the answer
  // puts this install on the licence, and the confirmation must outlive that reorder.
  const ask = <AskPanel key="ask" view={view} owner={owner} />;
  const vouch = <VouchPanel key="vouch" view={view} />;
  return (
    <section aria-labelledby="installs-heading">
      <h2 id="installs-heading">
        Installs{' '}
        <span className="count">
          {held
            ? `${String(view.limit.used)} of ${limitText(view.limit.installs)}`
            : 'no licence here'}
        </span>
      </h2>
      <dl className="facts" aria-label="this install">
        <dt>This install</dt>
        <dd>
          <code>{t.fingerprint ?? 'no fingerprint'}</code>
          {t.kind && <span className="muted"> ({t.kind})</span>}
        </dd>
        <dt>On the licence</dt>
        <dd>
          {t.on_licence ? (
            <span className="badge ok">✓ yes</span>
          ) : (
            <span className="badge warn">! no: ask to be added below</span>
          )}
          {t.role && ` · ${t.role}`}
          {t.label && ` · ${t.label}`}
        </dd>
        {t.vouched_until && (
          <>
            <dt>Vouched until</dt>
            <dd>
              <Time iso={t.vouched_until} /> (an install grant; a licence listing this install makes
              it permanent)
            </dd>
          </>
        )}
      </dl>
      {held ? (
        <table className="table" aria-label="installs on the licence">
          <thead>
            <tr>
              <th>Fingerprint</th>
              <th>Label</th>
              <th>Role</th>
              <th>Added</th>
              <th>Via</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {view.installs.map((i) => (
              <tr key={i.fingerprint}>
                <td>
                  <code>{i.fingerprint}</code>
                  {i.fingerprint === t.fingerprint && (
                    <span className="muted"> (this install)</span>
                  )}
                </td>
                <td>{i.label ?? '—'}</td>
                <td>{i.role ?? '—'}</td>
                <td>{i.added_at ? <Time iso={i.added_at} /> : '—'}</td>
                <td>
                  {i.via ?? '—'}
                  {i.valid_until && (
                    <>
                      {' '}
                      until <Time iso={i.valid_until} />
                    </>
                  )}
                </td>
                <td>
                  <RemoveInstall fingerprint={i.fingerprint} can={removeCan} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">This install holds no licence, so it lists no installs.</p>
      )}
      {view.outgoing.length > 0 && (
        <>
          <h3>Requests</h3>
          <table className="table" aria-label="requests">
            <thead>
              <tr>
                <th>Request</th>
                <th>Fingerprint</th>
                <th>Purpose</th>
                <th>State</th>
                <th>Expires</th>
              </tr>
            </thead>
            <tbody>
              {view.outgoing.map((r) => (
                <tr key={r.req_id}>
                  <td>
                    <code>{r.req_id}</code>
                    {r.label && <span className="muted"> {r.label}</span>}
                  </td>
                  <td>{r.fingerprint ? <code>{r.fingerprint}</code> : '—'}</td>
                  <td>{r.purpose ?? '—'}</td>
                  <td>{r.status}</td>
                  <td>{r.expires_at ? <Time iso={r.expires_at} /> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {/* The step this install is more likely to need comes first. */}
      {t.on_licence ? (
        <>
          {vouch}
          {ask}
        </>
      ) : (
        <>
          {ask}
          {vouch}
        </>
      )}
      <h3>History</h3>
      {view.history.length === 0 ? (
        <p className="muted">Nothing has happened to the installs yet.</p>
      ) : (
        <ol className="timeline" aria-label="install history">
          {view.history.map((h, i) => (
            <li key={h.seq ?? i}>
              <Time iso={h.ts} /> {historyText(h)}
              {h.actor && <span className="muted"> · {h.actor}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function InstallsSection({ owner }: { owner: boolean }) {
  const installs = useInstalls();
  if (installs.error) return <ErrorNote error={installs.error} />;
  if (installs.data === undefined) return null;
  return <Installs view={installs.data} owner={owner} />;
}
