// Seeds closed episodes and their incidents straight into the `episodes` and `incidents`
// projection tables of a stopped service's database, with plain prepared INSERTs in one
// transaction, for the episode-list benchmark. Writing a million episodes through the ledger
// (four or five events each, chain hashes, seals) would take far longer than the benchmark
// may, and GET /v1/episodes reads only these two tables: its in-memory index loads closed
// episodes (joined to their incident) by last_seq, and a page's rows are read by rowid. The
// ledger therefore holds none of these events; `svc-core rebuild` would drop them. The
// full-text index of `q` (episodes_fts) is filled by the episodes table's own triggers, row
// by row in the same transaction, as every write of the service fills it; the seed checks
// that it has a document for every row.
//
// The spread is deterministic (a fixed PRNG seed): t_open increasing over the 365 days before
// `nowMs`, durations 1 s–1 h (log-uniform), ~200 services with a Zipf-like skew, coherent
// decision / outcome / result / action / confidence / kind combinations, about one incident
// per 1.3 episodes (a root plus up to two related episodes a few seconds apart).
import BetterSqlite, { type Database } from 'better-sqlite3';

const DAY_MS = 86_400_000;
const SERVICE_COUNT = 200;
/** Zipf exponent of the service spread: the busiest service gets about 17 % of episodes. */
const ZIPF_S = 1.0;
/** Chance that an episode joins the incident before it (at most 3 episodes an incident). */
const JOIN = 0.25;
const MAX_MEMBERS = 3;
/** Ledger seqs the seeded rows claim start above the few events of a fresh service. */
const FIRST_SEQ = 1000;

const NAMED_SERVICES = [
  'payments',
  'gateway',
  'checkout',
  'search',
  'ledger',
  'inventory',
  'auth',
  'orders',
  'shipping',
  'notifications',
  'catalog',
  'pricing',
  'accounts',
  'recommendations',
  'media',
  'billing',
  'fraud',
  'reporting',
  'checkout-web',
  'mailer',
];

/** mulberry32: small, fast, reproducible. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A weighted choice; weights need not sum to 1. */
function chooser<T>(rand: () => number, entries: readonly (readonly [T, number])[]): () => T {
  const total = entries.reduce((s, [, w]) => s + w, 0);
  const cdf: number[] = [];
  let acc = 0;
  for (const [, w] of entries) {
    acc += w / total;
    cdf.push(acc);
  }
  return () => {
    const u = rand();
    for (let i = 0; i < cdf.length; i++) if (u < cdf[i]!) return entries[i]![0];
    return entries[entries.length - 1]![0];
  };
}

export function serviceNames(): string[] {
  return Array.from({ length: SERVICE_COUNT }, (_, i) =>
    i < NAMED_SERVICES.length ? NAMED_SERVICES[i]! : `svc-${String(i + 1).padStart(3, '0')}`,
  );
}

interface Scenario {
  readonly decision: readonly (readonly [string, number])[];
  readonly outcome: string;
  readonly result: string;
  readonly actions: readonly (readonly [string, number])[];
  readonly confidence: readonly (readonly [string, number])[];
  readonly kind: readonly (readonly [string, number])[];
  /** share of these episodes a person took over (handover_s set) */
  readonly handover: number;
  /** share with a confirmed cause */
  readonly confirmed: number;
}

const SYMPTOM_KINDS = [
  ['symptom', 80],
  ['change', 12],
  ['security', 4],
  ['failure', 4],
] as const;

/** Root episodes: what happened, by weight. */
const ROOTS: readonly (readonly [Scenario, number])[] = [
  [
    {
      decision: [['settled', 1]],
      outcome: 'cleared',
      result: 'resolved',
      actions: [['', 1]],
      confidence: [
        ['unproven', 60],
        ['cleared', 30],
        ['suspected', 10],
      ],
      kind: SYMPTOM_KINDS,
      handover: 0.15,
      confirmed: 0,
    },
    30,
  ],
  [
    {
      decision: [['act', 1]],
      outcome: 'mitigated',
      result: 'restored',
      actions: [
        ['verified', 85],
        ['not_verified', 10],
        ['taken_back', 5],
      ],
      confidence: [
        ['proven', 75],
        ['linked', 25],
      ],
      kind: [['failure', 1]],
      handover: 0.1,
      confirmed: 0.7,
    },
    18,
  ],
  [
    {
      decision: [['ask_human', 1]],
      outcome: 'escalated',
      result: 'handed_over',
      actions: [['', 1]],
      confidence: [
        ['suspected', 50],
        ['unproven', 35],
        ['disputed', 15],
      ],
      kind: SYMPTOM_KINDS,
      handover: 1,
      confirmed: 0.1,
    },
    15,
  ],
  [
    {
      decision: [['shadow', 1]],
      outcome: 'shadow',
      result: 'shadow',
      actions: [['', 1]],
      confidence: [
        ['proven', 30],
        ['suspected', 40],
        ['unproven', 30],
      ],
      kind: SYMPTOM_KINDS,
      handover: 0.45,
      confirmed: 0.2,
    },
    12,
  ],
  [
    {
      decision: [['cleared', 1]],
      outcome: 'cleared',
      result: 'cleared',
      actions: [['', 1]],
      confidence: [['cleared', 1]],
      kind: SYMPTOM_KINDS,
      handover: 0.02,
      confirmed: 0,
    },
    8,
  ],
  [
    {
      decision: [
        ['abstain', 40],
        ['vetoed', 10],
        ['denied', 10],
        ['blocked', 10],
        ['dry_run_failed', 10],
        ['no_approval_route', 10],
        ['change_blocked', 10],
      ],
      outcome: 'unresolved',
      result: 'other',
      actions: [['', 1]],
      confidence: [
        ['suspected', 40],
        ['unproven', 40],
        ['disputed', 20],
      ],
      kind: SYMPTOM_KINDS,
      handover: 0.7,
      confirmed: 0.05,
    },
    10,
  ],
  [
    {
      decision: [
        ['restore', 60],
        ['mitigated_first', 40],
      ],
      outcome: 'mitigated',
      result: 'restored',
      actions: [
        ['verified', 80],
        ['not_verified', 15],
        ['taken_back', 5],
      ],
      confidence: [
        ['linked', 50],
        ['proven', 50],
      ],
      kind: [['failure', 1]],
      handover: 0.15,
      confirmed: 0.5,
    },
    7,
  ],
];

/** Episodes that joined an incident opened by another. */
const RELATED: Scenario = {
  decision: [
    ['related', 40],
    ['downstream', 35],
    ['same_cause', 20],
    ['recurrence', 5],
  ],
  outcome: 'explained',
  result: 'linked',
  actions: [['', 1]],
  confidence: [['linked', 1]],
  kind: [['downstream', 1]],
  handover: 0.15,
  confirmed: 0,
};

export interface SeedReport {
  readonly episodes: number;
  readonly incidents: number;
  readonly services: readonly string[];
  /** episodes per service, busiest first */
  readonly perService: readonly (readonly [string, number])[];
  readonly handoverNull: number;
  readonly restoreSet: number;
  readonly related: number;
  readonly seconds: number;
}

interface OpenIncident {
  id: string;
  rootId: string;
  tOpen: string;
  tResolved: string;
  services: string[];
  history: object[];
  firstSeq: number;
  lastSeq: number;
  members: number;
}

/**
 * Every NOT NULL column of `table` must be named by the INSERT (none left to a default the
 * seed did not choose), so that a migration adding one shows up here.
 */
function checkColumns(db: Database, table: string, insert: string): void {
  const named = (/\(([^)]*)\)/.exec(insert)?.[1] ?? '').split(',').map((c) => c.trim());
  const notNull = db
    .prepare<[string], string>(`SELECT name FROM pragma_table_info(?) WHERE "notnull" = 1`)
    .pluck()
    .all(table);
  const missing = notNull.filter((c) => !named.includes(c));
  if (notNull.length === 0 || missing.length > 0)
    throw new Error(
      `${table}: the seed leaves NOT NULL columns to defaults: ${missing.join(', ')}`,
    );
}

/**
 * The full-text index of `q` has a document for every episode (its docsize shadow table
 * holds one row per document); the full integrity check would take longer than the seeding.
 */
function checkSearchIndex(db: Database): void {
  const { indexed, episodes } = db
    .prepare<[], { indexed: number; episodes: number }>(
      `SELECT (SELECT count(*) FROM episodes_fts_docsize) AS indexed,
         (SELECT count(*) FROM episodes) AS episodes`,
    )
    .get() ?? { indexed: -1, episodes: 0 };
  if (indexed !== episodes)
    throw new Error(`the full-text index holds ${String(indexed)} of ${String(episodes)} episodes`);
}

const stamp = (iso: string): string => iso.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
const hex6 = (n: number): string => n.toString(16).padStart(6, '0');

/** seedEpisodes on a stopped service's database file, unsynced, checkpointed after. */
export function seedFile(file: string, count: number, nowMs: number): SeedReport {
  const db = new BetterSqlite(file);
  try {
    db.pragma('synchronous = OFF');
    const seeded = seedEpisodes(db, count, nowMs);
    db.pragma('wal_checkpoint(TRUNCATE)');
    return seeded;
  } finally {
    db.close();
  }
}

/**
 * Inserts `count` closed episodes (t_open over the 365 days before `nowMs`) and their
 * incidents. The service must be stopped (its writer is the only other writer).
 */
export function seedEpisodes(db: Database, count: number, nowMs: number): SeedReport {
  const t0 = performance.now();
  const rand = prng(0x5eed_2026);
  const services = serviceNames();
  // Zipf-like: weight 1 / rank^s.
  const pickService = chooser(
    rand,
    services.map((s, i) => [s, 1 / Math.pow(i + 1, ZIPF_S)] as const),
  );
  const pickRoot = chooser(rand, ROOTS);
  const choosers = new Map<readonly (readonly [string, number])[], () => string>();
  const pick = (entries: readonly (readonly [string, number])[]): string => {
    let c = choosers.get(entries);
    if (c === undefined) {
      c = chooser(rand, entries);
      choosers.set(entries, c);
    }
    return c();
  };

  const episodeSql = `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, t_quiet, t_close,
       alerts, firing, decision, outcome, result, action, handover_s, autonomy, confirmed,
       first_seq, last_seq, incident_id, relation, confidence, restore_s, suppressed)
     VALUES (@episode_id, @service, 'closed', 'closed', @kind, @t_open, @t_quiet, @t_close,
       '["SomeAlert"]', 0, @decision, @outcome, @result, @action, @handover_s, 'shadow',
       @confirmed, @first_seq, @last_seq, @incident_id, @relation, @confidence, @restore_s, '[]')`;
  const incidentSql = `INSERT INTO incidents (incident_id, root_episode_id, status, group_key, t_open, t_resolved,
       services, history, first_seq, last_seq)
     VALUES (@incident_id, @root_episode_id, 'resolved', NULL, @t_open, @t_resolved, @services,
       @history, @first_seq, @last_seq)`;
  checkColumns(db, 'episodes', episodeSql);
  checkColumns(db, 'incidents', incidentSql);
  const insertEpisode = db.prepare(episodeSql);
  const insertIncident = db.prepare(incidentSql);

  const span = 365 * DAY_MS;
  const start = nowMs - span;
  const step = span / count;
  let seq = FIRST_SEQ;
  let incidents = 0;
  let handoverNull = 0;
  let restoreSet = 0;
  let related = 0;
  const perService = new Map<string, number>();
  let current: OpenIncident | null = null;

  const closeIncident = (inc: OpenIncident): void => {
    inc.history.push({
      at: inc.tResolved,
      seq: inc.lastSeq,
      event: 'status',
      from: 'open',
      to: 'resolved',
      why: null,
    });
    insertIncident.run({
      incident_id: inc.id,
      root_episode_id: inc.rootId,
      t_open: inc.tOpen,
      t_resolved: inc.tResolved,
      services: JSON.stringify(inc.services),
      history: JSON.stringify(inc.history),
      first_seq: inc.firstSeq,
      last_seq: inc.lastSeq,
    });
    incidents += 1;
  };

  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      // Increasing: each episode opens somewhere in its own slot of the year.
      const openMs = Math.floor(start + (i + 0.05 + 0.9 * rand()) * step);
      const tOpen = new Date(openMs).toISOString();
      const joins = current !== null && current.members < MAX_MEMBERS && rand() < JOIN;
      const scenario = joins ? RELATED : pickRoot();
      const service = pickService();
      const duration = Math.max(1, Math.min(3600, Math.floor(Math.exp(rand() * Math.log(3600)))));
      const closeMs = openMs + duration * 1000;
      const tClose = new Date(closeMs).toISOString();
      const restore = rand() < 0.8 ? 1 + Math.floor(rand() * duration) : null;
      const handover =
        rand() < scenario.handover
          ? Math.min(duration, 5 + Math.floor(Math.exp(rand() * Math.log(900))))
          : null;
      const episodeId = `ep-${stamp(tOpen)}-${hex6(i)}`;
      const firstSeq = seq;
      // opened, incident opened/joined, signal.resolved, closed
      const lastSeq = seq + 3;
      seq += 4;

      if (!joins) {
        if (current !== null) closeIncident(current);
        current = {
          id: `in-${stamp(tOpen)}-${hex6(i)}`,
          rootId: episodeId,
          tOpen,
          tResolved: tClose,
          services: [service],
          history: [
            { at: tOpen, seq: firstSeq + 1, event: 'opened', episode_id: episodeId, service },
          ],
          firstSeq: firstSeq + 1,
          lastSeq: firstSeq + 1,
          members: 0,
        };
      } else if (current !== null) {
        if (!current.services.includes(service)) current.services.push(service);
        current.history.push({
          at: tOpen,
          seq: firstSeq + 1,
          event: 'joined',
          episode_id: episodeId,
          service,
        });
        if (tClose > current.tResolved) current.tResolved = tClose;
        related += 1;
      }
      const inc = current!;
      inc.members += 1;
      inc.lastSeq = lastSeq;

      insertEpisode.run({
        episode_id: episodeId,
        service,
        kind: pick(scenario.kind),
        t_open: tOpen,
        t_quiet: restore === null ? null : new Date(openMs + restore * 1000).toISOString(),
        t_close: tClose,
        decision: pick(scenario.decision),
        outcome: scenario.outcome,
        result: scenario.result,
        action: pick(scenario.actions),
        handover_s: handover,
        confirmed: rand() < scenario.confirmed ? '["disk_full"]' : '[]',
        first_seq: firstSeq,
        last_seq: lastSeq,
        incident_id: inc.id,
        relation: joins ? 'related' : 'root',
        confidence: pick(scenario.confidence),
        restore_s: restore,
      });
      if (handover === null) handoverNull += 1;
      if (restore !== null) restoreSet += 1;
      perService.set(service, (perService.get(service) ?? 0) + 1);
    }
    if (current !== null) closeIncident(current);
  })();
  checkSearchIndex(db);

  return {
    episodes: count,
    incidents,
    services,
    perService: [...perService.entries()].sort((a, b) => b[1] - a[1]),
    handoverNull,
    restoreSet,
    related,
    seconds: (performance.now() - t0) / 1000,
  };
}
