// The floor under durable alert intake: what the SQLite writes of one new firing alert
// cost by themselves, as raw prepared statements on the service's own schema (its
// migrations, a fresh data folder), with none of the service's JavaScript around them: the
// signal.fired and episode.joined rows in the ledger (chain hash included, all five
// indexes), the signals row, the episode_signals row and the episode's update, committed
// in groups of the size the service's writer made. No thread can run these writes for
// less, so together with the request handling they bound any write path on this machine.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../server/config.js';
import { createRuntime } from '../server/compose/index.js';
import { createLogger } from '../server/logger.js';
import { makeDataDir, testEnv } from '../server/testing/test-server.js';

const ALERTS = 40_000;
const EPISODES = 200;

export interface SqlFloor {
  readonly alertsPerS: number;
  readonly cpuMsPerAlert: number;
  readonly batch: number;
}

/** The writes of ALERTS new alerts over EPISODES open episodes, `batch` alerts a commit. */
export async function intakeSqlFloor(batch: number): Promise<SqlFloor> {
  const { dir, machineIdFile } = makeDataDir();
  try {
    const config = loadConfig(testEnv(dir, machineIdFile, { SVC_INSTANCE: 'bench' }));
    const rt = createRuntime(config, { log: createLogger('silent') });
    const file = rt.db.name;
    rt.close();
    return measure(file, Math.max(1, Math.round(batch)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function measure(file: string, batch: number): SqlFloor {
  const db = new Database(file);
  try {
    // As the service's writer: WAL, the commit synced (it syncs the WAL before answering).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    const head = db.prepare('SELECT seq, hash FROM ledger ORDER BY seq DESC LIMIT 1').get() as
      { seq: number; hash: Buffer } | undefined;
    let seq = head?.seq ?? 0;
    let prev = head?.hash ?? Buffer.alloc(32);
    const insertEvent = db.prepare(
      `INSERT INTO ledger (seq, ts, type, category, actor, data, reason, trace_id, hash)
       VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)`,
    );
    const append = (type: string, actor: string, data: object, trace: string): number => {
      seq += 1;
      const ts = new Date().toISOString();
      const text = JSON.stringify(data);
      const canonical = JSON.stringify({ seq, ts, type, actor, data: text, trace_id: trace });
      prev = createHash('sha256').update(prev).update(canonical).digest();
      insertEvent.run(seq, ts, type, type.slice(0, type.indexOf('.')), actor, text, trace, prev);
      return seq;
    };
    const insertSignal = db.prepare(
      `INSERT INTO signals (source, fingerprint, name, status, severity, service, resource,
         started_at, ended_at, summary, labels, link, fired, first_seq, last_seq)
       VALUES ('alertmanager', ?, 'BenchAlert', 'firing', 'warning', ?, ?, ?, NULL, ?, ?, NULL, 1, ?, ?)`,
    );
    const insertMember = db.prepare(
      `INSERT INTO episode_signals (episode_id, source, fingerprint, name)
       VALUES (?, 'alertmanager', ?, 'BenchAlert')`,
    );
    const joinEpisode = db.prepare(
      'UPDATE episodes SET firing = firing + 1, last_seq = ? WHERE episode_id = ?',
    );
    const openEpisode = db.prepare(
      `INSERT INTO episodes (episode_id, service, status, step, kind, t_open, alerts, firing,
         autonomy, first_seq, last_seq)
       VALUES (?, ?, 'open', 'investigating', 'alert', ?, '["BenchAlert"]', 0, 'shadow', 0, 0)`,
    );
    db.transaction(() => {
      for (let e = 0; e < EPISODES; e++)
        openEpisode.run(`ep-floor-${String(e)}`, `svc-${String(e)}`, new Date().toISOString());
    })();
    const group = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const episode = `ep-floor-${String(i % EPISODES)}`;
        const service = `svc-${String(i % EPISODES)}`;
        const fingerprint = `floor-${String(i)}`;
        const labels = {
          alertname: 'BenchAlert',
          instance: `host-${String(i)}`,
          job: 'node',
          service,
          severity: 'warning',
        };
        const summary = `bench alert ${String(i)}`;
        const startedAt = new Date().toISOString();
        const fired = append(
          'signal.fired',
          'source:alertmanager',
          { source: 'alertmanager', fingerprint, name: 'BenchAlert', service, labels, summary },
          episode,
        );
        insertSignal.run(
          fingerprint,
          service,
          labels.instance,
          startedAt,
          summary,
          JSON.stringify(labels),
          fired,
          fired,
        );
        const joined = append(
          'episode.joined',
          'system',
          { episode_id: episode, source: 'alertmanager', fingerprint, name: 'BenchAlert' },
          episode,
        );
        insertMember.run(episode, fingerprint);
        joinEpisode.run(joined, episode);
      }
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (let i = 0; i < ALERTS; i += batch) group(i, Math.min(ALERTS, i + batch));
    const wallS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    return {
      alertsPerS: ALERTS / wallS,
      cpuMsPerAlert: (cpu.user + cpu.system) / 1000 / ALERTS,
      batch,
    };
  } finally {
    db.close();
  }
}

/** For a look on its own: `npx tsx bench/intake-floor.ts [batch]`. */
if (process.argv[1]?.endsWith(join('bench', 'intake-floor.ts'))) {
  const floor = await intakeSqlFloor(Number(process.argv[2] ?? 16));
  process.stdout.write(`${JSON.stringify(floor)}\n`);
}
