// Approval requests in SQLite: a projection of the approval.* ledger events (the ledger is the
// record; `svc-core rebuild` recreates these tables from it), and the SQL of the list.
import type { Database } from 'better-sqlite3';
import { projectionOf } from '../ledger/index.js';
import type { ApprovalEvents } from './approvals.events.js';
import type { ApprovalSortField } from './approvals.schemas.js';
import { canonicalJson } from '../shared/canonical-json.js';
import { compileQuery, parseQuery, type QueryFields } from '../shared/query-language.js';
import type {
  ApprovalChannelEntry,
  ApprovalDecisionEntry,
  ApprovalKind,
  ApprovalRequest,
  ApprovalStatus,
} from './types.js';

/** A request opened: every field of the request but decisions, channels and closing. */
export const APPROVAL_REQUESTED = 'approval.requested';
/** One approve or deny: {request_id, decision, by, by_id, via, reason, subject_sha256, on_behalf_of?}. */
export const APPROVAL_DECIDED = 'approval.decided';
/** A request ended: {request_id, status, reason}. */
export const APPROVAL_CLOSED = 'approval.closed';
/** A channel was asked: {request_id, channel, step, ok, detail, link_ids?}. */
export const APPROVAL_SENT = 'approval.sent';

export const APPROVAL_EVENTS = [
  APPROVAL_REQUESTED,
  APPROVAL_DECIDED,
  APPROVAL_CLOSED,
  APPROVAL_SENT,
] as const;

export const STATUSES = ['pending', 'approved', 'denied', 'withdrawn', 'expired'] as const;
export const RISKS = ['low', 'medium', 'high'] as const;
export const KINDS = ['action', 'autonomy', 'fix_mode'] as const;
export const FACETS = ['status', 'risk', 'kind'] as const;
export type ApprovalFacet = (typeof FACETS)[number];
// The sort fields live with the wire schema (the console type-checks against that file).
export { SORT_FIELDS, type ApprovalSortField } from './approvals.schemas.js';

/** What `query` can name in GET /v1/approvals (GET /v1/search/fields lists it). */
export const APPROVAL_QUERY_FIELDS: QueryFields = {
  list: 'approvals',
  fields: {
    id: { column: 'request_id', type: 'text' },
    request_id: { column: 'request_id', type: 'text' },
    kind: { column: 'kind', type: 'enum', values: KINDS },
    status: { column: 'status', type: 'enum', values: STATUSES },
    risk: { column: 'risk', type: 'enum', values: RISKS },
    service: { column: 'service', type: 'text' },
    episode: { column: 'episode_id', type: 'text' },
    episode_id: { column: 'episode_id', type: 'text' },
    title: { column: 'title', type: 'text' },
    summary: { column: 'summary', type: 'text' },
    requested_by: { column: 'requested_by', type: 'text' },
    requested_at: { column: 'requested_at', type: 'time' },
    expires_at: { column: 'expires_at', type: 'time' },
    closed_at: { column: 'closed_at', type: 'time' },
    approver_role: { column: 'approver_role', type: 'enum', values: ['responder', 'admin'] },
    quorum: { column: 'quorum', type: 'integer' },
    reason: { column: 'reason', type: 'text' },
    decided_by: {
      column: `(SELECT json_group_array(json_extract(d.value, '$.by')) FROM json_each(decisions) d)`,
      type: 'text',
      multi: 'json_array',
    },
  },
  // data.<key> matches inside what is approved (subject), e.g. data.fix:restart
  dataColumn: 'subject',
  timeColumn: 'requested_at',
  textColumns: ['request_id', 'title', 'summary', 'service', 'requested_by', 'episode_id'],
};

export interface ApprovalFilter {
  readonly facets: Partial<Record<ApprovalFacet, readonly string[]>>;
  readonly q: string | null;
  readonly query: string | null;
  /** requested_at window, ISO: since inclusive, until exclusive */
  readonly since: string | null;
  readonly until: string | null;
}

export interface ApprovalPage {
  readonly sort: { readonly field: ApprovalSortField; readonly descending: boolean };
  readonly limit: number;
  readonly offset: number;
}

interface Row {
  request_id: string;
  kind: ApprovalKind;
  status: ApprovalStatus;
  title: string;
  summary: string;
  service: string | null;
  risk: ApprovalRequest['risk'];
  episode_id: string | null;
  subject: string;
  subject_sha256: string;
  quorum: number;
  approver_role: 'responder' | 'admin';
  requested_by: string;
  requested_by_id: string | null;
  requested_at: string;
  expires_at: string;
  decisions: string;
  channels: string;
  closed_at: string | null;
  reason: string | null;
}

const COLUMNS = `request_id, kind, status, title, summary, service, risk, episode_id, subject,
  subject_sha256, quorum, approver_role, requested_by, requested_by_id, requested_at, expires_at, decisions,
  channels, closed_at, reason`;

const requestOf = (r: Row): ApprovalRequest => ({
  request_id: r.request_id,
  kind: r.kind,
  status: r.status,
  title: r.title,
  summary: r.summary,
  service: r.service,
  risk: r.risk,
  episode_id: r.episode_id,
  subject: JSON.parse(r.subject) as Record<string, unknown>,
  subject_sha256: r.subject_sha256,
  quorum: r.quorum,
  approver_role: r.approver_role,
  requested_by: r.requested_by,
  requested_by_id: r.requested_by_id ?? r.requested_by,
  requested_at: r.requested_at,
  expires_at: r.expires_at,
  // Decisions recorded before ids were: the name was the identity.
  decisions: (
    JSON.parse(r.decisions) as (Omit<ApprovalDecisionEntry, 'by_id'> & { by_id?: string })[]
  ).map((d): ApprovalDecisionEntry => ({ ...d, by_id: d.by_id ?? d.by })),
  channels: JSON.parse(r.channels) as ApprovalChannelEntry[],
  closed_at: r.closed_at,
  reason: r.reason,
});

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const textOrNull = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const record = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const oneOf = <T extends string>(v: unknown, allowed: readonly T[], fallback: T): T =>
  typeof v === 'string' && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;

const SORT_SQL: Record<ApprovalSortField, string> = {
  requested_at: 'requested_at',
  expires_at: 'expires_at',
  closed_at: 'closed_at',
  status: 'status',
  risk: `CASE risk WHEN 'low' THEN 1 WHEN 'medium' THEN 2 ELSE 3 END`,
  kind: 'kind',
  service: 'service',
};

export function createApprovalsStore(db: Database) {
  const byId = db.prepare<[string], Row>(
    `SELECT ${COLUMNS} FROM approval_requests WHERE request_id = ?`,
  );
  const pending = db.prepare<[], Row>(
    `SELECT ${COLUMNS} FROM approval_requests WHERE status = 'pending' ORDER BY requested_at, request_id`,
  );
  const expiring = db.prepare<[string], Row>(
    `SELECT ${COLUMNS} FROM approval_requests WHERE status = 'pending' AND expires_at <= ?
     ORDER BY expires_at, request_id`,
  );
  const insert = db.prepare<
    [
      string,
      string,
      string,
      string,
      string | null,
      string,
      string | null,
      string,
      string,
      number,
      string,
      string,
      string,
      string,
      string,
      number,
    ]
  >(
    `INSERT OR IGNORE INTO approval_requests (request_id, kind, status, title, summary, service,
       risk, episode_id, subject, subject_sha256, quorum, approver_role, requested_by,
       requested_by_id, requested_at, expires_at, seq)
     VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const setDecisions = db.prepare<[string, number, string]>(
    'UPDATE approval_requests SET decisions = ?, seq = ? WHERE request_id = ?',
  );
  const setChannels = db.prepare<[string, number, string]>(
    'UPDATE approval_requests SET channels = ?, seq = ? WHERE request_id = ?',
  );
  const close = db.prepare<[string, string, string | null, number, string]>(
    `UPDATE approval_requests SET status = ?, closed_at = ?, reason = ?, seq = ?
     WHERE request_id = ? AND status = 'pending'`,
  );
  const putLink = db.prepare<[string, string, string, number]>(
    'INSERT OR IGNORE INTO approval_links (token_id, request_id, channel, step) VALUES (?, ?, ?, ?)',
  );
  const linkById = db.prepare<[string], { request_id: string; channel: string; step: number }>(
    'SELECT request_id, channel, step FROM approval_links WHERE token_id = ?',
  );

  /** WHERE parts of every filter; `except` leaves one facet out (for its own counts). */
  function where(
    filter: ApprovalFilter,
    nowMs: number,
    except?: ApprovalFacet,
  ): { sql: string; params: (string | number)[] } {
    const parts: string[] = [];
    const params: (string | number)[] = [];
    for (const f of FACETS) {
      const values = filter.facets[f];
      if (f === except || values === undefined || values.length === 0) continue;
      parts.push(`${f} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    }
    for (const node of [
      filter.q === null ? null : ({ kind: 'word', value: filter.q } as const),
      filter.query === null ? null : parseQuery(filter.query),
    ]) {
      if (node === null) continue;
      const compiled = compileQuery(node, APPROVAL_QUERY_FIELDS, nowMs);
      parts.push(`(${compiled.sql})`);
      params.push(...compiled.params);
    }
    if (filter.since !== null) {
      parts.push('requested_at >= ?');
      params.push(filter.since);
    }
    if (filter.until !== null) {
      parts.push('requested_at < ?');
      params.push(filter.until);
    }
    return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
  }

  return {
    get: (id: string): ApprovalRequest | null => {
      const r = byId.get(id);
      return r === undefined ? null : requestOf(r);
    },
    /** Every pending request, oldest first. */
    pending: (): ApprovalRequest[] => pending.all().map(requestOf),
    /** Pending requests whose expiry is at or before `nowIso`. */
    expiring: (nowIso: string): ApprovalRequest[] => expiring.all(nowIso).map(requestOf),
    /** The channel a link went out on, by the link's token_id. */
    linkOf: (tokenId: string) => linkById.get(tokenId) ?? null,
    /** One page of the list, its total, and the facet counts (each without its own filter). */
    list(filter: ApprovalFilter, page: ApprovalPage, nowMs: number) {
      const all = where(filter, nowMs);
      const order = `${SORT_SQL[page.sort.field]} ${page.sort.descending ? 'DESC' : 'ASC'}`;
      const rows = db
        .prepare<(string | number)[], Row>(
          `SELECT ${COLUMNS} FROM approval_requests WHERE ${all.sql}
           ORDER BY ${order} NULLS LAST, requested_at DESC, request_id DESC LIMIT ? OFFSET ?`,
        )
        .all(...all.params, page.limit, page.offset);
      const total = db
        .prepare<(string | number)[], number>(
          `SELECT count(*) FROM approval_requests WHERE ${all.sql}`,
        )
        .pluck()
        .get(...all.params);
      const facets = {} as Record<ApprovalFacet, Record<string, number>>;
      const known: Record<ApprovalFacet, readonly string[]> = {
        status: STATUSES,
        risk: RISKS,
        kind: KINDS,
      };
      for (const f of FACETS) {
        const w = where(filter, nowMs, f);
        const counts: Record<string, number> = Object.fromEntries(known[f].map((v) => [v, 0]));
        for (const c of db
          .prepare<(string | number)[], { value: string; n: number }>(
            `SELECT ${f} AS value, count(*) AS n FROM approval_requests WHERE ${w.sql} GROUP BY ${f}`,
          )
          .all(...w.params))
          counts[c.value] = c.n;
        facets[f] = counts;
      }
      return { requests: rows.map(requestOf), total: total ?? 0, facets };
    },
    projection: projectionOf<ApprovalEvents>({
      name: 'approvals',
      tables: ['approval_requests', 'approval_links'],
      on: {
        [APPROVAL_REQUESTED]: (d, e) => {
          const id = text(d.request_id);
          if (id === '') return;
          insert.run(
            id,
            oneOf(d.kind, KINDS, 'action'),
            text(d.title),
            text(d.summary),
            textOrNull(d.service),
            oneOf(d.risk, RISKS, 'high'),
            textOrNull(d.episode_id),
            canonicalJson(record(d.subject)),
            text(d.subject_sha256),
            typeof d.quorum === 'number' ? d.quorum : 1,
            oneOf(d.approver_role, ['responder', 'admin'] as const, 'admin'),
            text(d.requested_by) || e.actor,
            text(d.requested_by_id) || text(d.requested_by) || e.actor,
            e.ts,
            text(d.expires_at),
            e.seq,
          );
        },
        [APPROVAL_DECIDED]: (d, e) => {
          const id = text(d.request_id);
          if (id === '') return;
          const r = byId.get(id);
          if (r === undefined) return;
          const by = text(d.by) || e.actor;
          const onBehalfOf = textOrNull(d.on_behalf_of);
          const entry: ApprovalDecisionEntry = {
            by,
            by_id: text(d.by_id) || by,
            ...(onBehalfOf !== null && { on_behalf_of: onBehalfOf }),
            decision: d.decision === 'deny' ? 'deny' : 'approve',
            at: e.ts,
            via: text(d.via) || 'console',
            reason: textOrNull(d.reason),
          };
          const list = JSON.parse(r.decisions) as ApprovalDecisionEntry[];
          setDecisions.run(JSON.stringify([...list, entry]), e.seq, id);
        },
        [APPROVAL_CLOSED]: (d, e) => {
          const id = text(d.request_id);
          if (id === '') return;
          close.run(oneOf(d.status, STATUSES, 'expired'), e.ts, textOrNull(d.reason), e.seq, id);
        },
        [APPROVAL_SENT]: (d, e) => {
          const id = text(d.request_id);
          if (id === '') return;
          const r = byId.get(id);
          if (r === undefined) return;
          const step = typeof d.step === 'number' ? d.step : 0;
          const channel = text(d.channel);
          const entry: ApprovalChannelEntry = {
            channel,
            step,
            at: e.ts,
            ok: d.ok === true,
            detail: text(d.detail),
          };
          const list = JSON.parse(r.channels) as ApprovalChannelEntry[];
          setChannels.run(JSON.stringify([...list, entry]), e.seq, id);
          // Rebuild replays rows as stored: an old row's list may hold other values.
          const ids: unknown = d.link_ids;
          if (Array.isArray(ids))
            for (const t of ids) if (typeof t === 'string') putLink.run(t, id, channel, step);
        },
      },
    }),
  };
}
export type ApprovalsStore = ReturnType<typeof createApprovalsStore>;
