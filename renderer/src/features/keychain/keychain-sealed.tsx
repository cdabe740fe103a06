// The sealed file (docs/keychain.md): carrying the parts to a site that cannot reach its home.
// Sealing asks for the passphrase twice (12 characters at least) and saves the answer as
// keychain-<version>.sealed; opening takes a file and the passphrase and lists what was
// applied, left to the home, or skipped. A passphrase is held by its field only until the call
// is sent: it is never a mutation's variables and the fields are emptied as it goes.
import { statusKeys } from '../status/index.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { Refusal } from '../../shared/http.js';
import { Field, SubmitRow, TextField } from './keychain-bits.js';
import { keychainApi, type KeychainView, type SealedAnswer, type UnsealAnswer } from './api.js';
import {
  homeLabel,
  MAX_SEALED,
  MIN_PASSPHRASE,
  PART_WORDS,
  sealedWords,
} from './keychain-words.js';
import { keychainKeys } from './queries.js';
import { saveBlob } from '../../shared/download.js';

const partList = (parts: string[]): string =>
  parts.map((p) => PART_WORDS[p] ?? p).join(', ') || 'none';

const fileName = (a: SealedAnswer): string => `keychain-${String(a.content_version)}.sealed`;

function save(a: SealedAnswer): void {
  saveBlob(fileName(a), new Blob([a.file], { type: 'application/octet-stream' }));
}

/** A refusal of seal or unseal: the sealed-file codes in plain words, the rest as said. */
function SealedRefusal({ error }: { error: unknown }) {
  const words = sealedWords(error);
  if (words === null) return <Refusal error={error} />;
  return (
    <p className="error" role="alert">
      ✗ {words}
    </p>
  );
}

function SealForm({ why }: { why: string | null }) {
  const [pass, setPass] = useState('');
  const [again, setAgain] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const sending = useRef<string | null>(null);
  const seal = useMutation({
    mutationFn: () => {
      const p = sending.current ?? '';
      sending.current = null;
      return keychainApi.seal(p);
    },
    gcTime: 0,
  });
  return (
    <form
      className="settings-form"
      aria-label="Seal a file"
      onSubmit={(e) => {
        e.preventDefault();
        setNote(null);
        if (pass.length < MIN_PASSPHRASE)
          return setNote(`The passphrase needs at least ${String(MIN_PASSPHRASE)} characters.`);
        if (pass !== again)
          return setNote(
            'The two passphrases differ: type the same one twice. Nothing was sealed.',
          );
        sending.current = pass;
        setPass('');
        setAgain('');
        seal.mutate(undefined, { onSuccess: save });
      }}
    >
      <h3>Seal a file</h3>
      <p className="hint">
        Seals the parts this install carries into a file under a passphrase, for an install that
        cannot reach this one. Give the passphrase to the other site by another way than the file.
      </p>
      <TextField
        label={`Passphrase (at least ${String(MIN_PASSPHRASE)} characters)`}
        type="password"
        autoComplete="new-password"
        value={pass}
        disabled={why !== null}
        onChange={setPass}
      />
      <TextField
        label="The passphrase again"
        type="password"
        autoComplete="new-password"
        value={again}
        disabled={why !== null}
        onChange={setAgain}
      />
      <SubmitRow why={why} blocked={seal.isPending}>
        {seal.isPending ? 'Sealing…' : 'Seal and download'}
      </SubmitRow>
      {note !== null && (
        <p className="error" role="alert">
          ⚠ {note}
        </p>
      )}
      <SealedRefusal error={seal.error} />
      {seal.data !== undefined && (
        <div className="ok-box" role="status" aria-label="sealed file">
          <p className="ok">
            ✓ Sealed version {seal.data.content_version} ({partList(seal.data.parts)}) and saved as{' '}
            <code>{fileName(seal.data)}</code>.
          </p>
          <p className="muted kc-sha">
            SHA-256 <code>{seal.data.sha256}</code>
          </p>
          <button
            type="button"
            onClick={() => {
              if (seal.data !== undefined) save(seal.data);
            }}
          >
            Download again
          </button>
        </div>
      )}
    </form>
  );
}

function UnsealResult({ r, view }: { r: UnsealAnswer; view: KeychainView }) {
  if (r.skipped !== null)
    return (
      <p role="status" aria-label="sealed file result">
        Nothing applied: {r.skipped} (version {r.content_version}).
      </p>
    );
  return (
    <div role="status" aria-label="sealed file result" className="ok-box">
      <p className="ok">✓ Version {r.content_version} opened.</p>
      <dl className="facts">
        <dt>Applied</dt>
        <dd>{partList(r.applied)}</dd>
        {r.left.length > 0 && (
          <>
            <dt>Left to the home</dt>
            <dd>
              {partList(r.left)} (carried by {homeLabel(view)}, which wins)
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}

function UnsealForm({ view, why }: { view: KeychainView; why: string | null }) {
  const qc = useQueryClient();
  const [file, setFile] = useState<{ name: string; text: string } | null>(null);
  const [pass, setPass] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const sending = useRef<{ file: string; pass: string } | null>(null);
  const unseal = useMutation({
    mutationFn: () => {
      const s = sending.current ?? { file: '', pass: '' };
      sending.current = null;
      return keychainApi.unseal(s.file, s.pass);
    },
    gcTime: 0,
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: keychainKeys.all });
      await qc.invalidateQueries({ queryKey: statusKeys.status });
    },
  });
  return (
    <form
      className="settings-form"
      aria-label="Open a sealed file"
      onSubmit={(e) => {
        e.preventDefault();
        setNote(null);
        if (file === null) return setNote('Choose the sealed file first.');
        if (pass === '') return setNote('Type the passphrase the file was sealed with.');
        sending.current = { file: file.text, pass };
        setPass('');
        unseal.mutate();
      }}
    >
      <h3>Open a sealed file</h3>
      <p className="hint">
        Applies each part in the file as one change, once per version; an older version than one
        applied here is refused.
        {view.role === 'member' && ` Parts the home, ${homeLabel(view)}, carries are left to it.`}
      </p>
      <Field label="Sealed file">
        {(id) => (
          <input
            id={id}
            type="file"
            accept=".sealed,application/octet-stream,text/plain"
            disabled={why !== null}
            onChange={(e) => {
              const f = e.target.files?.[0];
              setNote(null);
              unseal.reset();
              if (f === undefined) return setFile(null);
              if (f.size > MAX_SEALED) {
                setFile(null);
                return setNote(`${f.name} is larger than any sealed file (8 MiB at most).`);
              }
              void f.text().then((text) => {
                setFile({ name: f.name, text });
              });
            }}
          />
        )}
      </Field>
      {file !== null && <p className="muted">Read {file.name}.</p>}
      <TextField
        label="Passphrase of the file"
        type="password"
        autoComplete="off"
        value={pass}
        disabled={why !== null}
        onChange={setPass}
      />
      <SubmitRow why={why} blocked={unseal.isPending}>
        {unseal.isPending ? 'Opening…' : 'Open and apply'}
      </SubmitRow>
      {note !== null && (
        <p className="error" role="alert">
          ⚠ {note}
        </p>
      )}
      <SealedRefusal error={unseal.error} />
      {unseal.data !== undefined && <UnsealResult r={unseal.data} view={view} />}
    </form>
  );
}

export function SealedSection({ view, why }: { view: KeychainView; why: string | null }) {
  return (
    <section aria-labelledby="kc-sealed-heading" className="kc-sealed">
      <h2 id="kc-sealed-heading">Sealed file</h2>
      <p className="hint">
        For a site that cannot reach its home, or to set up an install with no network path to it.
        An install can also apply a file at start with <code>SVC_KEYCHAIN_FILE</code> and{' '}
        <code>SVC_KEYCHAIN_PASSPHRASE_FILE</code>.
      </p>
      <div className="kc-sealed-forms">
        <SealForm why={why} />
        <UnsealForm view={view} why={why} />
      </div>
    </section>
  );
}
