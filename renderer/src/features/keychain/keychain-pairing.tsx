// Pairing by a six-digit code (docs/keychain.md): on the home, opening pairing for 10 minutes
// and each install asking to pair as a card with the code this home shows and a field for the
// code the install shows; on an install in no keychain, asking a home to pair, then its code
// beside the home's label and short fingerprint, a field for the code the home shows, and
// Cancel. Both sides show the same six digits, in two groups of three: the operator compares
// them and types each side's code on the other. The page asks for the view every 2 s while a
// pairing is under way (keychain.tsx), so a confirmation on the other side shows here.
import { useState } from 'react';
import { Time } from '../../shared/parts.js';
import { Refusal } from '../../shared/http.js';
import { useKeychainAction, type KeychainAction } from './keychain-action.js';
import { SubmitRow, TextField, Why } from './keychain-bits.js';
import { CopyButton } from '../../shared/clipboard.js';
import {
  keychainApi,
  type JoiningView,
  type KeychainView,
  type PairingRequest,
  type PairingView,
} from './api.js';
import { codeDigits, codeGroups, type PairingState } from './keychain-words.js';

/** The six digits, large and monospaced, in two groups of three. */
export function CodeDigits({ code, label }: { code: string; label: string }) {
  const [first, second] = codeGroups(code);
  return (
    <p className="kc-code" aria-label={label}>
      <span>{first}</span> <span>{second}</span>
    </p>
  );
}

/** A field for the code the other side shows: six digits, with or without a space. */
export function CodeForm({
  name,
  field,
  submit,
  why,
  busy,
  onCode,
}: {
  name: string;
  field: string;
  submit: string;
  why: string | null;
  busy: boolean;
  onCode: (digits: string) => void;
}) {
  const [typed, setTyped] = useState('');
  const digits = codeDigits(typed);
  return (
    <form
      className="settings-form kc-code-form"
      aria-label={name}
      onSubmit={(e) => {
        e.preventDefault();
        if (digits !== null) onCode(digits);
      }}
    >
      <TextField
        label={field}
        value={typed}
        inputMode="numeric"
        autoComplete="off"
        spellCheck={false}
        maxLength={9}
        className="kc-code-input"
        disabled={why !== null}
        onChange={setTyped}
      />
      {typed.trim() !== '' && digits === null && (
        <p className="hint">Six digits, as 123456 or 123 456.</p>
      )}
      <p className="actions">
        <button
          type="submit"
          className="primary"
          disabled={why !== null || busy || digits === null}
          title={why ?? (digits === null ? 'Type the six digits first' : undefined)}
        >
          {submit}
        </button>
      </p>
    </form>
  );
}

const origin = (): string => window.location.origin;

/** A state as glyph, word and colour (never colour alone), with what it means. */
export interface StateWords {
  glyph: string;
  word: string;
  tone: string;
  meaning: string;
}

export function StateBadge({ s }: { s: StateWords }) {
  return (
    <span className={`badge ${s.tone}`}>
      {s.glyph} {s.word}
    </span>
  );
}

/** An ended request, on the home, in plain words. */
function endedWords(r: PairingRequest): StateWords {
  switch (r.state as PairingState) {
    case 'added':
      return {
        glyph: '✓',
        word: 'added',
        tone: 'ok',
        meaning: `both codes matched: ${r.label} is a member.`,
      };
    case 'failed':
      return {
        glyph: '✗',
        word: 'failed',
        tone: 'fail',
        meaning: `a wrong code ended it; ${r.label} asks to pair again for a new code.`,
      };
    case 'cancelled':
      return { glyph: '–', word: 'cancelled', tone: '', meaning: `cancelled on ${r.label}.` };
    case 'expired':
      return {
        glyph: '⌛',
        word: 'expired',
        tone: 'warn',
        meaning: 'the window closed before both codes were typed.',
      };
    default:
      return { glyph: '?', word: r.state, tone: 'warn', meaning: '' };
  }
}

function WindowLine({ pairing }: { pairing: PairingView }) {
  const w = pairing.window;
  if (w?.open === true)
    return (
      <p className="kc-window" role="status" aria-label="pairing window">
        <span className="badge ok">● Pairing open</span>
        <span>
          until <Time iso={w.expires_at} />: an install in no keychain can ask to pair now.
        </span>
      </p>
    );
  // The latest window closed before its time: only three wrong codes do that.
  const early = w !== null && Date.parse(w.expires_at) > Date.now();
  return (
    <p className="kc-window" role="status" aria-label="pairing window">
      <span className="badge">○ Pairing closed</span>
      <span>
        {w === null ? (
          'No install can ask to pair until it is opened.'
        ) : early ? (
          'Three wrong codes closed it early. Open it again when the installs are ready.'
        ) : (
          <>
            It closed at <Time iso={w.expires_at} />.
          </>
        )}
      </span>
    </p>
  );
}

/** An install asking to pair: the code this home shows, and the field for the one it shows. */
function RequestCard({
  r,
  why,
  confirm,
  shown,
  onCode,
}: {
  r: PairingRequest;
  why: string | null;
  confirm: KeychainAction;
  /** This card's code was the last typed: its refusal shows here. */
  shown: boolean;
  onCode: (digits: string) => void;
}) {
  return (
    <article className="kc-pair" aria-label={`${r.label} asks to pair`}>
      <h3>{r.label}</h3>
      <p className="muted">
        fingerprint <code title={r.fingerprint}>{r.fp_short}…</code>
        {r.address !== null && <> · {r.address}</>} · ends <Time iso={r.expires_at} />
      </p>
      {r.code === null ? (
        <p className="muted">
          {why !== null
            ? 'The six digits are shown to admins only.'
            : `Waiting for ${r.label} to give its part of the code: it shows here in a moment.`}
        </p>
      ) : (
        <>
          <p className="kc-code-say">This home shows:</p>
          <CodeDigits code={r.code} label={`code this home shows for ${r.label}`} />
          <p className="kc-code-say">
            — type it on {r.label}. {r.label} shows the same six digits: compare them before you
            type its code here.
          </p>
        </>
      )}
      <ul className="kc-steps" aria-label={`confirmations for ${r.label}`}>
        <li className={r.joiner_confirmed ? 'ok' : undefined}>
          {r.joiner_confirmed
            ? `✓ This home’s code was typed on ${r.label}`
            : `○ This home’s code is not typed on ${r.label} yet`}
        </li>
        <li className={r.home_confirmed ? 'ok' : undefined}>
          {r.home_confirmed
            ? `✓ ${r.label}’s code was typed here`
            : `○ ${r.label}’s code is not typed here yet`}
        </li>
      </ul>
      {/* A viewer gets no code from the server, but sees the form disabled with why. */}
      {(r.code !== null || why !== null) && !r.home_confirmed && (
        <CodeForm
          name={`Type the code ${r.label} shows`}
          field={`Code shown on ${r.label}`}
          submit={`Confirm the code of ${r.label}`}
          why={why}
          busy={confirm.busy}
          onCode={onCode}
        />
      )}
      {shown && <Refusal error={confirm.error} />}
    </article>
  );
}

/** On the home: the window, the installs asking to pair, and the requests that ended. */
export function PairingSection({ view, why }: { view: KeychainView; why: string | null }) {
  const opening = useKeychainAction();
  // One action for every card, so a refused code stays in words after its card is gone.
  const confirm = useKeychainAction();
  const [tried, setTried] = useState<string | null>(null);
  const pairing = view.pairing;
  if (pairing === null) return null;
  const waiting = pairing.requests.filter((r) => r.state === 'open');
  const ended = pairing.requests.filter((r) => r.state !== 'open');
  return (
    <section aria-labelledby="kc-pairing-heading">
      <h2 id="kc-pairing-heading">
        Pairing <span className="count">{waiting.length}</span>
      </h2>
      <p className="hint">
        Another install joins without a site key: open pairing here for 10 minutes; on that
        install&apos;s Keychain page, an admin asks this home to pair (Join a home by code) with
        this address:
      </p>
      <p>
        <code>{origin()}</code> <CopyButton text={origin()} what="this home’s address" />
      </p>
      <p className="hint">
        Both installs then show the same six digits. Compare them, type this home&apos;s code on the
        install and its code here; when both are typed it is a member. One wrong code ends that
        request; three close the window.
      </p>
      <WindowLine pairing={pairing} />
      {pairing.window?.open !== true && (
        <p className="actions">
          <button
            type="button"
            className="primary"
            disabled={why !== null || opening.busy}
            title={why ?? undefined}
            onClick={() => {
              opening.run(keychainApi.openWindow);
            }}
          >
            Open pairing for 10 minutes
          </button>
        </p>
      )}
      <Why why={why} />
      <Refusal error={opening.error} />
      {waiting.length > 0 && (
        <div className="kc-pairs">
          {waiting.map((r) => (
            <RequestCard
              key={r.request_id}
              r={r}
              why={why}
              confirm={confirm}
              shown={tried === r.request_id}
              onCode={(digits) => {
                setTried(r.request_id);
                confirm.run(() => keychainApi.confirmMember(r.fingerprint, digits));
              }}
            />
          ))}
        </div>
      )}
      {ended.length > 0 && (
        <>
          <h3>Ended requests</h3>
          <ul className="kc-ended" aria-label="ended pairing requests">
            {ended.map((r) => {
              const e = endedWords(r);
              return (
                <li key={r.request_id}>
                  <strong>{r.label}</strong> <code title={r.fingerprint}>{r.fp_short}…</code>{' '}
                  <StateBadge s={e} /> <span className="muted">{e.meaning}</span>
                  {tried === r.request_id && <Refusal error={confirm.error} />}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

/** Why the install's last request ended, in plain words. */
function joinEndWords(j: JoiningView): StateWords {
  const home = j.home.label;
  if (j.state === 'failed')
    return {
      glyph: '✗',
      word: 'failed',
      tone: 'fail',
      meaning:
        j.reason === 'code'
          ? `A wrong code was typed (here or on ${home}), so the request ended and nothing was paired.`
          : `The request failed (${j.reason ?? 'no reason given'}); nothing was paired.`,
    };
  if (j.state === 'expired' || j.reason === 'expired' || j.reason === 'the pairing window closed')
    return {
      glyph: '⌛',
      word: 'expired',
      tone: 'warn',
      meaning: `The pairing window on ${home} closed before both codes were typed.`,
    };
  return {
    glyph: '–',
    word: 'cancelled',
    tone: '',
    meaning:
      j.reason === 'cancelled' || j.reason === null
        ? 'The request was cancelled; nothing was paired.'
        : `${home} ended the request (${j.reason}); nothing was paired.`,
  };
}

/** An open request: the code this install shows, the field for the home's, and Cancel. */
function Joining({
  j,
  why,
  action,
}: {
  j: JoiningView;
  why: string | null;
  action: KeychainAction;
}) {
  const home = j.home.label;
  return (
    <div className="kc-pair" role="group" aria-label="pairing with the home">
      <p>
        Asking <strong>{home}</strong>{' '}
        <span className="muted">
          (fingerprint <code title={j.home.fingerprint}>{j.home.fp_short}…</code>
          {j.address !== null && <> at {j.address}</>})
        </span>{' '}
        to pair. The request ends <Time iso={j.expires_at} />.
      </p>
      {j.code !== null && (
        <>
          <p className="kc-code-say">This install shows:</p>
          <CodeDigits code={j.code} label="code this install shows" />
          <p className="kc-code-say">
            Compare: the home should show the same six digits. Type them on {home} (its Keychain
            page, under Pairing), and type here the code {home} shows.
          </p>
        </>
      )}
      {j.confirmed ? (
        <p className="ok" role="status">
          ✓ The home&apos;s code was typed here. Waiting for an admin on {home} to type this
          install&apos;s code there; this page looks again every 2 seconds.
        </p>
      ) : (
        <CodeForm
          name="Type the code the home shows"
          field="Code shown on the home"
          submit="Confirm the code of the home"
          why={why}
          busy={action.busy}
          onCode={(digits) => {
            action.run(() => keychainApi.joinConfirm(digits));
          }}
        />
      )}
      <p className="hint">
        If the two codes differ, cancel: another install may be answering at that address.
      </p>
      <p className="actions">
        <button
          type="button"
          disabled={why !== null || action.busy}
          title={why ?? `Stop pairing with ${home}`}
          onClick={() => {
            action.run(keychainApi.joinCancel);
          }}
        >
          Cancel pairing
        </button>
      </p>
    </div>
  );
}

/** In no keychain: ask a home to pair, then compare and type the codes. */
export function JoinByCodeSection({ view, why }: { view: KeychainView; why: string | null }) {
  // One action for asking, confirming and cancelling: a refused code stays in words once the
  // request shows it ended.
  const action = useKeychainAction();
  const j = view.joining;
  const [address, setAddress] = useState(j?.address ?? '');
  const [label, setLabel] = useState('');
  const [note, setNote] = useState<string | null>(null);
  // A request that ended in "added" belongs to a keychain this install has since left.
  const last = j !== null && j.state !== 'added' ? j : null;
  const ended = last === null ? null : joinEndWords(last);
  return (
    <section aria-labelledby="kc-join-code-heading">
      <h2 id="kc-join-code-heading">Join a home by code</h2>
      {last?.state === 'open' ? (
        <Joining j={last} why={why} action={action} />
      ) : (
        <>
          {ended !== null && (
            <p role="status" aria-label="the last pairing request">
              <StateBadge s={ended} /> {ended.meaning} Ask again below for a new code.
            </p>
          )}
          <form
            className="settings-form"
            aria-label="Join a home by code"
            noValidate
            onSubmit={(e) => {
              e.preventDefault();
              setNote(null);
              const a = address.trim();
              if (!/^https?:\/\/\S+$/.test(a))
                return setNote(
                  'The home’s address starts with http:// or https://, as its Keychain page shows it under Pairing.',
                );
              action.run(() => keychainApi.join(a, label.trim()));
            }}
          >
            <p className="hint">
              An admin on the home first opens pairing there (its Keychain page, Pairing). Then ask
              it here: both installs show the same six digits, and each one&apos;s code is typed on
              the other.
            </p>
            <TextField
              label="Address of the home (http://host:port)"
              type="url"
              value={address}
              maxLength={255}
              spellCheck={false}
              disabled={why !== null}
              onChange={setAddress}
            />
            <TextField
              label="This install’s label (how the home will list it)"
              value={label}
              maxLength={64}
              disabled={why !== null}
              onChange={setLabel}
            />
            <SubmitRow
              why={why}
              blocked={action.busy || address.trim() === '' || label.trim() === ''}
            >
              {action.busy ? 'Asking the home…' : 'Ask the home to pair'}
            </SubmitRow>
            {note !== null && (
              <p className="error" role="alert">
                ⚠ {note}
              </p>
            )}
          </form>
        </>
      )}
      <Refusal error={action.error} />
    </section>
  );
}
