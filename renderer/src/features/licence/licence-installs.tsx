// The installs of the licence and the offline exchange (licence.md §3.7): this install, the
// licence's installs, requests going out, the history, and the four steps a person carries
// text through: ask (on the new install: a text to copy and its code, large), look (on an
// install on the licence: the request checked, with its digits to compare), vouch (the code
// typed as read out), and the answer pasted back or polled for. Each button follows the
// caller's `can`.
import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../../shared/api.js';
import { ErrorNote, Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useLicenceAction } from './licence-action.js';
import {
  licenceApi,
  licenceKeys,
  limitText,
  PURPOSES,
  type Allowed,
  type AskAnswer,
  type InstallAction,
  type InstallHistoryEntry,
  type InstallsView,
  type LookAnswer,
  type PollAnswer,
  type Purpose,
  type VouchAnswer,
} from './licence-queries.js';

/**
 * A label and its control joined by id, not by nesting: a control inside its label would have
 * its value read as part of its name.
 */
export function Field({ label, children }: { label: string; children: (id: string) => ReactNode }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
    </div>
  );
}

function lossesOf(error: unknown): string[] | null {
  if (!(error instanceof ApiError) || error.status !== 409 || error.code !== 'would_lose')
    return null;
  const losses = error.body['losses'];
  return Array.isArray(losses) ? losses.map(String) : [];
}

/**
 * A 409 would_lose from POST /v1/licence: what the new licence gives up, with Install anyway
 * (acknowledge) and Keep; any other error is shown as `otherwise`.
 */
export function WouldLose({
  error,
  busy,
  onAnyway,
  onKeep,
  otherwise,
}: {
  error: unknown;
  busy: boolean;
  onAnyway: () => void;
  onKeep: () => void;
  otherwise: ReactNode;
}) {
  const losses = lossesOf(error);
  if (losses === null) return <>{otherwise}</>;
  return (
    <div className="banner managed" role="alert" aria-label="would lose">
      <p>
        <strong>! This licence gives up what the one in force has:</strong>
      </p>
      <ul>
        {losses.map((x) => (
          <li key={x}>{x}</li>
        ))}
      </ul>
      <p className="confirm">
        <button type="button" className="danger" disabled={busy} onClick={onAnyway}>
          Install anyway
        </button>
        <button type="button" className="quiet" onClick={onKeep}>
          Keep the licence in force
        </button>
      </p>
    </div>
  );
}

const allowed = (can: InstallsView['can'], action: InstallAction): Allowed =>
  can[action] ?? { allowed: false, why: 'this service does not say who may do this' };

/** A button that follows `can`: disabled with its why shown beside it. */
function CanButton({
  can,
  children,
  busy,
  onClick,
  type = 'button',
  className,
}: {
  can: Allowed;
  children: string;
  busy?: boolean;
  onClick?: () => void;
  type?: 'button' | 'submit';
  className?: string;
}) {
  return (
    <span className="can-button">
      <button
        type={type}
        className={className}
        disabled={!can.allowed || busy === true}
        title={can.allowed ? undefined : (can.why ?? undefined)}
        onClick={onClick}
      >
        {children}
      </button>
      {!can.allowed && can.why && <span className="hint"> {can.why}</span>}
    </span>
  );
}

/** A text to carry by hand: read-only, selectable, with a copy button. */
function CarryText({ label, text }: { label: string; text: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <div className="carry">
      <Field label={label}>
        {(id) => (
          <textarea
            id={id}
            ref={area}
            readOnly
            rows={Math.min(16, text.split('\n').length + 1)}
            spellCheck={false}
            value={text}
            className="mono"
            onFocus={(e) => {
              e.currentTarget.select();
            }}
          />
        )}
      </Field>
      <button
        type="button"
        onClick={() => {
          const fallback = () => {
            // Outside a secure context the Clipboard API is absent: select and copy.
            area.current?.select();
            setCopied(
              document.execCommand('copy')
                ? 'Copied.'
                : 'Selected: copy it with Ctrl+C (⌘C on a Mac).',
            );
          };
          if (typeof navigator.clipboard === 'undefined') {
            fallback();
            return;
          }
          navigator.clipboard.writeText(text).then(() => {
            setCopied('Copied.');
          }, fallback);
        }}
      >
        Copy text
      </button>
      {copied !== null && (
        <span className="ok" role="status">
          {' '}
          {copied}
        </span>
      )}
    </div>
  );
}

const lastGroup = (fingerprint: string): string => fingerprint.split('-').pop() ?? fingerprint;

/** Step 1, on the new install: ask, then carry the text and read out the code. */
function AskPanel({ view, owner }: { view: InstallsView; owner: boolean }) {
  const [purpose, setPurpose] = useState<Purpose>('add');
  const [label, setLabel] = useState('');
  const [asked, setAsked] = useState<AskAnswer | null>(null);
  const [answer, setAnswer] = useState('');
  const [polled, setPolled] = useState<PollAnswer | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const action = useLicenceAction();
  const { busy, error } = action;
  const can = view.can;
  const run = <T,>(work: () => Promise<T>, then: (t: T) => void) => {
    setDone(null);
    action.run(work, then);
  };
  const pasteWhy = owner
    ? null
    : 'Installing the answer needs the owner role (it installs a licence or a grant).';
  return (
    <section className="exchange" aria-labelledby="ask-heading">
      <h3 id="ask-heading">Add this install to a licence</h3>
      <p className="hint">
        On an install with no licence covering it. The request text goes to an install already on
        the licence (by hand: no network is needed between them); its admin checks it, compares the
        code, and gives back a text to paste here.
      </p>
      <form
        className="settings-form"
        aria-label="Ask to be added"
        onSubmit={(e) => {
          e.preventDefault();
          run(
            () => licenceApi.ask(purpose, label),
            (a) => {
              setAsked(a);
            },
          );
        }}
      >
        <Field label="Purpose">
          {(id) => (
            <select
              id={id}
              value={purpose}
              onChange={(e) => {
                setPurpose(e.target.value as Purpose);
              }}
            >
              {PURPOSES.map((p) => (
                <option key={p.value} value={p.value}>
                  {p.words}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Label (optional, e.g. dr-site-b)">
          {(id) => (
            <input
              id={id}
              value={label}
              maxLength={64}
              onChange={(e) => {
                setLabel(e.target.value);
              }}
            />
          )}
        </Field>
        <p className="actions">
          <CanButton can={allowed(can, 'ask')} type="submit" busy={busy}>
            Ask to be added
          </CanButton>
        </p>
      </form>
      {asked !== null && (
        <div className="asked" aria-label="request to carry">
          <p>
            Read this code to the admin of the install on the licence. It must match the code their
            screen shows for the text you carry:
          </p>
          <p className="code-large" aria-label="request code">
            {asked.code}
          </p>
          <CarryText label="Request text to carry to an install on the licence" text={asked.text} />
        </div>
      )}
      <form
        className="settings-form"
        aria-label="Paste the answer"
        onSubmit={(e) => {
          e.preventDefault();
          if (answer.trim() === '') {
            run(
              () =>
                Promise.reject(new Error('Paste the grant or licence text you were given first.')),
              () => undefined,
            );
            return;
          }
          run(
            () => licenceApi.install(answer),
            (a) => {
              setAnswer('');
              setDone(a.changed ? 'Installed: this install is now covered.' : 'Already in force.');
            },
          );
        }}
      >
        <Field label="The answer you were given (an install grant or a licence)">
          {(id) => (
            <textarea
              id={id}
              rows={4}
              spellCheck={false}
              value={answer}
              disabled={pasteWhy !== null}
              onChange={(e) => {
                setAnswer(e.target.value);
              }}
            />
          )}
        </Field>
        <p className="actions">
          <CanButton can={{ allowed: pasteWhy === null, why: pasteWhy }} type="submit" busy={busy}>
            Install the answer
          </CanButton>{' '}
          <CanButton
            can={allowed(can, 'poll')}
            busy={busy}
            onClick={() => {
              run(licenceApi.poll, (p) => {
                setPolled(p);
              });
            }}
          >
            Where does my request stand?
          </CanButton>
        </p>
      </form>
      {polled !== null && <PollResult p={polled} />}
      {done !== null && (
        <p className="ok" role="status">
          ✓ {done}
        </p>
      )}
      <WouldLose
        error={error}
        busy={busy}
        onAnyway={() => {
          run(
            () => licenceApi.install(answer, true),
            () => {
              setAnswer('');
              setDone('Installed: this install is now covered.');
            },
          );
        }}
        onKeep={action.reset}
        otherwise={<Refusal error={error} />}
      />
    </section>
  );
}

function PollResult({ p }: { p: PollAnswer }) {
  const rows = p.requests ?? [{ req_id: '', status: p.state ?? 'unknown', why: p.why ?? null }];
  return (
    <>
      <ul className="poll" aria-label="request state">
        {rows.map((r, i) => (
          <li key={r.req_id === '' ? i : r.req_id}>
            <strong>{r.status ?? r.state ?? 'unknown'}</strong>
            {r.req_id !== '' && <span className="muted"> {r.req_id}</span>}
            {r.why && <> — {r.why}</>}
          </li>
        ))}
      </ul>
      {p.requests !== undefined && p.why && <p className="hint">{p.why}</p>}
    </>
  );
}

function LookResult({ look }: { look: LookAnswer }) {
  const r = look.request;
  return (
    <div className="look" aria-label="request checked">
      {r !== null && (
        <dl className="facts">
          <dt>Fingerprint</dt>
          <dd>
            <code>{r.fingerprint}</code> (last group <strong>{lastGroup(r.fingerprint)}</strong>)
          </dd>
          <dt>Label</dt>
          <dd>{r.label ?? '—'}</dd>
          <dt>Purpose</dt>
          <dd>{r.purpose ?? '—'}</dd>
          <dt>Version</dt>
          <dd>{r.version ?? '—'}</dd>
          <dt>Asked</dt>
          <dd>{r.created_at ? <Time iso={r.created_at} /> : '—'}</dd>
          <dt>Expires</dt>
          <dd>{r.expires_at ? <Time iso={r.expires_at} /> : '—'}</dd>
        </dl>
      )}
      {look.digits !== null && (
        <>
          <p>
            Ask the person at the new install to read out their code. It must be exactly this, and
            their fingerprint must end in{' '}
            <strong>{r === null ? '—' : lastGroup(r.fingerprint)}</strong>:
          </p>
          <p className="code-large" aria-label="digits to compare">
            {look.digits}
          </p>
        </>
      )}
      <ul className="checks" aria-label="checks">
        {look.checks.map((c) => (
          <li key={c.name} className={c.ok ? 'ok' : 'error'}>
            {c.ok ? '✓' : '✗'} {c.name.replace(/_/g, ' ')}
            {c.detail && <span className="muted"> — {c.detail}</span>}
          </li>
        ))}
      </ul>
      <p>
        Would be: <strong>{look.would}</strong>
        {look.why && <> — {look.why}</>}
      </p>
    </div>
  );
}

function VouchResult({ v }: { v: VouchAnswer }) {
  if (v.result === 'granted')
    return (
      <div className="vouched" role="status" aria-label="vouch result">
        <p className="ok">✓ Granted{v.why ? ` — ${v.why}` : ''}.</p>
        {v.text && (
          <CarryText label="Answer to carry back and paste on the new install" text={v.text} />
        )}
      </div>
    );
  if (v.result === 'manual')
    return (
      <div className="vouched" role="status" aria-label="vouch result">
        <p>
          <strong>! Manual:</strong> {v.why ?? 'the licence authority must issue a new licence'}.
          Upload this bundle to the vendor; install the licence it returns here and on the new
          install.
        </p>
        {v.text && <CarryText label="Forward bundle for the vendor" text={v.text} />}
      </div>
    );
  return (
    <div className="vouched" role="status" aria-label="vouch result">
      <p>
        <strong>… {v.result}:</strong>{' '}
        {v.why ?? 'the licence authority answers on this install’s next check'}. The new install can
        ask where its request stands.
      </p>
    </div>
  );
}

/** Steps 2 and 3, on an install on the licence: look at the pasted request, then vouch. */
function VouchPanel({ view }: { view: InstallsView }) {
  const [text, setText] = useState('');
  const [look, setLook] = useState<LookAnswer | null>(null);
  const [code, setCode] = useState('');
  const [vouched, setVouched] = useState<VouchAnswer | null>(null);
  const action = useLicenceAction();
  const { busy, error } = action;
  const codeHint = useId();
  const mismatch = error instanceof ApiError && error.code === 'code_mismatch';
  return (
    <section className="exchange" aria-labelledby="vouch-heading">
      <h3 id="vouch-heading">Vouch for a new install</h3>
      <p className="hint">
        On an install already on the licence. Paste the request text the new install gave, look at
        what it asks, compare the code, then vouch.
      </p>
      <form
        className="settings-form"
        aria-label="Look at a request"
        onSubmit={(e) => {
          e.preventDefault();
          setVouched(null);
          setLook(null);
          action.run(
            () => licenceApi.look(text),
            (l) => {
              setLook(l);
            },
          );
        }}
      >
        <Field label="Request text from the new install">
          {(id) => (
            <textarea
              id={id}
              rows={6}
              spellCheck={false}
              value={text}
              className="mono"
              onChange={(e) => {
                setText(e.target.value);
                setLook(null);
                setVouched(null);
              }}
            />
          )}
        </Field>
        <p className="actions">
          <CanButton can={allowed(view.can, 'look')} type="submit" busy={busy}>
            Look at the request
          </CanButton>
        </p>
      </form>
      {look !== null && <LookResult look={look} />}
      {look?.would === 'refused' && (
        <p className="error" role="alert">
          ✗ This request cannot be vouched for{look.why ? `: ${look.why}` : ''}. The new install
          must ask again.
        </p>
      )}
      {look !== null && look.would !== 'refused' && vouched === null && (
        <form
          className="settings-form"
          aria-label="Vouch"
          onSubmit={(e) => {
            e.preventDefault();
            action.run(
              () => licenceApi.vouch(text, code),
              (v) => {
                setVouched(v);
                setCode('');
              },
            );
          }}
        >
          <Field label="Code read out from the new install">
            {(id) => (
              <input
                id={id}
                value={code}
                inputMode="numeric"
                autoComplete="off"
                maxLength={7}
                aria-describedby={codeHint}
                aria-invalid={mismatch || undefined}
                className="code-input"
                onChange={(e) => {
                  setCode(e.target.value);
                }}
              />
            )}
          </Field>
          <p className="hint" id={codeHint}>
            Type the code as the person reads it, not from this screen: a wrong code five times
            burns the request.
          </p>
          <p className="actions">
            <CanButton
              can={
                code.replace(/\s/g, '').length === 6
                  ? allowed(view.can, 'vouch')
                  : { allowed: false, why: 'type the 6-digit code first' }
              }
              type="submit"
              busy={busy}
              className="primary"
            >
              Vouch
            </CanButton>
          </p>
        </form>
      )}
      {vouched !== null && <VouchResult v={vouched} />}
      <Refusal error={error} />
    </section>
  );
}

function historyText(h: InstallHistoryEntry): string {
  const type = (h.type ?? h.event ?? '').replace(/^licence\./, '');
  const d = h.data ?? {};
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
                  <td>
                    {r.status ?? r.state ?? '—'}
                    {r.why && <span className="muted"> — {r.why}</span>}
                  </td>
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
              <Time iso={h.ts ?? h.at ?? null} /> {historyText(h)}
              {h.actor && <span className="muted"> · {h.actor}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

export function InstallsSection({ owner }: { owner: boolean }) {
  const installs = useQuery({ queryKey: licenceKeys.installs, queryFn: licenceApi.installs });
  if (installs.error) return <ErrorNote error={installs.error} />;
  if (installs.data === undefined) return null;
  return <Installs view={installs.data} owner={owner} />;
}
