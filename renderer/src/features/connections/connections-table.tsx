// The configured connections with their health, load and who set them last; each row edits or
// deletes (after a confirmation) its connection.
import { statusKeys } from '../status/index.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { type Connector, connectorApi } from './api.js';
import { ApiError } from '../../shared/api.js';
import { age, Empty, ErrorNote, Time } from '../../shared/parts.js';
import { connectorKeys } from './queries.js';

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => {
      setNow(Date.now());
    }, everyMs);
    return () => {
      clearInterval(timer);
    };
  }, [everyMs]);
  return now;
}

function Health({ c, now }: { c: Connector; now: number }) {
  if (c.problem !== null) return <span className="muted">not built</span>;
  const h = c.last_health;
  if (h === null) return <span className="muted">checking…</span>;
  return (
    <span className={h.ok ? 'ok' : 'error'} title={h.at}>
      {h.ok ? '✓' : '✗'} {h.detail} <span className="muted">· {age(h.at, now)} ago</span>
    </span>
  );
}

function DeleteButton({
  name,
  disabled,
  onManaged,
}: {
  name: string;
  disabled: boolean;
  onManaged: (why: string) => void;
}) {
  const qc = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => connectorApi.remove(name),
    onSuccess: () => {
      setConfirming(false);
      void qc.invalidateQueries({ queryKey: connectorKeys.list, exact: true });
      void qc.invalidateQueries({ queryKey: statusKeys.status });
    },
    onError: (err) => {
      setConfirming(false);
      if (err instanceof ApiError && err.status === 409) onManaged(err.message);
    },
  });
  if (!confirming)
    return (
      <>
        <button
          type="button"
          disabled={disabled}
          onClick={() => {
            setConfirming(true);
          }}
        >
          Delete<span className="visually-hidden"> {name}</span>
        </button>
        {remove.isError && !(remove.error instanceof ApiError && remove.error.status === 409) && (
          <ErrorNote error={remove.error} />
        )}
      </>
    );
  return (
    <>
      <button
        type="button"
        className="danger"
        disabled={disabled || remove.isPending}
        autoFocus
        onClick={() => {
          remove.mutate();
        }}
      >
        {remove.isPending ? 'Deleting…' : 'Confirm delete'}
        <span className="visually-hidden"> {name}</span>
      </button>
      <button
        type="button"
        className="quiet"
        onClick={() => {
          setConfirming(false);
        }}
      >
        Cancel<span className="visually-hidden"> deleting {name}</span>
      </button>
    </>
  );
}

export function ConnectionsTable({
  connectors,
  canEdit,
  onEdit,
  onManaged,
}: {
  connectors: Connector[];
  canEdit: boolean;
  onEdit: (c: Connector) => void;
  onManaged: (why: string) => void;
}) {
  const now = useNow(5000);
  if (connectors.length === 0)
    return <Empty>No connections yet. Add one below to let the service reach your tools.</Empty>;
  return (
    <table className="table connections" aria-label="connections">
      <thead>
        <tr>
          <th>Name</th>
          <th>Kind</th>
          <th>Health</th>
          <th>Problem</th>
          <th className="num">In flight</th>
          <th className="num">Queued</th>
          <th>Last set</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {connectors.map((c) => (
          <tr key={c.name} className={c.problem === null ? undefined : 'has-problem'}>
            <td>
              <strong>{c.name}</strong>
            </td>
            <td>{c.kind}</td>
            <td>
              <Health c={c} now={now} />
            </td>
            <td>
              {c.problem === null ? (
                <span className="muted">—</span>
              ) : (
                <strong className="problem">⚠ {c.problem}</strong>
              )}
            </td>
            <td className="num">{c.in_flight}</td>
            <td className="num">{c.queued}</td>
            <td>
              {c.set_at === null ? (
                '—'
              ) : (
                <>
                  <Time iso={c.set_at} />
                  {c.set_by !== null && <div className="muted">by {c.set_by}</div>}
                </>
              )}
            </td>
            <td className="row-actions">
              <button
                type="button"
                disabled={!canEdit}
                onClick={() => {
                  onEdit(c);
                }}
              >
                Edit<span className="visually-hidden"> {c.name}</span>
              </button>{' '}
              <DeleteButton name={c.name} disabled={!canEdit} onManaged={onManaged} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
