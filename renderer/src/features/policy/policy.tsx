// The policy editor (docs/policy.md): GET /v1/policy shows where the policy comes from and
// each section; each section is a JSON editor (checked as JSON before sending) saved with
// PUT /v1/policy carrying the whole document, this section replaced. A 400 names its field:
// the section's editor is marked and the message shown beside it. When the SVC_POLICY file
// manages the policy (source `file`, or a 409), the page says so and editing is off.
// Change windows, actions and escalation get a short readable summary above their JSON.
import { useMe } from '../people/index.js';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { ApiError, roleAtLeast } from '../../shared/api.js';
import { fieldProblems, type FieldProblem } from '../../shared/field-problems.js';
import { Time } from '../../shared/parts.js';
import { explain, Refusal } from '../../shared/http.js';
import { policyApi, type PolicyDocument, type PolicyView } from './api.js';
import { policyKeys } from './queries.js';

/** Known sections in reading order; any other section the service adds follows. */
const ORDER = [
  'grouping',
  'maintenance',
  'inhibit',
  'escalation',
  'change_windows',
  'actions',
] as const;

const TITLES: Record<string, string> = {
  grouping: 'Grouping',
  maintenance: 'Maintenance windows',
  inhibit: 'Inhibition',
  escalation: 'Escalation',
  change_windows: 'Change windows',
  actions: 'Actions',
};

const { idOf, FieldError, invalidIf } = fieldProblems('policy');

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value in a few words: lists joined, objects as `key value` pairs, long text cut. */
function brief(v: unknown, depth = 0): string {
  let text: string;
  if (v === null || v === undefined) text = '—';
  else if (typeof v === 'string') text = v;
  else if (typeof v === 'number' || typeof v === 'boolean') text = String(v);
  else if (Array.isArray(v))
    text = v.length === 0 ? 'none' : v.map((x) => brief(x, depth + 1)).join(', ');
  else if (isObject(v))
    text =
      depth > 1
        ? '{…}'
        : Object.entries(v)
            .map(([k, x]) => `${k} ${brief(x, depth + 1)}`)
            .join(depth === 0 ? ' · ' : ', ');
  else text = JSON.stringify(v);
  return text.length > 240 ? `${text.slice(0, 239)}…` : text;
}

const listOf = (v: unknown, key: string): unknown[] | null =>
  Array.isArray(v) ? v : isObject(v) && Array.isArray(v[key]) ? v[key] : null;

const names = (v: unknown): string =>
  Array.isArray(v) && v.length > 0 ? v.map((x) => brief(x)).join(', ') : 'all services';

/** When a change window is open: a fixed span, or weekly days and hours (UTC). */
function when(w: Record<string, unknown>): string {
  const parts: string[] = [];
  if (w['starts'] !== undefined || w['ends'] !== undefined)
    parts.push(`from ${brief(w['starts'])} to ${brief(w['ends'])}`);
  const weekly = w['weekly'];
  if (isObject(weekly))
    parts.push(
      `every ${brief(weekly['days'])} ${brief(weekly['from'])}–${brief(weekly['to'])} UTC`,
    );
  return parts.join(' and ');
}

const WINDOW_KEYS = ['name', 'services', 'mode', 'starts', 'ends', 'weekly', 'reason'];

function ChangeWindowsSummary({ value }: { value: unknown }) {
  const list = listOf(value, 'windows');
  if (list === null) return <p>{brief(value)}</p>;
  if (list.length === 0) return <p>No change windows: actions may run at any time.</p>;
  return (
    <ul>
      {list.map((w, i) => {
        if (!isObject(w)) return <li key={i}>{brief(w)}</li>;
        const rest = Object.fromEntries(
          Object.entries(w).filter(([k]) => !WINDOW_KEYS.includes(k)),
        );
        const mode =
          w['mode'] === 'freeze'
            ? 'freeze: no actions while it is open'
            : w['mode'] === 'only'
              ? 'only: actions run only while it is open'
              : brief(w['mode']);
        return (
          <li key={i}>
            <strong>{brief(w['name'] ?? `window ${String(i + 1)}`)}</strong> ({mode}) on{' '}
            {names(w['services'])}
            {when(w) !== '' && <> — {when(w)}</>}
            {typeof w['reason'] === 'string' && w['reason'] !== '' && <> — “{w['reason']}”</>}
            {Object.keys(rest).length > 0 && <span className="muted"> ({brief(rest)})</span>}
          </li>
        );
      })}
    </ul>
  );
}

function ActionsSummary({ value }: { value: unknown }) {
  const list = listOf(value, 'rules');
  if (list === null) return <p>{brief(value)}</p>;
  if (list.length === 0)
    return <p>No rules: every fix up to medium risk may run, and none runs without asking.</p>;
  return (
    <>
      <p className="hint">The first rule naming the service and the fix decides.</p>
      <ol>
        {list.map((rule, i) => {
          if (!isObject(rule)) return <li key={i}>{brief(rule)}</li>;
          return (
            <li key={i}>
              on {names(rule['services'])}: {brief(rule['fixes'])} up to{' '}
              <strong>{brief(rule['max_risk'])}</strong> risk —{' '}
              {rule['safe'] === true ? 'safe: on L2 runs without asking' : 'asks before running'}
            </li>
          );
        })}
      </ol>
    </>
  );
}

function EscalationSummary({ value }: { value: unknown }) {
  const steps = listOf(value, 'steps');
  if (steps === null) return <p>{brief(value)}</p>;
  if (steps.length === 0)
    return <p>No escalation steps: requests wait in the console and are sent nowhere.</p>;
  return (
    <ol>
      {steps.map((s, i) => {
        if (!isObject(s)) return <li key={i}>{brief(s)}</li>;
        const who = isObject(s['who']) ? s['who'] : {};
        const asks = [
          Array.isArray(who['users']) && who['users'].length > 0
            ? `users ${brief(who['users'])}`
            : '',
          Array.isArray(who['teams']) && who['teams'].length > 0
            ? `teams ${brief(who['teams'])}`
            : '',
          typeof who['role'] === 'string' ? `every ${who['role']} and above` : '',
        ].filter((x) => x !== '');
        return (
          <li key={i}>
            after {brief(s['after_s'])} s: ask {asks.join(' and ') || 'nobody'} through{' '}
            <strong>{brief(s['channel'])}</strong>
          </li>
        );
      })}
    </ol>
  );
}

function Summary({ name, value }: { name: string; value: unknown }): ReactNode {
  if (name === 'change_windows') return <ChangeWindowsSummary value={value} />;
  if (name === 'actions') return <ActionsSummary value={value} />;
  if (name === 'escalation') return <EscalationSummary value={value} />;
  if (name === 'grouping' && isObject(value))
    return (
      <p>
        Episodes opened within {brief(value['window_s'])} s of an incident's first, whose alerts
        share {brief(value['by'])}, join that incident.
      </p>
    );
  if (Array.isArray(value))
    return (
      <p className="muted">
        {value.length} {value.length === 1 ? 'entry' : 'entries'}
      </p>
    );
  return null;
}

/** Where a JSON.parse error points, as line and column of the text. */
function jsonProblem(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    const at = /position (\d+)/.exec(msg);
    if (at?.[1] === undefined) return msg;
    const before = text.slice(0, Number(at[1]));
    const line = before.split('\n').length;
    const col = before.length - before.lastIndexOf('\n');
    return `${msg.replace(/ in JSON at position \d+.*$/, '')} (line ${String(line)}, column ${String(col)})`;
  }
}

function SectionEditor({
  name,
  view,
  locked,
  why,
  onManaged,
}: {
  name: string;
  view: PolicyView;
  locked: boolean;
  why: string | null;
  onManaged: (message: string) => void;
}) {
  const qc = useQueryClient();
  const doc: PolicyDocument = view.policy;
  const saved = doc[name];
  const pretty = JSON.stringify(saved, null, 2);
  // The draft is what was typed; null follows the saved document (a refetch never overwrites).
  const [draft, setDraft] = useState<string | null>(null);
  const [problem, setProblem] = useState<FieldProblem | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);
  const text = draft ?? pretty;
  const dirty = draft !== null && draft !== pretty;
  const title = TITLES[name] ?? name;
  let shown: unknown = saved;
  try {
    shown = draft === null ? saved : (JSON.parse(draft) as unknown);
  } catch {
    shown = saved;
  }
  return (
    <section aria-label={title} style={{ marginBottom: 24 }}>
      <h2>
        {title} <code className="count">{name}</code>
        {dirty && <span className="count">· not saved</span>}
      </h2>
      <Summary name={name} value={shown} />
      <form
        className="settings-form"
        aria-label={`Edit ${title}`}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setProblem(null);
          setError(null);
          setDone(false);
          const bad = jsonProblem(text);
          if (bad !== null) {
            setProblem({ field: name, message: `is not valid JSON: ${bad}` });
            return;
          }
          setBusy(true);
          policyApi
            .put({ ...doc, [name]: JSON.parse(text) as unknown })
            .then((answer) => {
              qc.setQueryData(policyKeys.all, answer);
              setDraft(null);
              setDone(true);
            })
            .catch((err: unknown) => {
              if (err instanceof ApiError && err.status === 409) onManaged(err.message);
              if (err instanceof ApiError && err.status === 400 && err.field !== undefined)
                setProblem({
                  field: name,
                  message: err.message.startsWith(err.field)
                    ? err.message
                    : `${err.field}: ${err.message}`,
                });
              else setError(err);
            })
            .finally(() => {
              setBusy(false);
            });
        }}
      >
        <label htmlFor={idOf(name)}>{title} as JSON</label>
        <textarea
          id={idOf(name)}
          name={name}
          spellCheck={false}
          rows={Math.min(24, Math.max(4, text.split('\n').length + 1))}
          style={{ fontFamily: 'ui-monospace, monospace', width: '100%' }}
          value={text}
          readOnly={locked}
          {...invalidIf(name, problem)}
          onChange={(e) => {
            setDraft(e.target.value);
            setDone(false);
          }}
        />
        <FieldError field={name} problem={problem} />
        <div className="actions" style={{ display: 'flex', gap: 8 }}>
          <button
            type="submit"
            className="primary"
            disabled={locked || busy || !dirty}
            title={why ?? (dirty ? `Save ${title}` : 'Nothing changed')}
          >
            Save {title.toLowerCase()}
          </button>
          <button
            type="button"
            className="quiet"
            disabled={!dirty || busy}
            onClick={() => {
              setDraft(null);
              setProblem(null);
              setError(null);
            }}
          >
            Discard changes
          </button>
        </div>
        {done && (
          <p className="ok" role="status">
            ✓ Saved
          </p>
        )}
        <Refusal error={error} />
      </form>
    </section>
  );
}

export function PolicyPage() {
  const me = useMe();
  const policy = useQuery({ queryKey: policyKeys.all, queryFn: policyApi.get });
  const [managed, setManaged] = useState<string | null>(null);
  const view = policy.data;
  const admin = roleAtLeast(me.data?.role, 'admin');
  const fileManaged = view?.source === 'file' || managed !== null;
  const why = fileManaged
    ? 'The policy file manages the policy: edit the file instead'
    : admin
      ? null
      : 'Changing the policy needs the admin role';
  const names = view
    ? [
        ...ORDER.filter((n) => n in view.policy),
        ...Object.keys(view.policy).filter((n) => !(ORDER as readonly string[]).includes(n)),
      ]
    : [];
  return (
    <main className="page" style={{ maxWidth: 1000 }}>
      <h1>Policy</h1>
      {policy.isError && (
        <p className="error" role="alert">
          ⚠ Could not read the policy: {explain(policy.error)}
        </p>
      )}
      {policy.isPending && <p className="muted">Loading…</p>}
      {view && (
        <>
          <dl className="facts">
            <dt>From</dt>
            <dd>
              {view.source === 'file'
                ? `the file ${view.file ?? ''}`
                : view.source === 'api'
                  ? 'saved here (PUT /v1/policy)'
                  : 'the defaults'}
            </dd>
            <dt>Last set</dt>
            <dd>
              {view.set_at === null ? (
                'never'
              ) : (
                <>
                  <Time iso={view.set_at} /> by {view.set_by ?? 'unknown'}
                </>
              )}
            </dd>
            <dt>sha256</dt>
            <dd>
              <code title={view.sha256}>{view.sha256.slice(0, 16)}…</code>
            </dd>
          </dl>
          {fileManaged && (
            <p className="banner managed" role="note">
              ◆ The file <code>{view.file ?? 'named by SVC_POLICY'}</code> manages the policy:
              change it there (the service reads it at start). Editing here is off.
              {managed !== null && <> The service said: {managed}</>}
            </p>
          )}
          {!fileManaged && !admin && (
            <p className="hint">Read-only: changing the policy needs the admin role.</p>
          )}
          {names.map((n) => (
            <SectionEditor
              key={n}
              name={n}
              view={view}
              locked={why !== null}
              why={why}
              onManaged={setManaged}
            />
          ))}
        </>
      )}
    </main>
  );
}
