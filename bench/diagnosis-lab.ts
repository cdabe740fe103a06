// The diagnosis benchmark on the lab, as a function: `npm run bench:diagnosis` (diagnosis.ts)
// prints it, and `npm run bench` (model-cost.bench.ts) runs it with and without the model
// investigator. The service runs at L1 with the lab approver off; every lab fault (negative
// controls, red herrings and two faults at once among them) is injected `runs` times. Per run: the named cause (right or wrong), its confidence, the
// seconds from the alert reaching the service to the decision, the decision, the handover, and
// what the models cost the episode (calls, tokens, seconds, checks the investigator read).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, type Api } from '../e2e/lab/connect.js';
import { FAULTS, heal, inject, type FaultName } from '../e2e/lab/faults.js';
import { startLab, type Lab } from '../e2e/lab/lab.js';

import { createLocalRuntime, startLocalEndpoint } from '../models/index.js';
import { writeTinyGguf } from '../models/testing/tiny-gguf.js';

/**
 * The models of a run: System 2 (the investigator and the note) on the tiny test model,
 * through a cassette. System 1 is left unreachable, so its gates stay unverified and never
 * change a diagnosis: a random test model would lower and veto at random, and the figure is
 * the investigator's.
 */
export interface ModelSetup {
  readonly investigator: 'loop' | 'mcts';
  /** the cassette directory (committed ones live under bench/cassettes/) */
  readonly cassetteDir: string;
  /** replay: answers from the cassette only; auto: a miss asks the tiny model and records */
  readonly replay: 'record' | 'replay' | 'auto';
}

export interface DiagnosisOptions {
  readonly runs: number;
  /** case names; empty: every case */
  readonly only: readonly string[];
  readonly waitMs: number;
  readonly models: ModelSetup | null;
  readonly net: string;
  readonly log: (line: string) => void;
}

/** What the models cost one measured episode. */
export interface ModelCost {
  readonly calls: number;
  readonly tokens: number;
  readonly seconds: number;
  readonly reads: number;
  /** calls that failed (a cassette miss in replay mode among them) */
  readonly failed: number;
  /** investigator runs that went past a bound, counted from the ledger (should be none) */
  readonly over_bounds: number;
  /** calls answered from the cassette */
  readonly replayed: number;
}

interface Event {
  seq: number;
  ts: string;
  type: string;
  trace_id: string | null;
  data: Record<string, unknown>;
}
interface Hypothesis {
  cause: string;
  service: string;
  confidence: string;
}
interface Case {
  readonly name: string;
  /** the ground-truth cause and its service; null: no fault (abstain or cleared, never a fix) */
  readonly cause: string | null;
  readonly service: string;
  /** the alerts of the case on its service: a round that sees none of them is another's */
  readonly alerts: readonly string[];
  start(lab: Lab): Promise<void>;
  end(lab: Lab): Promise<void>;
}
export interface Run {
  case: string;
  run: number;
  episode: string | null;
  named: string;
  confidence: string;
  right: boolean;
  wrong_proven: boolean;
  /** no pack knows the fault's cause (or there is none): right is abstaining or asking */
  uncovered: boolean;
  /** exact cause 100, one hop short 65, right area 35, wrong or no decision 0 */
  score: number;
  /** the fix the decision named, if any, and whether it fits the symptom */
  fix: string | null;
  fix_fits: boolean | null;
  seconds: number | null;
  decision: string;
  handover_s: number | null;
  model: ModelCost;
}

const NO_COST: ModelCost = {
  calls: 0,
  tokens: 0,
  seconds: 0,
  reads: 0,
  failed: 0,
  over_bounds: 0,
  replayed: 0,
};

interface Bounds {
  s2_calls: number;
  reads: number;
  depth: number;
}

/**
 * Investigator runs past a bound, from the ledger alone: the calls (`model.called`,
 * investigator.*) and reads (`model.proposed`) between a run's start and its summary, and the
 * deepest read, against the bounds the summary names.
 */
function overBounds(events: readonly Event[]): number {
  let over = 0;
  let calls = 0;
  let reads = 0;
  let depth = 0;
  for (const e of events) {
    if (e.type === 'model.called' && String(e.data['purpose']).startsWith('investigator.'))
      calls += 1;
    if (e.type === 'model.proposed') {
      reads += 1;
      depth = Math.max(depth, Number(e.data['depth'] ?? 0));
    }
    if (e.type !== 'model.investigated') continue;
    const b = e.data['bounds'] as Bounds;
    if (calls > b.s2_calls || reads > b.reads || depth > b.depth) over += 1;
    calls = 0;
    reads = 0;
    depth = 0;
  }
  return over;
}

/** The cause a fault's ground truth names: `service_down(nginx)` → service_down. */
const causeOf = (truth: string): string => /^[a-z_]+/.exec(truth)?.[0] ?? truth;

function faultCase(name: FaultName): Case {
  const f = FAULTS.find((x) => x.name === name);
  if (f === undefined) throw new Error(`no fault ${name}`);
  return {
    name,
    cause: f.uncovered === true ? null : causeOf(f.cause),
    service: f.service,
    // `LabSiteDown (nginx)` belongs to another service's episode.
    alerts: f.alerts.filter((a) => !a.includes('(')),
    start: (lab) => inject(lab.state, name),
    end: async (lab) => {
      await heal(lab.state, name);
    },
  };
}

const decisiveOf = (h: Hypothesis): boolean =>
  h.confidence === 'proven' || h.confidence === 'linked';

/**
 * The graded score of one decision: the true cause leading, proven or linked, on its service
 * 100; named but held, or decisive one link away, 65; nothing wrong and the true service's
 * causes left open (abstained), 35; a wrong cause proven or linked, 0. Where no pack knows the
 * cause (or there is none), abstaining is the exact answer.
 */
function scoreOf(c: Pick<Case, 'cause' | 'service'>, hs: readonly Hypothesis[]): number {
  const wrong = hs.some((h) => decisiveOf(h) && (c.cause === null || h.cause !== c.cause));
  if (wrong) return 0;
  if (c.cause === null) return 100;
  const lead = hs.find(decisiveOf);
  if (lead?.cause === c.cause && lead.service === c.service) return 100;
  if (lead?.cause === c.cause) return 65;
  if (
    hs.some(
      (h) => h.cause === c.cause && (h.confidence === 'suspected' || h.confidence === 'disputed'),
    )
  )
    return 65;
  return 35;
}

async function events(a: Api, after: number): Promise<Event[]> {
  const page = await api<{ events: Event[] }>(
    a,
    'GET',
    `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}&type=signal.fired,episode.,investigation.,decision.,approval.requested`,
  );
  return page.events;
}

async function headSeq(a: Api): Promise<number> {
  const page = await api<{ events: Event[] }>(a, 'GET', '/v1/ledger?order=desc&limit=1');
  return page.events[0]?.seq ?? 0;
}

/** The first decision for an episode of the case's service after `after`, with what led to it. */
async function measure(a: Api, c: Case, after: number, run: number, waitMs: number): Promise<Run> {
  const deadline = Date.now() + waitMs;
  const episodes = new Map<string, string>(); // episode → service
  const fired = new Map<string, string>(); // episode → first signal ts after `after`
  const lastFired: { ts: string | null } = { ts: null };
  const hypotheses = new Map<string, Hypothesis[]>();
  const ours = new Set<string>(); // episodes whose current round saw the case's alerts
  let seen = after;
  while (Date.now() < deadline) {
    for (const e of await events(a, seen)) {
      seen = e.seq;
      const id = typeof e.data['episode_id'] === 'string' ? e.data['episode_id'] : null;
      if (e.type === 'signal.fired') lastFired.ts = e.ts;
      if ((e.type === 'episode.opened' || e.type === 'episode.joined') && id !== null) {
        episodes.set(id, String(e.data['service']));
        if (!fired.has(id)) fired.set(id, lastFired.ts ?? e.ts);
      }
      if (e.type === 'investigation.hypotheses' && id !== null)
        hypotheses.set(id, (e.data['hypotheses'] as Hypothesis[] | undefined) ?? []);
      if (e.type === 'investigation.started' && id !== null) {
        if (!episodes.has(id)) {
          const ep = await api<{ service: string }>(a, 'GET', `/v1/episodes/${id}`);
          episodes.set(id, ep.service);
          fired.set(id, lastFired.ts ?? e.ts);
        }
        // Only a round that sees one of the case's own alerts is measured.
        const seen = (e.data['alerts'] as string[] | undefined) ?? [];
        if (seen.some((n) => c.alerts.includes(n))) ours.add(id);
        else ours.delete(id);
      }
      if (e.type !== 'decision.made' || id === null || episodes.get(id) !== c.service) continue;
      if (!ours.has(id)) continue;
      const hs = hypotheses.get(id) ?? [];
      const lead = hs[0];
      const provenWrong = hs.some(
        (h) => h.confidence === 'proven' && (c.cause === null || h.cause !== c.cause),
      );
      const named = lead === undefined ? '—' : `${lead.cause}(${lead.service})`;
      const right =
        c.cause === null
          ? !hs.some(decisiveOf)
          : lead !== undefined && lead.cause === c.cause && decisiveOf(lead);
      const ep = await api<{ t_open: string; handover_s: number | null }>(
        a,
        'GET',
        `/v1/episodes/${id}`,
      );
      const handover = e.data['handover'] === true || e.data['next'] === 'ask';
      const fix = (e.data['fix'] ?? null) as { id: string; unfit?: string } | null;
      return {
        case: c.name,
        run,
        episode: id,
        named,
        confidence: lead?.confidence ?? 'unproven',
        right,
        wrong_proven: provenWrong,
        uncovered: c.cause === null,
        score: scoreOf(c, hs),
        fix: fix?.id ?? null,
        fix_fits: fix === null ? null : fix.unfit === undefined,
        seconds: (Date.parse(e.ts) - Date.parse(fired.get(id) ?? ep.t_open)) / 1000,
        decision: String(e.data['decision']),
        // From the alert that started this round: an episode rejoined minutes later keeps
        // its old t_open, which would measure the earlier fault's time.
        handover_s: handover
          ? Math.round((Date.parse(e.ts) - Date.parse(fired.get(id) ?? ep.t_open)) / 1000)
          : null,
        model: NO_COST,
      };
    }
    await sleep(1000);
  }
  return {
    case: c.name,
    run,
    episode: null,
    named: '— (no decision)',
    confidence: '',
    right: false,
    wrong_proven: false,
    uncovered: c.cause === null,
    score: 0,
    fix: null,
    fix_fits: null,
    seconds: null,
    decision: '',
    handover_s: null,
    model: NO_COST,
  };
}

/** System 2's events for the episode since `after`: its calls (note included) and reads. */
async function costOf(a: Api, episode: string | null, after: number): Promise<ModelCost> {
  if (episode === null) return NO_COST;
  const page = await api<{ events: Event[] }>(
    a,
    'GET',
    `/v1/ledger?order=asc&limit=2000&after_seq=${String(after)}&type=model.&trace=${episode}`,
  );
  const calls = page.events.filter((e) => e.type === 'model.called' && e.data['system'] === 's2');
  const n = (e: Event, k: string): number => Number(e.data[k] ?? 0);
  return {
    calls: calls.length,
    tokens: calls.reduce((t, e) => t + n(e, 'prompt_tokens') + n(e, 'completion_tokens'), 0),
    seconds: calls.reduce((t, e) => t + n(e, 'seconds'), 0),
    reads: page.events.filter((e) => e.type === 'model.proposed').length,
    failed: calls.filter((e) => e.data['ok'] !== true).length,
    over_bounds: overBounds(page.events),
    replayed: calls.filter((e) => e.data['cached'] === true).length,
  };
}

/** The episode's note is its last model call: wait (up to 10 s) for it. */
async function noted(a: Api, episode: string | null, after: number): Promise<void> {
  if (episode === null) return;
  for (let i = 0; i < 20; i += 1) {
    const page = await api<{ events: Event[] }>(
      a,
      'GET',
      `/v1/ledger?order=asc&limit=10&after_seq=${String(after)}&type=investigation.note&trace=${episode}`,
    );
    if (page.events.length > 0) return;
    await sleep(500);
  }
}

async function withdrawPending(a: Api): Promise<void> {
  const list = await api<{ requests: { request_id: string }[] }>(
    a,
    'GET',
    '/v1/approvals?status=pending&limit=100',
  );
  for (const r of list.requests)
    await api(a, 'POST', `/v1/approvals/${r.request_id}/withdraw`, {
      reason: 'benchmark run over',
    });
}

/**
 * Wait (up to 10 s) until the measured round is past its decision step: an approval request
 * opens just after decision.made, and a request left pending keeps the episode waiting, so a
 * later case on the same service would start no round of its own.
 */
async function settled(a: Api, episode: string | null): Promise<void> {
  if (episode === null) return;
  for (let i = 0; i < 20; i += 1) {
    const ep = await api<{ investigation: { status: string } | null }>(
      a,
      'GET',
      `/v1/episodes/${episode}`,
    );
    if (ep.investigation?.status !== 'running') return;
    await sleep(500);
  }
}

/** Wait (up to 90 s) until no episode has an alert firing, so cases do not overlap. */
async function quiet(a: Api): Promise<void> {
  for (let i = 0; i < 90; i += 1) {
    const live = await api<{ running: { status: string }[] }>(a, 'GET', '/v1/live');
    if (live.running.every((r) => r.status !== 'open')) return;
    await sleep(1000);
  }
}

/** L1 everywhere: a raise needs two approvers, so two people are made and approve it. */
async function raiseToL1(a: Api): Promise<void> {
  const tokens: string[] = [];
  for (const who of ['ann', 'bob']) {
    const s = await api<{ token: string }>(a, 'POST', '/v1/auth/bootstrap', {
      email: `${who}@bench.example`,
      name: who,
    });
    tokens.push(s.token);
  }
  const asked = await api<{ request?: { request_id: string } }>(a, 'POST', '/v1/autonomy', {
    service: '*',
    level: 'L1',
  });
  const id = asked.request?.request_id;
  if (id === undefined) return; // already L1
  for (const token of tokens)
    await api({ url: a.url, token }, 'POST', `/v1/approvals/${id}/approve`, {
      reason: 'benchmark',
    });
  const view = await api<{ default: string }>(a, 'GET', '/v1/autonomy');
  if (view.default !== 'L1')
    throw new Error(`autonomy is ${view.default}, not L1, after the raise`);
}

/** The estate's services and links, which `linked` causes and dependency checks need. */
async function discover(a: Api): Promise<void> {
  const { job_id } = await api<{ job_id: string }>(a, 'POST', '/v1/discover');
  for (let i = 0; i < 60; i += 1) {
    const job = await api<{ status: string }>(a, 'GET', `/v1/jobs/${job_id}`);
    if (job.status !== 'running') return;
    await sleep(1000);
  }
  throw new Error('discovery did not finish in 60 s');
}

/** The nearest-rank percentile (p in 0..100). */
export const percentile = (xs: number[], p: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? null;
};

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((x, y) => x - y);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] ?? null) : ((s[m - 1] ?? 0) + (s[m] ?? 0)) / 2;
};

/** The tiny model served on loopback, for the runs that may ask it (record, auto). */
async function modelEndpoint(dir: string, m: ModelSetup | null) {
  if (m === null || m.replay === 'replay') return null;
  const client = await createLocalRuntime({
    modelPath: await writeTinyGguf(join(dir, 'tiny.gguf')),
    gpu: false,
    threads: 1,
  });
  const endpoint = await startLocalEndpoint({ client, port: 0, host: '127.0.0.1' });
  return {
    url: endpoint.url,
    close: async () => {
      await endpoint.close();
      await client.close();
    },
  };
}

function modelEnv(m: ModelSetup | null, url: string | null): Record<string, string> {
  if (m === null) return {};
  return {
    SVC_MODEL: 'tiny',
    SVC_MODEL_CASSETTE: m.cassetteDir,
    SVC_MODEL_REPLAY: m.replay,
    SVC_INVESTIGATOR: m.investigator,
    // A replayed answer takes no time; a recorded one from the tiny model well under this.
    SVC_MODEL_TIMEOUT_S: '20',
    SVC_S1_URL: 'http://127.0.0.1:9/v1',
    SVC_S1_TIMEOUT_S: '1',
    ...(url !== null && { SVC_MODEL_URL: url }),
  };
}

export async function runDiagnosis(o: DiagnosisOptions): Promise<Run[]> {
  const parent = mkdtempSync(join(tmpdir(), 'bench-diagnosis-'));
  const endpoint = await modelEndpoint(parent, o.models);
  const runs: Run[] = [];
  try {
    const lab = await startLab({
      dir: join(parent, 'lab'),
      net: o.net,
      log: o.log,
      serviceEnv: modelEnv(o.models, endpoint?.url ?? null),
    });
    try {
      await discover(lab.api);
      await raiseToL1(lab.api);
      const cases = FAULTS.map((f) => faultCase(f.name)).filter(
        (c) => o.only.length === 0 || o.only.includes(c.name),
      );
      for (let run = 1; run <= o.runs; run += 1) {
        for (const c of cases) {
          const after = await headSeq(lab.api);
          await c.start(lab);
          const measured = await measure(lab.api, c, after, run, o.waitMs);
          await settled(lab.api, measured.episode);
          await c.end(lab);
          await withdrawPending(lab.api);
          // A round waiting for approval finishes (and gets its note) once withdrawn.
          if (o.models !== null) await noted(lab.api, measured.episode, after);
          const r = { ...measured, model: await costOf(lab.api, measured.episode, after) };
          runs.push(r);
          o.log(
            `${c.name} #${String(run)}: ${r.named} ${r.confidence} ${r.right ? 'right' : 'WRONG'} ${r.seconds === null ? '-' : r.seconds.toFixed(1)} s ${r.decision}` +
              (o.models === null
                ? ''
                : `; System 2 ${String(r.model.calls)} call(s), ${String(r.model.tokens)} tokens, ${String(r.model.reads)} read(s)`),
          );
          await quiet(lab.api);
        }
      }
    } finally {
      await lab.stop();
    }
  } finally {
    await endpoint?.close();
    rmSync(parent, { recursive: true, force: true });
  }
  return runs;
}

export interface Summary {
  runs: number;
  right_share: number | null;
  wrong_proven: number;
  /** right on the faults a pack covers, and abstained (or asked) on those none covers */
  covered_right_share: number | null;
  uncovered_abstained_share: number | null;
  /** the graded score, mean over runs (0 to 100) */
  graded_score: number | null;
  /** decisions that named a fix, and of those the ones whose fix fits the symptom */
  fixes_named: number;
  fixes_fitting: number;
  median_alert_to_diagnosis_s: number | null;
  p95_alert_to_diagnosis_s: number | null;
  handovers: number;
  handovers_within_90_s: number;
  /** per measured episode, mean */
  model_calls: number;
  model_tokens: number;
  model_seconds: number;
  model_reads: number;
  model_failed: number;
  /** investigator runs past a bound, in all */
  model_over_bounds: number;
  /** the share of System 2's calls answered from the cassette; null when none was made */
  model_replayed_share: number | null;
}

export function summarize(runs: readonly Run[]): Summary {
  const right = runs.filter((r) => r.right).length;
  const seconds = runs.flatMap((r) => (r.seconds === null ? [] : [r.seconds]));
  const handovers = runs.flatMap((r) => (r.handover_s === null ? [] : [r.handover_s]));
  const mean = (f: (c: ModelCost) => number): number =>
    runs.length === 0 ? 0 : runs.reduce((t, r) => t + f(r.model), 0) / runs.length;
  const share = (xs: readonly Run[], f: (r: Run) => boolean): number | null =>
    xs.length === 0 ? null : xs.filter(f).length / xs.length;
  const covered = runs.filter((r) => !r.uncovered);
  const uncovered = runs.filter((r) => r.uncovered);
  const named = runs.filter((r) => r.fix !== null);
  return {
    runs: runs.length,
    right_share: runs.length === 0 ? null : right / runs.length,
    wrong_proven: runs.filter((r) => r.wrong_proven).length,
    covered_right_share: share(covered, (r) => r.right),
    uncovered_abstained_share: share(uncovered, (r) => r.right),
    graded_score: runs.length === 0 ? null : runs.reduce((t, r) => t + r.score, 0) / runs.length,
    fixes_named: named.length,
    fixes_fitting: named.filter((r) => r.fix_fits === true).length,
    median_alert_to_diagnosis_s: median(seconds),
    p95_alert_to_diagnosis_s: percentile(seconds, 95),
    handovers: handovers.length,
    handovers_within_90_s: handovers.filter((h) => h <= 90).length,
    model_calls: mean((c) => c.calls),
    model_tokens: mean((c) => c.tokens),
    model_seconds: mean((c) => c.seconds),
    model_reads: mean((c) => c.reads),
    model_failed: mean((c) => c.failed),
    model_over_bounds: runs.reduce((t, r) => t + r.model.over_bounds, 0),
    model_replayed_share: ((all) =>
      all === 0 ? null : runs.reduce((t, r) => t + r.model.replayed, 0) / all)(
      runs.reduce((t, r) => t + r.model.calls, 0),
    ),
  };
}

export function print(runs: readonly Run[]): Summary {
  const pad = (t: string, n: number): string => t.padEnd(n);
  console.log(
    `${pad('case', 23)}${pad('run', 5)}${pad('named cause', 34)}${pad('confidence', 12)}${pad('right', 7)}${pad('score', 7)}${pad('alert→diagnosis', 17)}${pad('decision', 18)}${pad('fix (fits)', 22)}${pad('handover', 10)}models`,
  );
  for (const r of runs)
    console.log(
      `${pad(r.case, 23)}${pad(String(r.run), 5)}${pad(r.named, 34)}${pad(r.confidence, 12)}${pad(r.right ? 'yes' : 'NO', 7)}${pad(String(r.score), 7)}${pad(r.seconds === null ? '-' : `${r.seconds.toFixed(1)} s`, 17)}${pad(r.decision, 18)}${pad(r.fix === null ? '-' : `${r.fix} (${r.fix_fits === true ? 'fits' : 'no'})`, 22)}${pad(r.handover_s === null ? '-' : `${String(r.handover_s)} s`, 10)}${String(r.model.calls)} calls, ${String(r.model.tokens)} tokens, ${String(r.model.reads)} reads`,
    );
  const summary = summarize(runs);
  console.log(JSON.stringify(summary, null, 2));
  return summary;
}
