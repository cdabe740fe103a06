// The lab's web app ("shop"): a small HTTP app behind nginx that serves its home page from
// PostgreSQL through a small pg pool. Its settings come from the config file deployed from
// the lab's git repository (LAB_APP_CONFIG); it re-reads the file when it changes, so a
// deploy or a restore takes effect without a restart, as many real apps do on SIGHUP.
//
//   GET /         the page (slow by `slow_ms` when the config says so)
//   GET /healthz  200 "ok" when a pooled connection answers SELECT 1, else 503
//   GET /metrics  Prometheus text
//
// Idle pooled connections are never closed, so the connection to PostgreSQL stays
// observable (ss) between requests, which is how discovery links app → postgresql.
import { readFileSync, statSync, writeSync } from 'node:fs';
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { setImmediate, setTimeout } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const CONFIG = process.env.LAB_APP_CONFIG ?? '';
const LISTEN = process.env.LAB_APP_LISTEN ?? '127.0.1.2:8080';
const PASSWORD_FILE = process.env.LAB_APP_DB_PASSWORD_FILE ?? '';
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

// Synchronous and forgiving: a full disk (the disk-full fault) must not crash the app.
const log = (msg) => {
  try {
    writeSync(1, `${new Date().toISOString()} app: ${msg}\n`);
  } catch {
    // the log volume is full or gone; keep serving
  }
};

let config = null;
let configMtime = 0;
let pool = null;
let checkedAt = 0;
const requests = new Map(); // `${path} ${code}` → count
const histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
const started = Date.now() / 1000;

function readConfig() {
  const c = JSON.parse(readFileSync(CONFIG, 'utf8'));
  const db = c.database ?? {};
  return {
    title: String(c.title ?? 'Lab shop'),
    pool_size: Number.isInteger(c.pool_size) && c.pool_size > 0 ? c.pool_size : 5,
    slow_ms: Number.isInteger(c.slow_ms) && c.slow_ms > 0 ? c.slow_ms : 0,
    database: {
      host: String(db.host ?? '127.0.0.1'),
      port: Number(db.port ?? 5432),
      name: String(db.name ?? 'shop'),
      user: String(db.user ?? 'app'),
    },
  };
}

function newPool(c) {
  const p = new pg.Pool({
    host: c.database.host,
    port: c.database.port,
    database: c.database.name,
    user: c.database.user,
    password: PASSWORD_FILE === '' ? undefined : readFileSync(PASSWORD_FILE, 'utf8').trim(),
    max: c.pool_size,
    idleTimeoutMillis: 0,
    connectionTimeoutMillis: 2000,
    application_name: 'lab-app',
  });
  p.on('error', (err) => {
    log(`pool: ${err.message}`);
  });
  return p;
}

/** Loads the config when its file changed (checked at most twice a second). */
function refresh() {
  const now = Date.now();
  if (config !== null && now - checkedAt < 500) return;
  checkedAt = now;
  let mtime;
  try {
    mtime = statSync(CONFIG).mtimeMs;
  } catch (err) {
    if (config === null) throw err;
    return;
  }
  if (config !== null && mtime === configMtime) return;
  const next = readConfig();
  configMtime = mtime;
  const dbChanged =
    config === null ||
    JSON.stringify(next.database) !== JSON.stringify(config.database) ||
    next.pool_size !== config.pool_size;
  log(
    `config loaded: database ${next.database.name}@${next.database.host}:${String(next.database.port)}, pool ${String(next.pool_size)}, slow_ms ${String(next.slow_ms)}`,
  );
  config = next;
  if (dbChanged) {
    const old = pool;
    pool = newPool(next);
    warm();
    if (old !== null) void old.end().catch(() => undefined);
  }
}

/** Opens one connection at once so the link to PostgreSQL exists before any traffic. */
function warm() {
  const p = pool;
  p.connect().then(
    (c) => {
      c.release();
    },
    (err) => {
      log(`database: ${err.message}`);
    },
  );
}

function observe(path, code, seconds) {
  const key = `${path} ${String(code)}`;
  requests.set(key, (requests.get(key) ?? 0) + 1);
  if (path !== '/') return;
  histogram.sum += seconds;
  histogram.count += 1;
  BUCKETS.forEach((b, i) => {
    if (seconds <= b) histogram.counts[i] += 1;
  });
}

function metrics() {
  const lines = [
    '# HELP lab_app_requests_total Requests answered, by path and status.',
    '# TYPE lab_app_requests_total counter',
  ];
  for (const [key, n] of requests) {
    const [path, code] = key.split(' ');
    lines.push(`lab_app_requests_total{path="${path}",code="${code}"} ${String(n)}`);
  }
  lines.push(
    '# HELP lab_app_request_duration_seconds Time to answer the page.',
    '# TYPE lab_app_request_duration_seconds histogram',
  );
  BUCKETS.forEach((b, i) => {
    lines.push(
      `lab_app_request_duration_seconds_bucket{le="${String(b)}"} ${String(histogram.counts[i])}`,
    );
  });
  lines.push(
    `lab_app_request_duration_seconds_bucket{le="+Inf"} ${String(histogram.count)}`,
    `lab_app_request_duration_seconds_sum ${String(histogram.sum)}`,
    `lab_app_request_duration_seconds_count ${String(histogram.count)}`,
    '# TYPE lab_app_pool_connections gauge',
    `lab_app_pool_connections{state="total"} ${String(pool?.totalCount ?? 0)}`,
    `lab_app_pool_connections{state="idle"} ${String(pool?.idleCount ?? 0)}`,
    `lab_app_pool_connections{state="waiting"} ${String(pool?.waitingCount ?? 0)}`,
    '# TYPE lab_app_pool_size gauge',
    `lab_app_pool_size ${String(config?.pool_size ?? 0)}`,
    '# TYPE lab_app_slow_ms gauge',
    `lab_app_slow_ms ${String(config?.slow_ms ?? 0)}`,
    '# TYPE lab_app_start_time_seconds gauge',
    `lab_app_start_time_seconds ${String(started)}`,
    '',
  );
  return lines.join('\n');
}

const escapeHtml = (s) =>
  String(s).replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c],
  );

async function handle(req, res) {
  const path = (req.url ?? '/').split('?')[0];
  const t0 = performance.now();
  let code = 200;
  let type = 'text/plain; charset=utf-8';
  let body = '';
  try {
    refresh();
    if (path === '/metrics') {
      type = 'text/plain; version=0.0.4';
      body = metrics();
    } else if (path === '/healthz') {
      await pool.query('SELECT 1');
      body = 'ok\n';
    } else if (path === '/') {
      if (config.slow_ms > 0) await sleep(config.slow_ms);
      const { rows } = await pool.query(
        "SELECT title, body FROM pages WHERE slug = 'home' LIMIT 1",
      );
      const page = rows[0] ?? { title: config.title, body: '' };
      type = 'text/html; charset=utf-8';
      body = `<!doctype html><title>${escapeHtml(page.title)}</title><h1>${escapeHtml(page.title)}</h1><p>${escapeHtml(page.body)}</p>\n`;
    } else {
      code = 404;
      body = 'not found\n';
    }
  } catch (err) {
    code = path === '/healthz' ? 503 : 500;
    body = `error: ${err.message}\n`;
    log(`${req.method ?? 'GET'} ${path}: ${err.message}`);
  }
  observe(path, code, (performance.now() - t0) / 1000);
  res.writeHead(code, { 'content-type': type });
  res.end(body);
}

refresh();
const server = createServer((req, res) => {
  void handle(req, res);
});
server.keepAliveTimeout = 120_000; // longer than nginx's upstream keepalive_timeout
const colon = LISTEN.lastIndexOf(':');
server.listen(Number(LISTEN.slice(colon + 1)), LISTEN.slice(0, colon), () => {
  log(`listening on ${LISTEN}`);
});

const stop = () => {
  log('stopping');
  server.close();
  server.closeAllConnections();
  void (pool?.end() ?? Promise.resolve()).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

// Bug switches for the lab's faults (a real app's bugs, on demand): SIGUSR2 makes a request
// handler's bug throw outside any try (Node prints the stack and exits); SIGTTIN starts a
// leak that grows until the heap limit the unit sets (--max-old-space-size) and V8 aborts.
process.on('SIGUSR2', () => {
  setTimeout(() => {
    const order = JSON.parse('{"lines":null}');
    log(`order has ${String(order.lines.length)} lines`); // TypeError: order.lines is null
  }, 0);
});
const leaked = [];
process.on('SIGTTIN', () => {
  const grow = () => {
    for (let i = 0; i < 2000; i += 1) leaked.push({ at: Date.now(), pad: 'x'.repeat(1024) + i });
    setImmediate(grow);
  };
  grow();
});
