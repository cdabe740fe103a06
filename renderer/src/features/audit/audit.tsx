// Audit log: the ledger, newest first, filtered with the query language; rows open to show
// what an event holds; verify on demand, with the result in words (audit-parts.tsx).
import { auditKeys } from './queries.js';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { type VerifyReport, auditApi } from './api.js';
import { ErrorNote } from '../../shared/parts.js';
import { navigate, useLocation } from '../../shared/router.js';
import { LedgerRow, VerifyResult } from './audit-parts.js';
import './audit.css';
import { saveBlob } from '../../shared/download.js';

/** Oldest first, 2,000 at a time after the last seq seen, until `more` is false. */
async function exportEvents(filter: URLSearchParams, progress: (n: number) => void): Promise<Blob> {
  const lines: string[] = [];
  let after = 0;
  for (;;) {
    const q = new URLSearchParams(filter);
    for (const k of ['limit', 'offset', 'order', 'after_seq', 'latest']) q.delete(k);
    q.set('order', 'asc');
    q.set('limit', '2000');
    q.set('after_seq', String(after));
    const page = await auditApi.ledger(q.toString());
    for (const e of page.events) lines.push(JSON.stringify(e));
    progress(lines.length);
    const last = page.events.at(-1);
    if (!page.more || last === undefined) break;
    after = last.seq;
  }
  return new Blob(lines.length === 0 ? [] : [`${lines.join('\n')}\n`], {
    type: 'application/x-ndjson',
  });
}

function ExportButton({ filter }: { filter: URLSearchParams }) {
  const [state, setState] = useState<{ busy: boolean; count: number; error: unknown }>({
    busy: false,
    count: 0,
    error: null,
  });
  return (
    <>
      <button
        type="button"
        disabled={state.busy}
        onClick={() => {
          setState({ busy: true, count: 0, error: null });
          exportEvents(filter, (count) => {
            setState((s) => ({ ...s, count }));
          })
            .then((blob) => {
              saveBlob(`ledger-${new Date().toISOString().replace(/[:.]/g, '')}.jsonl`, blob);
              setState((s) => ({ ...s, busy: false }));
            })
            .catch((error: unknown) => {
              setState((s) => ({ ...s, busy: false, error }));
            });
        }}
      >
        {state.busy ? `Exporting… ${state.count.toLocaleString('en')}` : 'Export (JSON lines)'}
      </button>
      {!state.busy && state.count > 0 && (
        <span className="muted" role="status">
          exported {state.count.toLocaleString('en')} events
        </span>
      )}
      <ErrorNote error={state.error} />
    </>
  );
}

export function AuditPage() {
  const { params } = useLocation();
  const query = new URLSearchParams(params);
  if (!query.has('limit')) query.set('limit', '100');
  const text = query.toString();
  const page = useQuery({
    queryKey: auditKeys.page(text),
    queryFn: () => auditApi.ledger(text),
    placeholderData: keepPreviousData,
  });
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());
  const toggle = (seq: number) => {
    setOpened((before) => {
      const next = new Set(before);
      if (!next.delete(seq)) next.add(seq);
      return next;
    });
  };
  const [verify, setVerify] = useState<{
    busy: boolean;
    result: VerifyReport | null;
    error: unknown;
  }>({
    busy: false,
    result: null,
    error: null,
  });
  return (
    <main className="page">
      <h1>
        Audit log{' '}
        <span className="count">head seq {page.data?.head.seq.toLocaleString('en') ?? '…'}</span>
      </h1>
      <div className="filters">
        <form
          role="search"
          className="query-bar"
          onSubmit={(e) => {
            e.preventDefault();
            const value = new FormData(e.currentTarget).get('query');
            const next = new URLSearchParams(params);
            if (typeof value === 'string' && value.trim() !== '') next.set('query', value.trim());
            else next.delete('query');
            navigate(`/audit?${next.toString()}`);
          }}
        >
          <input
            name="query"
            className="grow"
            defaultValue={params.get('query') ?? ''}
            placeholder="query, e.g. type:signal.* actor:admin-token"
          />
          <button type="submit">Filter</button>
        </form>
        <button
          type="button"
          disabled={verify.busy}
          onClick={() => {
            setVerify({ busy: true, result: null, error: null });
            auditApi
              .verify()
              .then((result) => setVerify({ busy: false, result, error: null }))
              .catch((error: unknown) => setVerify({ busy: false, result: null, error }));
          }}
        >
          {verify.busy ? 'Verifying…' : 'Verify the ledger'}
        </button>
        <ExportButton filter={params} />
      </div>
      {verify.result && <VerifyResult report={verify.result} />}
      <ErrorNote error={verify.error ?? page.error} />
      <table className="table" aria-label="ledger events">
        <thead>
          <tr>
            <th className="num">Seq</th>
            <th>Time</th>
            <th>Type</th>
            <th>Actor</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {page.data?.events.map((e) => (
            <LedgerRow
              key={e.seq}
              event={e}
              open={opened.has(e.seq)}
              onToggle={() => toggle(e.seq)}
            />
          ))}
        </tbody>
      </table>
    </main>
  );
}
