// Impact figures (admin, on the Settings page): the team's own minutes and costs, which the
// episode list's scorecard counts minutes saved with. PUT /v1/impact replaces the whole set,
// so the form always sends every figure; 0 means not counted. On a keychain member whose home
// carries the impact figures the server refuses with where to change them, shown as it says.
import { episodeKeys } from '../episodes/index.js';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type ImpactFigures, impactApi } from './api.js';
import { impactKeys, useImpact } from './queries.js';
import { ErrorNote, Time } from '../../shared/parts.js';

type Figures = ImpactFigures;
type Amount = Exclude<keyof Figures, 'currency'>;

/** The figures in the order a person fills them, each with what it is counted for. */
const AMOUNTS: readonly { field: Amount; label: string; money: boolean }[] = [
  { field: 'triage_min', label: 'Minutes a person spends triaging an alert', money: false },
  { field: 'fix_min', label: 'Minutes a person spends on a fix', money: false },
  { field: 'manual_resolve_min', label: 'Minutes to resolve an incident by hand', money: false },
  { field: 'engineer_hour', label: 'Cost of an engineer hour', money: true },
  { field: 'downtime_hour', label: 'Cost of an hour of downtime', money: true },
  { field: 'callout', label: 'Cost of one out-of-hours callout', money: true },
  { field: 'annual_cost', label: 'What this service costs a year', money: true },
];

/** The PUT body of a draft: the currency in capitals, every amount a number (empty is 0). */
export const figuresOf = (draft: Record<keyof Figures, string>): Figures => ({
  currency: draft.currency.trim().toUpperCase(),
  ...(Object.fromEntries(
    AMOUNTS.map(({ field }) => [field, Number(draft[field] || '0')]),
  ) as Record<Amount, number>),
});

export function ImpactSection() {
  const qc = useQueryClient();
  const saved = useImpact();
  const [draft, setDraft] = useState<Record<keyof Figures, string> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState(false);

  useEffect(() => {
    const f = saved.data?.figures;
    if (f !== undefined && draft === null)
      setDraft(
        Object.fromEntries(Object.entries(f).map(([k, v]) => [k, String(v)])) as Record<
          keyof Figures,
          string
        >,
      );
  }, [saved.data, draft]);

  // Opened from the scorecard's "set impact figures": bring the form into view.
  const loaded = draft !== null;
  useEffect(() => {
    if (loaded && window.location.hash === '#impact')
      document.getElementById('impact')?.scrollIntoView();
  }, [loaded]);

  const submit = () => {
    if (draft === null) return;
    setError(null);
    setDone(false);
    setBusy(true);
    impactApi
      .put(figuresOf(draft))
      .then((answer) => {
        qc.setQueryData(impactKeys.all, answer);
        // Every scorecard counts with these figures.
        void qc.invalidateQueries({ queryKey: episodeKeys.lists });
        setDone(true);
      })
      .catch(setError)
      .finally(() => {
        setBusy(false);
      });
  };

  const s = saved.data;
  return (
    <section aria-labelledby="impact">
      <h2 id="impact">Impact figures</h2>
      <p className="hint">
        Your team&apos;s own times and costs. The scorecard on the Episodes page counts minutes
        saved with them, and only for work the service did: the triage of what it ended itself or
        handed over with a proven cause, and the fix of what it verified. Shadow mode is shown
        apart. 0 means not counted.
      </p>
      <ErrorNote error={saved.error} />
      {s && (
        <p className="muted" aria-label="impact figures last set">
          {s.set_at === null ? (
            'Not set yet: the scorecard shows no minutes saved.'
          ) : (
            <>
              Last set <Time iso={s.set_at} /> by {s.set_by ?? 'unknown'}.
            </>
          )}
        </p>
      )}
      {draft && (
        <form
          className="impact-form"
          aria-label="impact figures"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <label>
            Currency (ISO 4217, e.g. EUR)
            <input
              value={draft.currency}
              maxLength={3}
              pattern="[A-Za-z]{3}"
              required
              onChange={(e) => {
                setDraft({ ...draft, currency: e.target.value });
                setDone(false);
              }}
            />
          </label>
          {AMOUNTS.map(({ field, label, money }) => (
            <label key={field}>
              {money ? `${label} (${draft.currency.toUpperCase() || 'currency'})` : label}
              <input
                type="number"
                min={0}
                step="any"
                inputMode="decimal"
                value={draft[field]}
                onChange={(e) => {
                  setDraft({ ...draft, [field]: e.target.value });
                  setDone(false);
                }}
              />
            </label>
          ))}
          <p className="actions">
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : 'Save the impact figures'}
            </button>
            {done && (
              <span role="status" className="ok">
                Saved: the scorecard counts with these figures now.
              </span>
            )}
          </p>
          <ErrorNote error={error} />
        </form>
      )}
    </section>
  );
}
