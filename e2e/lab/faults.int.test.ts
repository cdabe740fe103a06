// Every fault of our own against the real lab: injected, its first alert reaches Alertmanager
// (from Prometheus' rules, or posted where the fault is a message), what the fault does shows
// in the app's log where it speaks, and heal puts the lab back (units up, the site and the
// app's health answering). The design's first ten are lab.int.test.ts's; how the service
// diagnoses each fault is the diagnosis benchmark's (docs/diagnosis.md).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULTS, heal, inject, type FaultInfo, type FaultName } from './faults.js';
import { httpsStatus, startLab, unitsUp, type Lab } from './lab.js';
import { until } from './processes.js';

/** The design's faults (lab.int.test.ts), and the CPU hog a busy machine fires without it. */
const DESIGN = new Set<FaultName>([
  'service-down', 'app-down', 'db-down', 'disk-full', 'pool-exhausted', 'bad-deploy',
  'memory-pressure', 'cpu-hog', 'cert-expiry', 'slow-upstream',
]); // prettier-ignore

/** The faults that are a message: they post their alert to Alertmanager themselves. */
const POSTED = new Set<FaultName>(['blip', 'noise', 'noise-db', 'unknown-service']);

/** What the app's log says once the fault acts, where it says anything. */
const MARKS: Partial<Record<FaultName, RegExp>> = {
  'app-crashed': /TypeError: Cannot read properties of null/,
  'app-oom': /heap out of memory/,
  'db-auth-refused': /password authentication failed for user "app"/,
  'db-role-nologin': /role "app" is not permitted to log in/,
  'role-connection-limit': /too many connections for role "app"/,
  'table-renamed': /relation "pages" does not exist/,
  'port-in-use': /EADDRINUSE/,
  'app-config-edited': /ECONNREFUSED/,
  'db-host-unresolvable': /ENOTFOUND|EAI_AGAIN/,
};

interface AmAlert {
  labels: Record<string, string>;
  startsAt: string;
  status: { state: string };
}

let lab: Lab;
const parent = mkdtempSync(join(tmpdir(), 'lab-faults-test-'));

beforeAll(async () => {
  lab = await startLab({ dir: join(parent, 'lab'), net: '127.0.10' });
}, 90_000);

afterAll(async () => {
  await lab?.stop();
  rmSync(parent, { recursive: true, force: true });
}, 60_000);

async function activeAlerts(): Promise<AmAlert[]> {
  const res = await fetch(`${lab.state.monitor.alertmanager}/api/v2/alerts?active=true`);
  return (await res.json()) as AmAlert[];
}

/** The fault's own first alert (its service's, not a neighbour's in brackets). */
const ownAlert = (f: FaultInfo): string => f.alerts.find((a) => !a.includes('(')) ?? '';

const appLogSize = (): number => statSync(lab.state.app.unit.log).size;
const appLogSince = (offset: number): string =>
  readFileSync(lab.state.app.unit.log).subarray(offset).toString('utf8');

/** What is not healthy in the lab, or '' when it all is: units up, the site and the app answer. */
async function unhealthy(): Promise<string> {
  const s = lab.state;
  const down = Object.entries(unitsUp(s)).filter(([, up]) => !up);
  if (down.length > 0) return `${down.map(([unit]) => unit).join(', ')} not running`;
  const app = `http://${s.hosts.app.address}:${String(s.app.port)}`;
  const status = (path: string) =>
    fetch(`${app}${path}`).then(
      async (r) => {
        await r.arrayBuffer();
        return r.status;
      },
      () => 0,
    );
  const answers = {
    healthz: await status('/healthz'),
    page: await status('/'),
    site: await httpsStatus(lab.siteUrl, s.web.ca).catch(() => 0),
  };
  return Object.values(answers).every((code) => code === 200) ? '' : JSON.stringify(answers);
}

describe('every fault of our own', () => {
  it.each(FAULTS.filter((f) => !DESIGN.has(f.name)).map((f) => [f.name, f] as const))(
    '%s acts on the real lab, fires its alert and heals',
    async (_name, f) => {
      const alert = ownAlert(f);
      const posted = POSTED.has(f.name);
      // The same alert still firing from the fault before would not start again.
      await until(
        `${alert} no longer active`,
        async () =>
          (await activeAlerts()).some(
            (a) => a.labels['alertname'] === alert && a.labels['posted'] === undefined,
          )
            ? undefined
            : true,
        60_000,
      );
      const t0 = Date.now() - 1000;
      const logFrom = appLogSize();
      await inject(lab.state, f.name);
      try {
        const fired = await until(
          `${alert} active in Alertmanager for ${f.service}`,
          async () =>
            (await activeAlerts()).find(
              (a) =>
                a.labels['alertname'] === alert &&
                a.labels['service'] === f.service &&
                (a.labels['posted'] === 'lab') === posted &&
                Date.parse(a.startsAt) >= t0,
            ),
          45_000,
        );
        expect(fired.status.state).toBe('active');
        const mark = MARKS[f.name];
        if (mark !== undefined)
          await until(
            `the app's log says ${String(mark)}`,
            () => Promise.resolve(mark.test(appLogSince(logFrom)) ? true : undefined),
            20_000,
          );
      } finally {
        await heal(lab.state, f.name);
      }
      let left = '';
      await until(
        'the lab healthy again',
        async () => {
          left = await unhealthy();
          return left === '' ? true : undefined;
        },
        30_000,
      ).catch((err: unknown) => {
        // What the app said since the fault tells a slow machine's race from a broken heal.
        const said = appLogSince(logFrom).split('\n').slice(-15).join('\n');
        throw new Error(
          `${(err as Error).message}: ${left}\nthe app's log since the fault:\n${said}`,
        );
      });
    },
    150_000,
  );
});
