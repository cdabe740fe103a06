// The lab's resource hogs, run detached by the faults so they outlive the command that
// injected them (heal, or the gate's fix, ends them):
//   node hog.mjs memory <bytes>        holds that much touched memory
//   node hog.mjs cpu <threads>         busy loops (the lab starts it under nice 19)
//   node hog.mjs connections <n>       holds n idle PostgreSQL sessions (LAB_PG_* settings)
//   node hog.mjs lock <table>          holds ACCESS EXCLUSIVE on a table in an open transaction
//   node hog.mjs listen <host:port>    holds a listening socket (another process on a service's port)
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { setInterval } from 'node:timers';
import { Worker } from 'node:worker_threads';
import pg from 'pg';

const [mode, amount] = process.argv.slice(2);
const n = Number(amount);
const forever = () => setInterval(() => undefined, 60_000);

if (mode === 'memory') {
  const chunks = [];
  for (let left = n; left > 0; left -= 256 * 1024 * 1024) {
    // fill() touches every page, so the memory is resident, not just reserved.
    chunks.push(Buffer.alloc(Math.min(left, 256 * 1024 * 1024)).fill(1));
  }
  globalThis.held = chunks;
  forever();
} else if (mode === 'cpu') {
  for (let i = 1; i < n; i += 1) new Worker('for (;;) {}', { eval: true });
  for (;;) {
    // busy on the main thread too
  }
} else if (mode === 'connections') {
  const env = process.env;
  const password = readFileSync(env.LAB_PG_PASSWORD_FILE ?? '', 'utf8').trim();
  const held = [];
  for (let i = 0; i < n; i += 1) {
    const c = new pg.Client({
      host: env.LAB_PG_HOST,
      port: Number(env.LAB_PG_PORT),
      database: env.LAB_PG_DATABASE,
      user: env.LAB_PG_USER,
      password,
      application_name: 'lab-batch',
    });
    c.on('error', () => undefined);
    try {
      await c.connect();
      held.push(c);
    } catch {
      break; // the server is full: holding what we have is the fault
    }
  }
  globalThis.held = held;
  forever();
} else if (mode === 'listen') {
  const { createServer } = await import('node:net');
  const at = String(amount);
  const colon = at.lastIndexOf(':');
  createServer((c) => c.destroy()).listen(Number(at.slice(colon + 1)), at.slice(0, colon));
  forever();
} else if (mode === 'lock') {
  const env = process.env;
  const c = new pg.Client({
    host: env.LAB_PG_HOST,
    port: Number(env.LAB_PG_PORT),
    database: env.LAB_PG_DATABASE,
    user: env.LAB_PG_USER,
    application_name: 'lab-lock',
  });
  c.on('error', () => undefined);
  await c.connect();
  await c.query('BEGIN');
  await c.query(`LOCK TABLE ${pg.escapeIdentifier(String(amount))} IN ACCESS EXCLUSIVE MODE`);
  globalThis.held = c;
  forever();
} else {
  process.stderr.write(`hog.mjs: unknown mode ${String(mode)}\n`);
  process.exit(2);
}
