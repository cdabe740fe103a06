// Steps 2 and 3 of the exchange, on an install on the licence: look at the pasted request (its
// checks and digits to compare), then vouch with the code read out.
import { useId, useState } from 'react';
import { ApiError } from '../../shared/api.js';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { type InstallsView, type LookAnswer, type VouchAnswer, licenceApi } from './api.js';
import { useLicenceAction } from './queries.js';
import { allowed, CanButton, CarryText, Field, lastGroup } from './licence-parts.js';

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
export function VouchPanel({ view }: { view: InstallsView }) {
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
