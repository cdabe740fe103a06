// Step 1 of the exchange, on the new install: ask (a purpose and a label), then carry the text
// and read out the code; the answer is pasted back or polled for.
import { useState } from 'react';
import { Refusal } from '../../shared/http.js';
import {
  type AskAnswer,
  type InstallsView,
  type PollAnswer,
  type Purpose,
  licenceApi,
} from './api.js';
import { useLicenceAction } from './queries.js';
import { PURPOSES } from './words.js';
import { allowed, CanButton, CarryText, Field, WouldLose } from './licence-parts.js';

/** Step 1, on the new install: ask, then carry the text and read out the code. */
export function AskPanel({ view, owner }: { view: InstallsView; owner: boolean }) {
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
          <CanButton
            can={pasteWhy === null ? { allowed: true } : { allowed: false, why: pasteWhy }}
            type="submit"
            busy={busy}
          >
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
  return (
    <>
      <ul className="poll" aria-label="request state">
        {p.requests.map((r) => (
          <li key={r.req_id}>
            <strong>{r.status}</strong>
            <span className="muted"> {r.req_id}</span>
            {r.why && <> — {r.why}</>}
          </li>
        ))}
      </ul>
      {p.why && <p className="hint">{p.why}</p>}
    </>
  );
}
