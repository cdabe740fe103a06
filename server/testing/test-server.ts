// A real server on a real SQLite file in a temporary data folder, for HTTP tests through
// app.inject() or a real socket. Nothing is mocked but the clock when a test passes one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildApp,
  type BuiltApp,
  type KeychainOptions,
  type LiveStreamOptions,
  type StudyOptions,
} from '../compose/index.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import type { Clock } from '../shared/clock.js';

export const INGEST_TOKEN = 'ingest-token-for-tests-0123456789';
export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface TestServer extends BuiltApp {
  readonly dir: string;
  readonly env: Record<string, string>;
  /** Stop the server; the data folder stays until `cleanup`. */
  stop(): Promise<void>;
  cleanup(): Promise<void>;
}

export function makeDataDir(): { dir: string; machineIdFile: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const machineIdFile = join(dir, 'machine-id');
  writeFileSync(machineIdFile, '5f0c2a6b9d8e4f1a8b7c6d5e4f3a2b1c\n');
  return { dir, machineIdFile };
}

export function testEnv(
  dir: string,
  machineIdFile: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    SVC_DATA: join(dir, 'data'),
    SVC_TRIAL: '1',
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_INGEST_TOKEN: INGEST_TOKEN,
    SVC_SYSLOG: 'off',
    SVC_MACHINE_ID_FILE: machineIdFile,
    SVC_INSTANCE: 'test',
    // Never the host's /etc/svc/policy.json: a test that wants a policy file writes this one.
    SVC_POLICY: join(dir, 'policy.json'),
    SVC_CONNECTORS: join(dir, 'connectors.json'),
    // Never the host's /etc/svc/licence.json: a test that mounts a licence writes this one.
    SVC_LICENCE: join(dir, 'licence-mounted.json'),
    SVC_LOG_LEVEL: 'silent',
    ...extra,
  };
}

export async function buildTestServer(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    delayMs?: number;
    dir?: string;
    liveStream?: LiveStreamOptions;
    /** the keychain's timers and thresholds, shortened */
    keychain?: KeychainOptions;
    /** the study's readings window and step, shortened */
    study?: StudyOptions;
  } = {},
): Promise<TestServer> {
  const made =
    options.dir === undefined
      ? makeDataDir()
      : { dir: options.dir, machineIdFile: join(options.dir, 'machine-id') };
  const env = testEnv(made.dir, made.machineIdFile, options.env);
  const config = loadConfig(env, { port: 0, bind: '127.0.0.1' });
  const built = await buildApp(config, {
    log: createLogger(config.logLevel),
    ...(options.clock && { clock: options.clock }),
    wrongCredentialDelayMs: options.delayMs ?? 500,
    ...(options.liveStream && { liveStream: options.liveStream }),
    ...(options.keychain && { keychain: options.keychain }),
    ...(options.study && { study: options.study }),
    env,
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await built.close();
  };
  return {
    ...built,
    dir: made.dir,
    env,
    stop,
    async cleanup() {
      await stop();
      rmSync(made.dir, { recursive: true, force: true });
    },
  };
}

export const bearer = (token: string): Record<string, string> => ({
  authorization: `Bearer ${token}`,
});
export const asAdmin = (): Record<string, string> => bearer(ADMIN_TOKEN);
export const asIngest = (): Record<string, string> => bearer(INGEST_TOKEN);

export interface TestAlert {
  readonly name: string;
  readonly service?: string;
  readonly status?: 'firing' | 'resolved';
  /** default `<service>-<name>` */
  readonly fingerprint?: string;
  /** more labels beside alertname and service */
  readonly labels?: Readonly<Record<string, string>>;
  readonly summary?: string;
}

/** Alertmanager's webhook body for one alert, started 10:00 and (resolved) ended 10:30. */
export function alertmanagerBody(a: TestAlert) {
  const status = a.status ?? 'firing';
  return {
    version: '4',
    groupKey: 'g',
    status,
    alerts: [
      {
        status,
        fingerprint: a.fingerprint ?? `${a.service ?? ''}-${a.name}`,
        labels: {
          alertname: a.name,
          ...(a.service !== undefined && { service: a.service }),
          ...a.labels,
        },
        annotations: { summary: a.summary ?? a.name },
        startsAt: '2026-11-22T10:00:00Z',
        endsAt: status === 'resolved' ? '2026-11-22T10:30:00Z' : '0001-01-01T00:00:00Z',
      },
    ],
  };
}

/** Posts one alert as Alertmanager does; the answer (a test expects its 202). */
export const postAlert = (server: Pick<BuiltApp, 'app'>, a: TestAlert) =>
  server.app.inject({
    method: 'POST',
    url: '/v1/alerts/alertmanager',
    headers: asIngest(),
    payload: alertmanagerBody(a),
  });

/** The episode id of a posted alert's first signal (null when it opened none). */
export const episodeOf = (res: { json<T>(): T }): string | null =>
  res.json<{ signals: { episode_id: string | null }[] }>().signals[0]?.episode_id ?? null;

/** A person of `role` made through POST /v1/users as the admin, and a session of theirs. */
export async function personOn(
  server: Pick<BuiltApp, 'app' | 'sessions' | 'people'>,
  email: string,
  role: 'viewer' | 'responder' | 'admin',
): Promise<{ user: { id: string; name: string; email: string; role: string }; token: string }> {
  const res = await server.app.inject({
    method: 'POST',
    url: '/v1/users',
    headers: asAdmin(),
    payload: { email, name: email.split('@')[0], role },
  });
  if (res.statusCode !== 201) throw new Error(`POST /v1/users answered ${res.body}`);
  const user = res.json<{ id: string; name: string; email: string; role: 'viewer' }>();
  const { token } = await server.sessions.signIn(server.people.identity(user), 'password');
  return { user, token };
}
