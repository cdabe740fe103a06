// The checkpoint kept outside the database and the pinned install key, on real SQLite files
// and the real server process (dist/server.mjs): a lost tail, an older database file and a
// swapped key with re-sealed segments are refused at start and reported by verify.
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { createRuntime } from '../compose/index.js';
import { asAdmin, buildTestServer, testEnv, type TestServer } from '../testing/test-server.js';
import { childEnv, freePort, requireBundle, ROOT, runCli, SERVER } from '../testing/processes.js';
import { formatMessage } from '../syslog/index.js';
import { parseCheckpoint, sealHash, signCheckpoint } from './checkpoint.js';
import { INSTALL_KEY_FILE, loadOrCreateInstallKey } from './install-key.js';

requireBundle();

const CHECKPOINT_FILE = 'ledger-checkpoint.txt';

interface VerifyBody {
  ok: boolean;
  checked: number;
  head: { seq: number };
  failure: { seq: number; check: string; segment: number | null; message: string } | null;
}

const temps: string[] = [];
afterAll(() => {
  for (const t of temps) rmSync(t, { recursive: true, force: true });
});

/** Start the real server on a folder; how it ended, or `started` once it answered /health. */
async function start(
  dir: string,
): Promise<{ started: boolean; code: number | null; stderr: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER], {
    env: childEnv(
      testEnv(dir, join(dir, 'machine-id'), { SVC_PORT: String(port), SVC_BIND: '127.0.0.1' }),
    ),
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  let code: number | null | undefined;
  void exited.then((c) => (code = c));
  const until = Date.now() + 20_000;
  while (code === undefined && Date.now() < until) {
    const up = await fetch(`http://127.0.0.1:${String(port)}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) {
      child.kill('SIGTERM');
      await exited;
      return { started: true, code: null, stderr };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  if (code === undefined) child.kill('SIGKILL');
  return { started: false, code: (await exited) ?? null, stderr };
}

/** Verify a data folder as a fresh process would: a new runtime on the file. */
async function verifyFolder(dir: string, checkpoint?: string) {
  const config = loadConfig(testEnv(dir, join(dir, 'machine-id')));
  const rt = createRuntime(config, { log: createLogger('silent'), readOnly: true });
  try {
    return await rt.reader.verify(checkpoint !== undefined ? { checkpoint } : {});
  } finally {
    rt.close();
  }
}

const headOf = (dir: string): number => {
  const db = new Database(join(dir, 'data', 'svc.db'), { readonly: true });
  try {
    return (db.prepare('SELECT max(seq) AS seq FROM ledger').get() as { seq: number }).seq;
  } finally {
    db.close();
  }
};

describe('the checkpoint outside the database', () => {
  let s: TestServer;
  let oldCopy: string; // svc.db backed up after the first seal
  let oldHead: number;
  let seal1: string;
  let seal2: string;
  let beside: string | null; // the file beside the database while the server ran
  let syslogLine: string; // the newest seal as syslog receives it (UDP, 2 KiB at most)

  const bulk = (from: number, n: number): Promise<void> =>
    s.runtime.writer.transact(() => {
      for (let i = from; i < from + n; i++)
        s.runtime.ledger.append({
          type: 'check.ran',
          actor: 'svc',
          data: { episode_id: 'ep-bulk', finding: null, i },
        });
    });
  const sealed = async (n: number): Promise<void> => {
    const until = Date.now() + 10_000;
    // Sealed, and the seal's commit answered (its after-commit work, the file, follows the sync).
    while (
      (s.runtime.ledgerStore.lastSegment()?.last_seq ?? 0) < n ||
      s.runtime.ledger.headSeq() < s.runtime.ledger.head().seq
    ) {
      if (Date.now() > until) throw new Error(`not sealed through ${String(n)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  /** A copy of the stopped server's folder. */
  const copy = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cpfile-'));
    temps.push(dir);
    cpSync(s.dir, dir, { recursive: true });
    return dir;
  };
  const openTampered = (dir: string): Database.Database => {
    const db = new Database(join(dir, 'data', 'svc.db'));
    db.exec(
      'DROP TRIGGER ledger_no_delete; DROP TRIGGER ledger_segments_no_update; DROP TRIGGER ledger_segments_no_delete;',
    );
    return db;
  };

  beforeAll(async () => {
    s = await buildTestServer();
    await bulk(0, 1400);
    await sealed(1000);
    seal1 = s.runtime.ledgerStore.lastSegment()?.checkpoint ?? '';
    const tmp = mkdtempSync(join(tmpdir(), 'svc-old-'));
    temps.push(tmp);
    oldCopy = join(tmp, 'svc.db');
    await s.runtime.db.backup(oldCopy);
    oldHead = s.runtime.ledger.head().seq;
    await bulk(1400, 700);
    await sealed(2000);
    seal2 = s.runtime.ledgerStore.lastSegment()?.checkpoint ?? '';
    const sealEvent = s.runtime.reader.list({ type: 'ledger.sealed', limit: 1 }).events[0];
    if (sealEvent === undefined) throw new Error('no ledger.sealed event');
    syslogLine = formatMessage(sealEvent, {
      facility: 10,
      hostname: 'h',
      appName: 'svc',
      procId: '1',
      maxBytes: 2048,
    }).line;
    const file = join(s.dir, 'data', CHECKPOINT_FILE);
    beside = existsSync(file) ? readFileSync(file, 'utf8') : null;
    await s.stop();
  });
  afterAll(async () => {
    await s.cleanup();
  });

  it('every seal is saved beside the database; an untouched folder starts and verifies', async () => {
    expect(beside).toBe(seal2);
    expect(parseCheckpoint(seal2).body.size).toBe(2000);
    const dir = copy();
    expect(await verifyFolder(dir)).toMatchObject({ ok: true, failure: null });
    expect(await start(dir)).toMatchObject({ started: true });
  });

  it('an older database file restored: refused at start, naming the checkpoint file and the command; verify reports it', async () => {
    const dir = copy();
    const data = join(dir, 'data');
    rmSync(join(data, 'svc.db-wal'), { force: true });
    rmSync(join(data, 'svc.db-shm'), { force: true });
    cpSync(oldCopy, join(data, 'svc.db'));
    const file = join(data, CHECKPOINT_FILE);

    const r = await start(dir);
    expect(r.started).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the service could not start: the ledger does not match the checkpoint saved in ${file}: the saved checkpoint covers seq 2000 but the ledger ends at seq ${String(oldHead)}`,
    );
    expect(r.stderr).toContain(`svc-core ledger-verify --checkpoint ${file}`);
    expect(headOf(dir)).toBe(oldHead); // nothing was appended

    expect((await verifyFolder(dir)).failure).toMatchObject({
      seq: oldHead + 1,
      check: 'checkpoint',
    });
  });

  it('a folder restored whole (file and all): only the syslog copy of the newest seal catches it', async () => {
    const dir = copy();
    const data = join(dir, 'data');
    rmSync(join(data, 'svc.db-wal'), { force: true });
    rmSync(join(data, 'svc.db-shm'), { force: true });
    cpSync(oldCopy, join(data, 'svc.db'));
    writeFileSync(join(data, CHECKPOINT_FILE), seal1); // the backup's own file
    expect(await verifyFolder(dir)).toMatchObject({ ok: true, failure: null });

    // What the collector kept: the JSON after the RFC 5424 header holds the checkpoint.
    const json = JSON.parse(syslogLine.slice(syslogLine.indexOf(' {"type"') + 1)) as {
      data: { checkpoint: string };
    };
    expect(json.data.checkpoint).toBe(seal2);
    const saved = join(dir, 'from-syslog.txt');
    writeFileSync(saved, json.data.checkpoint);
    const r = await runCli(testEnv(dir, join(dir, 'machine-id')), [
      'ledger-verify',
      '--checkpoint',
      saved,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `ledger verify FAILED at seq ${String(oldHead + 1)} (checkpoint): the saved checkpoint covers seq 2000 but the ledger ends at seq ${String(oldHead)}`,
    );
  });

  it('the sealed tail deleted with its seal: refused at start; verify reports it', async () => {
    const dir = copy();
    const db = openTampered(dir);
    db.prepare('DELETE FROM ledger_segments WHERE segment = 2').run();
    db.prepare('DELETE FROM ledger WHERE seq > 1000').run();
    db.close();

    const r = await start(dir);
    expect(r.started).toBe(false);
    expect(r.stderr).toContain(
      'the saved checkpoint covers seq 2000 but the ledger ends at seq 1000',
    );
    expect(headOf(dir)).toBe(1000);
    expect((await verifyFolder(dir)).failure).toMatchObject({ seq: 1001, check: 'checkpoint' });
  });

  it('a swapped install key with every segment re-sealed by it: refused at start; verify fails on the pinned key', async () => {
    const dir = copy();
    const data = join(dir, 'data');
    const pinned = s.runtime.keyFingerprint;
    rmSync(join(data, INSTALL_KEY_FILE));
    const forged = loadOrCreateInstallKey(data, { fips: false, name: 'forged' });
    const name = `svc-ledger-${forged.fingerprint.slice(0, 16).toLowerCase()}`;
    const db = openTampered(dir);
    const rows = db
      .prepare<[], { segment: number; checkpoint: string }>(
        'SELECT segment, checkpoint FROM ledger_segments ORDER BY segment',
      )
      .all();
    let prev: string | null = null;
    for (const row of rows) {
      const body = parseCheckpoint(row.checkpoint).body;
      const note = signCheckpoint(
        { ...body, origin: name, prevSealHash: prev === null ? null : sealHash(prev) },
        { ...forged, name },
      );
      db.prepare('UPDATE ledger_segments SET checkpoint = ? WHERE segment = ?').run(
        note,
        row.segment,
      );
      prev = note;
    }
    db.close();
    // The copy beside the database goes too: the pin alone must catch the swap.
    rmSync(join(data, CHECKPOINT_FILE), { force: true });
    const head = headOf(dir);

    const report = await verifyFolder(dir);
    expect(report.failure).toMatchObject({ seq: 1, check: 'seal' });
    expect(report.failure?.message).toContain(pinned);
    expect(report.failure?.message).toContain(forged.fingerprint);

    const r = await start(dir);
    expect(r.started).toBe(false);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      `the service could not start: the install key ${join(data, INSTALL_KEY_FILE)} has fingerprint ${forged.fingerprint}, but this install's ledger pins ${pinned}`,
    );
    expect(headOf(dir)).toBe(head);
  });

  it('GET /v1/ledger/verify takes a saved checkpoint: behind it is a checkpoint failure; a malformed one is 400', async () => {
    const dir = copy();
    const data = join(dir, 'data');
    rmSync(join(data, 'svc.db-wal'), { force: true });
    rmSync(join(data, 'svc.db-shm'), { force: true });
    cpSync(oldCopy, join(data, 'svc.db'));
    rmSync(join(data, CHECKPOINT_FILE), { force: true }); // restored with its folder: only a copy elsewhere knows
    const b = await buildTestServer({ dir });
    try {
      // Started without the file: it is written again from the newest seal in the database.
      expect(existsSync(join(data, CHECKPOINT_FILE))).toBe(true);
      const ask = (checkpoint: string) =>
        b.app.inject({
          method: 'GET',
          url: `/v1/ledger/verify?checkpoint=${encodeURIComponent(checkpoint)}`,
          headers: asAdmin(),
        });
      const good = await ask(seal1);
      expect(good.statusCode, good.body).toBe(200);
      expect(good.json<VerifyBody>()).toMatchObject({ ok: true, failure: null });

      const behind = await ask(seal2);
      expect(behind.statusCode).toBe(200);
      const body = behind.json<VerifyBody>();
      expect(body.ok).toBe(false);
      expect(body.failure).toMatchObject({ check: 'checkpoint', seq: body.head.seq + 1 });
      expect(body.failure?.message).toContain('the saved checkpoint covers seq 2000');

      const bad = await ask('not a checkpoint');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: 'invalid_input', field: 'checkpoint' });
    } finally {
      await b.cleanup();
    }
  });
});
