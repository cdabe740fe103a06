// Every HTTP route against a real server (real SQLite file, real auth, real error handler):
// who may call it, what a refused call answers, 400 bodies, 404, and mode gating.
import { performance } from 'node:perf_hooks';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  asAdmin,
  asIngest,
  bearer,
  buildTestServer,
  INGEST_TOKEN,
  type TestServer,
} from '../testing/test-server.js';
import { createSessionsService, createSessionsStore, SignInMethod } from '../access/index.js';
import type { Role } from '../shared/roles.js';
import type { Principal } from '../shared/types.js';
import { actorOf, WRONG_CREDENTIAL_DELAY_MS } from './auth.js';

/** `viewer` is also "signed in" (the spec's GET/PUT /v1/me, logout). */
type Credential = 'anyone' | Role | 'ingest';
type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface RouteRow {
  readonly method: Method;
  readonly url: string;
  /** The route as registered, when `url` fills in a path parameter. */
  readonly route?: string;
  /** The weakest credential that is let in: exactly the spec's Roles column. */
  readonly credential: Credential;
  /** A body that the admin token and a session of the needed role get `ok` for; a function
   * when each call needs its own (a new e-mail, a new team name). */
  readonly payload?: Record<string, unknown> | (() => Record<string, unknown>);
  /** What the admin token gets (a 2xx, or a 404/409 that shows it was let in). */
  readonly ok: number;
  /** What a session of the needed role gets, when it differs from `ok`. */
  readonly sessionOk?: number;
  /** An answer that never ends by itself (server-sent events): checked by status alone. */
  readonly stream?: true;
}

const ROLES: readonly Role[] = ['viewer', 'responder', 'admin', 'owner'];
let unique = 0;
const fresh = (): number => ++unique;

// ONE row per endpoint that exists. Later issues ADD A ROW HERE for every route they add
// (the drift test below fails until they do): the credential checks then run for it too.
const ROUTES: readonly RouteRow[] = [
  { method: 'GET', url: '/health', credential: 'anyone', ok: 200 },
  { method: 'GET', url: '/v1/status', credential: 'anyone', ok: 200 },
  { method: 'GET', url: '/v1/doctor', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/ledger', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/ledger/verify', credential: 'viewer', ok: 200 },
  {
    method: 'POST',
    url: '/v1/events',
    credential: 'ingest',
    payload: {
      type: 'human.deploy',
      actor: 'ci:routes-test',
      data: { service: 'api', version: '1.2.3' },
    },
    ok: 201,
  },
  {
    method: 'POST',
    url: '/v1/alerts/alertmanager',
    route: '/v1/alerts/:source',
    credential: 'ingest',
    payload: {
      version: '4',
      groupKey: '{}:{alertname="DiskFull"}',
      status: 'firing',
      receiver: 'svc',
      alerts: [
        {
          status: 'firing',
          labels: {
            alertname: 'DiskFull',
            instance: 'db-1:9100',
            job: 'node',
            severity: 'critical',
          },
          annotations: { summary: 'disk almost full' },
          startsAt: '2026-11-22T10:00:00Z',
          endsAt: '0001-01-01T00:00:00Z',
          fingerprint: 'routes-test-0001',
        },
      ],
    },
    ok: 202,
  },
  { method: 'GET', url: '/v1/live', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/live/stream', credential: 'viewer', ok: 200, stream: true },
  {
    method: 'GET',
    url: '/v1/episodes/ep-20260101T000000Z-000000',
    route: '/v1/episodes/:id',
    credential: 'viewer',
    ok: 404, // let in; no such episode in a fresh install
  },
  {
    method: 'GET',
    url: '/v1/episodes?scorecard=1&histogram=day&group=incident',
    route: '/v1/episodes',
    credential: 'viewer',
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/episodes/ep-20260101T000000Z-000000/team',
    route: '/v1/episodes/:id/team',
    credential: 'responder',
    payload: { verdict: 'same' },
    ok: 404, // let in; no such episode in a fresh install
  },
  {
    method: 'GET',
    url: '/v1/incidents?status=open',
    route: '/v1/incidents',
    credential: 'viewer',
    ok: 200,
  },
  {
    method: 'GET',
    url: '/v1/incidents/in-20260101T000000Z-000000',
    route: '/v1/incidents/:id',
    credential: 'viewer',
    ok: 404, // let in; no such incident in a fresh install
  },
  { method: 'GET', url: '/v1/search/fields', credential: 'viewer', ok: 200 },
  {
    method: 'POST',
    url: '/v1/login',
    credential: 'anyone',
    payload: { token: ADMIN_TOKEN },
    ok: 200,
  },
  // Sign-in: a wrong code or password is 401 (after the wait); nothing is configured yet.
  {
    method: 'POST',
    url: '/v1/auth/request',
    credential: 'anyone',
    payload: () => ({ email: `someone${String(fresh())}@example.com` }),
    ok: 202,
  },
  {
    method: 'POST',
    url: '/v1/auth/verify',
    credential: 'anyone',
    payload: { email: 'nobody@example.com', code: '00000000' },
    ok: 401,
  },
  {
    method: 'POST',
    url: '/v1/auth/password',
    credential: 'anyone',
    payload: { email: 'nobody@example.com', password: 'not-the-password' },
    ok: 401,
  },
  // Break-glass takes the admin token itself: an owner's session is refused too.
  {
    method: 'POST',
    url: '/v1/auth/bootstrap',
    credential: 'owner',
    payload: () => ({ email: `boot${String(fresh())}@example.com` }),
    ok: 200,
    sessionOk: 403,
  },
  // No ldap connector and no SSO settings on a fresh install: 409 says so.
  {
    method: 'POST',
    url: '/v1/auth/ldap',
    credential: 'anyone',
    payload: { username: 'x', password: 'y' },
    ok: 409,
  },
  { method: 'GET', url: '/v1/auth/sso/start', credential: 'anyone', ok: 409 },
  { method: 'GET', url: '/v1/auth/sso/callback', credential: 'anyone', ok: 409 },
  {
    method: 'POST',
    url: '/v1/auth/sso/redeem',
    credential: 'anyone',
    payload: { code: 'x' },
    ok: 401,
  },
  { method: 'GET', url: '/v1/settings/mail', credential: 'admin', ok: 200 },
  {
    method: 'PUT',
    url: '/v1/settings/mail',
    credential: 'admin',
    payload: {
      transport: 'smtp',
      smtp: { host: '127.0.0.1', port: 9, security: 'none', from: 'svc@example.com' },
    },
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/settings/mail/test',
    credential: 'admin',
    payload: { to: 'ops@example.com' },
    ok: 200, // the test ran and failed (nothing listens): an answer, not an error
  },
  { method: 'GET', url: '/v1/settings/sso', credential: 'admin', ok: 200 },
  {
    method: 'PUT',
    url: '/v1/settings/sso',
    credential: 'admin',
    payload: { issuer: '', client_id: '', redirect_uri: '', enabled: false },
    ok: 200,
  },
  { method: 'GET', url: '/v1/settings/sso/groups', credential: 'admin', ok: 200 },
  {
    method: 'POST',
    url: '/v1/settings/sso/discover',
    credential: 'admin',
    payload: { issuer: 'http://127.0.0.1:9' },
    ok: 200,
  },
  { method: 'POST', url: '/v1/settings/sso/test', credential: 'admin', payload: {}, ok: 200 },
  { method: 'POST', url: '/v1/settings/sso/sync', credential: 'admin', ok: 200 },
  // The admin token has no session to end: 409 not_a_session; a session ends.
  { method: 'POST', url: '/v1/auth/logout', credential: 'viewer', ok: 409, sessionOk: 200 },
  { method: 'GET', url: '/v1/me', credential: 'viewer', ok: 200 },
  // The admin token is no person: 409 not_a_person; a person changes their handles.
  {
    method: 'PUT',
    url: '/v1/me',
    credential: 'viewer',
    payload: { handles: { slack: '@routes' } },
    ok: 409,
    sessionOk: 200,
  },
  { method: 'GET', url: '/v1/users', credential: 'admin', ok: 200 },
  {
    method: 'POST',
    url: '/v1/users',
    credential: 'admin',
    payload: () => ({ email: `new-${String(fresh())}@routes.example`, role: 'viewer' }),
    ok: 201,
  },
  {
    method: 'PUT',
    url: '/v1/users/usr-none',
    route: '/v1/users/:id',
    credential: 'admin',
    payload: { name: 'Nobody' },
    ok: 404, // let in; no such person
  },
  {
    method: 'DELETE',
    url: '/v1/users/usr-none',
    route: '/v1/users/:id',
    credential: 'admin',
    ok: 404, // let in; no such person
  },
  { method: 'GET', url: '/v1/teams', credential: 'viewer', ok: 200 },
  // Team changes: admin, or a lead of the team (people.int.test.ts tests the leads); a
  // signed-in person who leads nothing gets 403 naming admin.
  {
    method: 'POST',
    url: '/v1/teams',
    credential: 'admin',
    payload: () => ({ name: `Team ${String(fresh())}` }),
    ok: 201,
  },
  {
    method: 'PUT',
    url: '/v1/teams/team-none',
    route: '/v1/teams/:id',
    credential: 'admin',
    payload: { name: 'Renamed' },
    ok: 404, // let in; no such team
  },
  {
    method: 'DELETE',
    url: '/v1/teams/team-none',
    route: '/v1/teams/:id',
    credential: 'admin',
    ok: 404, // let in; no such team
  },
  { method: 'GET', url: '/v1/settings/access', credential: 'admin', ok: 200 },
  {
    method: 'PUT',
    url: '/v1/settings/access',
    credential: 'admin',
    payload: { domains: ['routes.example'] },
    ok: 200,
  },
  { method: 'GET', url: '/v1/branding', credential: 'anyone', ok: 200 },
  { method: 'POST', url: '/v1/discover', credential: 'admin', ok: 202 },
  {
    method: 'GET',
    url: '/v1/jobs/job-none',
    route: '/v1/jobs/:id',
    credential: 'viewer',
    ok: 404, // let in; no such job
  },
  { method: 'GET', url: '/v1/estate', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/estate/overrides', credential: 'viewer', ok: 200 },
  { method: 'PUT', url: '/v1/estate/overrides', credential: 'admin', payload: {}, ok: 200 },
  { method: 'GET', url: '/v1/estate/suggestions', credential: 'viewer', ok: 200 },
  {
    method: 'POST',
    url: '/v1/estate/suggestions/confirm',
    credential: 'admin',
    payload: { id: 'sug-none' },
    ok: 404, // let in; no such suggestion in a fresh install
  },
  {
    method: 'POST',
    url: '/v1/estate/suggestions/dismiss',
    credential: 'admin',
    payload: { id: 'sug-none' },
    ok: 404, // let in; no such suggestion in a fresh install
  },
  { method: 'GET', url: '/v1/connectors/catalogue', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/connectors', credential: 'viewer', ok: 200 },
  {
    method: 'PUT',
    url: '/v1/connectors/contract-probe',
    route: '/v1/connectors/:name',
    credential: 'admin',
    payload: { kind: 'http', settings: { url: 'http://127.0.0.1:9/' } },
    ok: 200,
  },
  {
    method: 'DELETE',
    url: '/v1/connectors/nothing-here',
    route: '/v1/connectors/:name',
    credential: 'admin',
    ok: 404, // let in; no such connector
  },
  {
    method: 'POST',
    url: '/v1/connectors/test',
    credential: 'admin',
    payload: { kind: 'http', settings: { url: 'http://127.0.0.1:9/' }, timeout_s: 2 },
    ok: 200, // the check ran; it failed (nothing listens), which is an answer, not an error
  },
  {
    method: 'POST',
    url: '/v1/connectors/ssh/keypair',
    credential: 'admin',
    payload: { name: 'contract-ssh' },
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/connectors/ssh/hostkey',
    credential: 'admin',
    payload: { host: '127.0.0.1', port: 9 },
    ok: 400, // let in; nothing listens there, so no key to scan
  },
  { method: 'PUT', url: '/v1/branding', credential: 'admin', payload: { name: 'Ops' }, ok: 200 },
  { method: 'GET', url: '/v1/policy', credential: 'viewer', ok: 200 },
  { method: 'PUT', url: '/v1/policy', credential: 'admin', payload: {}, ok: 200 },
  { method: 'GET', url: '/v1/approvals', credential: 'viewer', ok: 200 },
  {
    method: 'GET',
    url: '/v1/approvals/ap-none',
    route: '/v1/approvals/:request_id',
    credential: 'viewer',
    ok: 404,
  },
  {
    method: 'POST',
    url: '/v1/approvals/ap-none/approve',
    route: '/v1/approvals/:request_id/approve',
    credential: 'responder',
    payload: {},
    ok: 404,
  },
  {
    method: 'POST',
    url: '/v1/approvals/ap-none/deny',
    route: '/v1/approvals/:request_id/deny',
    credential: 'responder',
    payload: { reason: 'no' },
    ok: 404,
  },
  {
    method: 'POST',
    url: '/v1/approvals/ap-none/withdraw',
    route: '/v1/approvals/:request_id/withdraw',
    credential: 'responder',
    payload: {},
    ok: 404,
  },
  {
    method: 'GET',
    url: '/v1/approvals/link?token=x',
    route: '/v1/approvals/link',
    credential: 'anyone',
    ok: 400,
  },
  {
    method: 'POST',
    url: '/v1/approvals/link',
    credential: 'anyone',
    payload: { token: 'x.y' },
    ok: 400,
  },
  { method: 'GET', url: '/v1/autonomy', credential: 'viewer', ok: 200 },
  {
    method: 'POST',
    url: '/v1/autonomy',
    credential: 'admin',
    payload: { service: 'web', level: 'off' },
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/fix-mode',
    credential: 'admin',
    payload: { mode: 'advise' },
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/halt',
    credential: 'responder',
    payload: { reason: 'routes test' },
    ok: 200,
  },
  { method: 'POST', url: '/v1/resume', credential: 'admin', payload: {}, ok: 200 },
  { method: 'GET', url: '/v1/impact', credential: 'admin', ok: 200 },
  { method: 'GET', url: '/v1/learning', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/digest', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/lookback', credential: 'admin', ok: 200 },
  // No connection keeps history here: lookback is let in and answers 409.
  { method: 'POST', url: '/v1/lookback', credential: 'admin', payload: { days: 30 }, ok: 409 },
  {
    method: 'POST',
    url: '/v1/learning/label',
    credential: 'responder',
    payload: { episode: 'ep-20260101T000000Z-000000', correct: true, source: 'routes' },
    ok: 404,
  },
  { method: 'GET', url: '/v1/learned', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/study', credential: 'viewer', ok: 200 },
  // A study reads through the connections: with none working (configuring) it is let in, then 503.
  { method: 'POST', url: '/v1/study', credential: 'admin', payload: { minutes: 1 }, ok: 503 },
  { method: 'POST', url: '/v1/study/stop', credential: 'admin', payload: {}, ok: 200 },
  {
    method: 'POST',
    url: '/v1/learned/lp-000000000000',
    route: '/v1/learned/:id',
    credential: 'admin',
    payload: { action: 'promote' },
    ok: 404,
  },
  { method: 'GET', url: '/v1/keychain', credential: 'viewer', ok: 200 },
  // This server is in no keychain: each call is let in and answers 409 with why.
  {
    method: 'POST',
    url: '/v1/keychain/site-keys',
    credential: 'admin',
    payload: { labels: ['routes'] },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/site-keys/revoke',
    credential: 'admin',
    payload: { id: 'AAAAAAAA' },
    ok: 409,
  },
  { method: 'POST', url: '/v1/keychain/pull', credential: 'admin', ok: 409 },
  {
    method: 'POST',
    url: '/v1/keychain/members/remove',
    credential: 'admin',
    payload: { fingerprint: 'A'.repeat(52) },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/rename',
    credential: 'admin',
    payload: { label: 'routes' },
    ok: 409,
  },
  { method: 'POST', url: '/v1/keychain/leave', credential: 'admin', ok: 409 },
  {
    method: 'POST',
    url: '/v1/keychain/scope',
    credential: 'admin',
    payload: { skip: [] },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/own',
    credential: 'admin',
    payload: { part: 'policy', own: true },
    ok: 409,
  },
  { method: 'POST', url: '/v1/keychain/window', credential: 'admin', ok: 409 },
  // Nothing answers at the discard port: let in, and 409 home_unreachable.
  {
    method: 'POST',
    url: '/v1/keychain/join',
    credential: 'admin',
    payload: { address: 'http://127.0.0.1:9', label: 'routes' },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/join/confirm',
    credential: 'admin',
    payload: { code: '123456' },
    ok: 409,
  },
  { method: 'POST', url: '/v1/keychain/join/cancel', credential: 'admin', ok: 200 },
  {
    method: 'POST',
    url: '/v1/keychain/members/confirm',
    credential: 'admin',
    payload: { fingerprint: 'A'.repeat(52), code: '123456' },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/joins/approve',
    credential: 'admin',
    payload: { request: 'pr_routes' },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/keychain/handover',
    credential: 'admin',
    payload: { fingerprint: 'A'.repeat(52) },
    ok: 409,
  },
  { method: 'POST', url: '/v1/keychain/handover/cancel', credential: 'admin', ok: 409 },
  { method: 'POST', url: '/v1/keychain/take-over', credential: 'owner', payload: {}, ok: 409 },
  {
    method: 'POST',
    url: '/v1/keychain/handover/accept',
    credential: 'admin',
    payload: { code: '123456' },
    ok: 409,
  },
  // A wrong passphrase: let in, and refused for the file (400 sealed_unreadable).
  {
    method: 'POST',
    url: '/v1/keychain/unseal',
    credential: 'admin',
    payload: { file: 'not a sealed file', passphrase: 'a passphrase of some length' },
    ok: 400,
  },
  // Between installs: no session; signed, throttled, and refused here (no home).
  { method: 'POST', url: '/v1/keychain/peer/hello', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/enrol', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/pull', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/leave', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/takeover', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/licence', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/rename', credential: 'anyone', payload: {}, ok: 409 },
  { method: 'POST', url: '/v1/keychain/peer/epoch', credential: 'anyone', payload: {}, ok: 409 },
  {
    method: 'POST',
    url: '/v1/keychain/peer/handover/accept',
    credential: 'anyone',
    payload: {},
    ok: 409,
  },
  ...['hello', 'nonce', 'confirm', 'status', 'abort'].map((p) => ({
    method: 'POST' as const,
    url: `/v1/keychain/peer/join/${p}`,
    credential: 'anyone' as const,
    payload: {},
    ok: 409,
  })),
  {
    method: 'PUT',
    url: '/v1/impact',
    credential: 'admin',
    payload: {
      currency: 'EUR',
      engineer_hour: 90,
      triage_min: 20,
      fix_min: 30,
      manual_resolve_min: 45,
      downtime_hour: 5000,
      callout: 150,
      annual_cost: 0,
    },
    ok: 200,
  },
  { method: 'GET', url: '/metrics', credential: 'viewer', ok: 200 },
  { method: 'GET', url: '/v1/openapi.json', credential: 'anyone', ok: 200 },
  // Licence: owner for what changes it, admin for the usage statement. The trial is in force
  // here: a text that is no licence is refused (400, so the owner was let in), check answers,
  // redeem meets the trial (409), usage is signed for the trial too.
  { method: 'POST', url: '/v1/licence', credential: 'owner', payload: { licence: '{}' }, ok: 400 },
  { method: 'POST', url: '/v1/licence/check', credential: 'owner', ok: 200 },
  {
    method: 'POST',
    url: '/v1/licence/redeem',
    credential: 'owner',
    payload: { code: 'SVCT-7KQ2-M9XD' },
    ok: 409,
  },
  {
    method: 'PUT',
    url: '/v1/licence/services',
    credential: 'owner',
    payload: { pinned: [] },
    ok: 200,
  },
  { method: 'GET', url: '/v1/licence/usage', credential: 'admin', ok: 200 },
  // The install exchange: viewers see it, admins act. Under the trial this install may ask
  // (then poll), look at any text, and neither vouch nor remove (no signed licence: 409).
  { method: 'GET', url: '/v1/licence/installs', credential: 'viewer', ok: 200 },
  {
    method: 'POST',
    url: '/v1/licence/installs/ask',
    credential: 'admin',
    payload: { purpose: 'add' },
    ok: 200,
  },
  { method: 'POST', url: '/v1/licence/installs/poll', credential: 'admin', ok: 200 },
  {
    method: 'POST',
    url: '/v1/licence/installs/look',
    credential: 'admin',
    payload: { text: 'not a request' },
    ok: 200,
  },
  {
    method: 'POST',
    url: '/v1/licence/installs/vouch',
    credential: 'admin',
    payload: { text: 'not a request', code: '000 000' },
    ok: 409,
  },
  {
    method: 'POST',
    url: '/v1/licence/installs/remove',
    credential: 'admin',
    payload: { fingerprint: 'AAAA-BBBB-CCCC-DDDD-EEEE-FFFF' },
    ok: 409,
  },
];

/** Routes that change what every other row needs (removing the licence leaves setup mode):
 * listed with the rest, their credentials checked on a server of their own below. */
const DESTRUCTIVE: readonly RouteRow[] = [
  { method: 'DELETE', url: '/v1/licence', credential: 'owner', ok: 200 },
  // Seals with the real KDF: on a server of its own, not among the hundreds of calls above.
  {
    method: 'POST',
    url: '/v1/keychain/seal',
    credential: 'admin',
    payload: { passphrase: 'a passphrase of some length' },
    ok: 200,
  },
  // Once per install: the second call is 409 already_in_keychain.
  {
    method: 'POST',
    url: '/v1/keychain/home',
    credential: 'admin',
    payload: { label: 'routes' },
    ok: 200,
  },
];

const WRONG_TOKEN = 'not-a-token-of-this-install-0000000000';
const rowName = (r: RouteRow): string => `${r.method} ${r.url} (${r.credential})`;

interface ErrorBody {
  error: string;
  message: string;
  field?: string;
  role?: string;
}

/** Every error body but 503's (fixed by the specification) is `{error, message, …}`. */
function expectError(res: LightMyRequestResponse, status: number, error: string): ErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<ErrorBody>();
  expect(body.error).toBe(error);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}

async function call(
  server: TestServer,
  row: RouteRow,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const payload = typeof row.payload === 'function' ? row.payload() : row.payload;
  const options = { method: row.method, url: row.url, headers, ...(payload && { payload }) };
  if (row.stream !== true) return server.app.inject(options);
  // A stream never ends: its status and headers, the body of a refusal, the rest dropped.
  const res = await server.app.inject({ ...options, payloadAsStream: true });
  const stream = res.stream();
  if (res.statusCode === 200) {
    stream.destroy();
    return Object.assign(res, { body: '', json: () => ({}) });
  }
  let body = '';
  for await (const chunk of stream) body += String(chunk);
  return Object.assign(res, { body, json: () => JSON.parse(body) as unknown });
}

/** Roles strictly below the credential a row needs (every role for the ingest rows). */
const below = (c: Credential): readonly Role[] =>
  c === 'anyone' ? [] : c === 'ingest' ? ROLES : ROLES.slice(0, ROLES.indexOf(c));

/**
 * A person of each role, made through POST /v1/users with the admin token, and a way to
 * open a fresh session for one (the sessions service on the server's own database, as a
 * sign-in method would; each check gets its own session, so a logout ends only that one).
 */
async function peopleOf(server: TestServer) {
  const sessions = createSessionsService({
    store: createSessionsStore(server.runtime.db),
    ledger: server.runtime.ledger,
    writer: server.runtime.writer,
    clock: server.runtime.clock,
  });
  const people = new Map<Role, { id: string; name: string; role: Role }>();
  for (const role of ROLES) {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/users',
      headers: asAdmin(),
      payload: { email: `${role}@routes.example`, name: `${role} person`, role },
    });
    expect(res.statusCode, res.body).toBe(201);
    people.set(role, res.json<{ id: string; name: string; role: Role }>());
  }
  return async (role: Role): Promise<Record<string, string>> => {
    const p = people.get(role);
    if (p === undefined) throw new Error(`no ${role} person`);
    const { token } = await sessions.signIn(
      { userId: p.id, name: p.name, role: p.role },
      SignInMethod.Code,
    );
    return bearer(token);
  };
}

describe('routes: credentials per endpoint', () => {
  let server: TestServer;
  let as: (role: Role) => Promise<Record<string, string>>;
  beforeAll(async () => {
    server = await buildTestServer();
    as = await peopleOf(server);
  });
  afterAll(async () => {
    await server.cleanup();
  });

  it('the table lists every route the server has, and the server has every route of the table', async () => {
    const routeOf = (r: RouteRow): string => r.route ?? r.url;
    for (const row of [...ROUTES, ...DESTRUCTIVE])
      expect(server.app.hasRoute({ method: row.method, url: routeOf(row) }), rowName(row)).toBe(
        true,
      );
    const res = await server.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    const documented = Object.entries(
      res.json<{ paths: Record<string, Record<string, unknown>> }>().paths,
    ).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    const listed = [...ROUTES, ...DESTRUCTIVE].map(
      (r) => `${r.method} ${routeOf(r).replace(/:(\w+)/g, '{$1}')}`,
    );
    // GET /v1/openapi.json hides itself from the document; HEAD routes are Fastify's own.
    expect(documented.filter((d) => !d.startsWith('HEAD ')).sort()).toEqual(
      listed.filter((l) => l !== 'GET /v1/openapi.json').sort(),
    );
  });

  // Only the checks that apply to a row's credential are made for it.
  describe.each(ROUTES)('$method $url', (row) => {
    if (row.credential === 'anyone') {
      it('no credential: 2xx', async () => {
        const res = await call(server, row);
        expect(res.statusCode, res.body).toBe(row.ok);
      });
    } else {
      it('no credential: 401 no_credentials, at once', async () => {
        const started = performance.now();
        const res = await call(server, row);
        expectError(res, 401, 'no_credentials');
        expect(performance.now() - started).toBeLessThan(400);
      });
    }

    if (row.credential !== 'anyone' && row.credential !== 'ingest') {
      const role = row.credential;
      it(`the ingest token: 403 naming the ${role} role`, async () => {
        const body = expectError(await call(server, row, asIngest()), 403, 'role_required');
        expect(body.role).toBe(role);
        expect(body.message).toContain(role);
      });
    }

    for (const role of below(row.credential)) {
      const needed = row.credential;
      it(`a ${role} session: 403 naming the ${needed} role`, async () => {
        const res = await call(server, row, await as(role));
        const body = expectError(
          res,
          403,
          needed === 'ingest' ? 'ingest_token_required' : 'role_required',
        );
        expect(body.role).toBe(needed);
        expect(body.message).toContain(needed);
      });
    }

    if (row.credential !== 'anyone' && row.credential !== 'ingest') {
      const role = row.credential;
      it(`a ${role} session: let in`, async () => {
        const res = await call(server, row, await as(role));
        expect(res.statusCode, res.body).toBe(row.sessionOk ?? row.ok);
      });
    }

    if (row.credential === 'ingest') {
      it('the ingest token: 2xx', async () => {
        const res = await call(server, row, asIngest());
        expect(res.statusCode, res.body).toBe(row.ok);
      });
    }

    it('the admin token: 2xx', async () => {
      const res = await call(server, row, asAdmin());
      expect(res.statusCode, res.body).toBe(row.ok);
    });
  });

  // Concurrent: each waits half a second, and the waits must not add up.
  it.concurrent.for(ROUTES.filter((r) => r.credential !== 'anyone'))(
    '$method $url: a wrong bearer token is 401 bad_token after >= 480 ms',
    async (row, { expect: ex }) => {
      const started = performance.now();
      const res = await call(server, row, bearer(WRONG_TOKEN));
      const elapsed = performance.now() - started;
      ex(res.statusCode, res.body).toBe(401);
      ex(res.json()).toEqual({ error: 'bad_token', message: expect.any(String) as unknown });
      ex(elapsed).toBeGreaterThanOrEqual(480);
      ex(elapsed).toBeLessThan(WRONG_CREDENTIAL_DELAY_MS + 1500);
    },
  );

  it('a malformed Authorization header counts as a wrong credential, not as none', async () => {
    const started = performance.now();
    const res = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger',
      headers: { authorization: 'Basic dXNlcjpwYXNz' },
    });
    expectError(res, 401, 'bad_token');
    expect(performance.now() - started).toBeGreaterThanOrEqual(480);
  });

  it("a wrong token's wait holds up only its own request (real socket)", async () => {
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const wrong = Array.from({ length: 5 }, () => {
      const started = performance.now();
      return fetch(`${address}/v1/ledger`, { headers: bearer(WRONG_TOKEN) }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as ErrorBody,
        ms: performance.now() - started,
      }));
    });
    const started = performance.now();
    const good = await fetch(`${address}/v1/ledger?limit=1`, { headers: asAdmin() });
    const goodMs = performance.now() - started;
    expect(good.status).toBe(200);
    expect(((await good.json()) as { events: unknown[] }).events).toHaveLength(1);
    expect(goodMs).toBeLessThan(400);
    const refused = await Promise.all(wrong);
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('bad_token');
      expect(r.ms).toBeGreaterThanOrEqual(480);
    }
  });

  describe('400 names the field', () => {
    const post = (
      payload: string | Record<string, unknown>,
      headers: Record<string, string> = {},
    ) =>
      server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: { ...asIngest(), 'content-type': 'application/json', ...headers },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });

    it('missing actor', async () => {
      const body = expectError(await post({ type: 'human.deploy' }), 400, 'invalid_input');
      expect(body.field).toBe('actor');
      expect(body.message).toBe('actor is required');
    });

    it('missing type', async () => {
      const body = expectError(await post({ actor: 'ci:x' }), 400, 'invalid_input');
      expect(body.field).toBe('type');
    });

    it('an unknown extra field', async () => {
      const body = expectError(
        await post({ type: 'human.deploy', actor: 'ci:x', colour: 'red' }),
        400,
        'invalid_input',
      );
      expect(body.field).toBe('colour');
      expect(body.message).toBe('colour is not a known field');
    });

    it('type without an allowed prefix', async () => {
      for (const type of [
        'deploy',
        'ledger.sealed',
        'licence.trial_started',
        'humans.deploy',
        'keychain.member_gone',
      ]) {
        const body = expectError(await post({ type, actor: 'ci:x' }), 400, 'invalid_input');
        expect(body.field, type).toBe('type');
        expect(body.message).toContain('human.');
      }
    });

    it('type with an allowed prefix but no event name', async () => {
      const body = expectError(await post({ type: 'human.', actor: 'ci:x' }), 400, 'invalid_input');
      expect(body.field).toBe('type');
    });

    it('data that is not an object', async () => {
      const body = expectError(
        await post({ type: 'human.deploy', actor: 'ci:x', data: [1, 2] }),
        400,
        'invalid_input',
      );
      expect(body.field).toBe('data');
    });

    it('malformed JSON: field body', async () => {
      const body = expectError(
        await post('{"type": "human.deploy", "actor": '),
        400,
        'invalid_json',
      );
      expect(body.field).toBe('body');
    });

    it('limit=0, limit=2001', async () => {
      for (const limit of ['0', '2001', 'ten']) {
        const body = expectError(
          await server.app.inject({
            method: 'GET',
            url: `/v1/ledger?limit=${limit}`,
            headers: asAdmin(),
          }),
          400,
          'invalid_input',
        );
        expect(body.field, limit).toBe('limit');
      }
    });

    it('since=notadate', async () => {
      const body = expectError(
        await server.app.inject({
          method: 'GET',
          url: '/v1/ledger?since=notadate',
          headers: asAdmin(),
        }),
        400,
        'invalid_input',
      );
      expect(body.field).toBe('since');
    });

    it('an unknown query parameter', async () => {
      const body = expectError(
        await server.app.inject({
          method: 'GET',
          url: '/v1/ledger?colour=red',
          headers: asAdmin(),
        }),
        400,
        'invalid_input',
      );
      expect(body.field).toBe('colour');
    });

    it('nothing of a refused event reaches the ledger', async () => {
      const before = (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<{
        ledger: { seq: number };
      }>().ledger.seq;
      await post({ type: 'deploy', actor: 'ci:x' });
      await post({ type: 'human.deploy' });
      const after = (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<{
        ledger: { seq: number };
      }>().ledger.seq;
      expect(after).toBe(before);
    });
  });

  it('an accepted event is in the ledger with what was sent', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asIngest(),
      payload: {
        type: 'human.action',
        actor: 'human:alice',
        data: { service: 'db', action: 'restart' },
        reason: 'disk',
        trace_id: 'tr-routes-1',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const made = res.json<{ seq: number; ts: string; type: string; trace_id: string | null }>();
    expect(made).toEqual({
      seq: expect.any(Number) as unknown,
      ts: expect.any(String) as unknown,
      type: 'human.action',
      trace_id: 'tr-routes-1',
    });
    const list = await server.app.inject({
      method: 'GET',
      url: '/v1/ledger?trace=tr-routes-1',
      headers: asAdmin(),
    });
    expect(list.statusCode).toBe(200);
    const events = list.json<{
      events: { seq: number; type: string; actor: string; data: unknown; reason: string | null }[];
    }>().events;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      seq: made.seq,
      type: 'human.action',
      actor: 'human:alice',
      data: { service: 'db', action: 'restart' },
      reason: 'disk',
    });
  });

  describe('404', () => {
    it.each([
      ['GET', '/v1/nothing-here'],
      ['GET', '/nothing'],
      ['DELETE', '/v1/ledger'],
      ['POST', '/v1/status'],
    ] as const)('%s %s: {error, message}', async (method, url) => {
      const body = expectError(await server.app.inject({ method, url }), 404, 'not_found');
      expect(body.message).toContain(url);
      expect(Object.keys(body).sort()).toEqual(['error', 'message']);
    });

    it('an unknown route with a token is 404 as well', async () => {
      expectError(
        await server.app.inject({ method: 'GET', url: '/v1/nothing-here?x=1', headers: asAdmin() }),
        404,
        'not_found',
      );
    });
  });
});

describe.each(DESTRUCTIVE)('$method $url, on a server of its own', (row) => {
  let server: TestServer;
  let as: (role: Role) => Promise<Record<string, string>>;
  beforeAll(async () => {
    server = await buildTestServer();
    as = await peopleOf(server);
  });
  afterAll(async () => {
    await server.cleanup();
  });
  it(`no credential 401, the ingest token and every role below ${row.credential} 403 naming it, then ${row.credential} is let in`, async () => {
    expectError(await call(server, row), 401, 'no_credentials');
    expect(expectError(await call(server, row, asIngest()), 403, 'role_required').role).toBe(
      row.credential,
    );
    for (const role of below(row.credential)) {
      const body = expectError(await call(server, row, await as(role)), 403, 'role_required');
      expect(body.role, role).toBe(row.credential);
    }
    const needed = row.credential;
    if (needed === 'anyone' || needed === 'ingest')
      throw new Error('a destructive row names a role');
    const res = await call(server, row, await as(needed));
    expect(res.statusCode, res.body).toBe(row.ok);
  });
});

describe('mode gating: setup (no licence)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ env: { SVC_TRIAL: '0' } });
  });
  afterAll(async () => {
    await server.cleanup();
  });

  it('GET /v1/status says mode setup and no licence', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/v1/status' });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ mode: string; licence: unknown }>();
    expect(body.mode).toBe('setup');
    expect(body.licence).toBeNull();
  });

  it('POST /v1/events answers 503 with exactly {error, mode}, for the ingest and the admin token', async () => {
    for (const headers of [asIngest(), asAdmin()]) {
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers,
        payload: { type: 'human.deploy', actor: 'ci:x' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toStrictEqual({ error: 'not operating yet', mode: 'setup' });
    }
  });

  it('POST /v1/events still checks the credential first', async () => {
    expectError(
      await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        payload: { type: 'human.deploy', actor: 'ci:x' },
      }),
      401,
      'no_credentials',
    );
  });

  it.each(['/v1/ledger', '/v1/ledger/verify', '/v1/doctor', '/health', '/metrics', '/v1/me'])(
    'GET %s still answers 200',
    async (url) => {
      const res = await server.app.inject({ method: 'GET', url, headers: asAdmin() });
      expect(res.statusCode, res.body).toBe(200);
    },
  );

  it.each([
    '/v1/live',
    '/v1/episodes',
    '/v1/episodes/ep-20260101T000000Z-000000',
    '/v1/incidents',
    '/v1/search/fields',
    '/v1/policy',
    '/v1/approvals',
    '/v1/autonomy',
    '/v1/impact',
    '/v1/users',
    '/v1/teams',
    '/v1/settings/access',
    '/v1/settings/mail',
    '/v1/settings/sso',
  ])('GET %s answers 503 until a licence is there', async (url) => {
    const res = await server.app.inject({ method: 'GET', url, headers: asAdmin() });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json()).toStrictEqual({ error: 'not operating yet', mode: 'setup' });
  });

  it('doctor fails on main while in setup', async () => {
    const report = (
      await server.app.inject({ method: 'GET', url: '/v1/doctor', headers: asAdmin() })
    ).json<{ status: string; checks: { check: string; status: string; detail: string }[] }>();
    expect(report.status).toBe('fail');
    expect(report.checks.find((c) => c.check === 'main')).toMatchObject({
      status: 'fail',
      detail: 'setup: no valid licence',
    });
  });
});

describe('mode gating: configuring (trial)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await buildTestServer({ env: { SVC_TRIAL: '1', SVC_INGEST_TOKEN: '' } });
  });
  afterAll(async () => {
    await server.cleanup();
  });

  it('the trial makes the mode configuring', async () => {
    const body = (await server.app.inject({ method: 'GET', url: '/v1/status' })).json<{
      mode: string;
      ingest: boolean;
      licence: { valid: boolean };
    }>();
    expect(body.mode).toBe('configuring');
    expect(body.licence.valid).toBe(true);
    expect(body.ingest).toBe(false);
  });

  // This server has no SVC_INGEST_TOKEN.
  it('ingestion off: any token but the admin token is 401 ingest_off, after the wait', async () => {
    for (const token of [INGEST_TOKEN, WRONG_TOKEN]) {
      const started = performance.now();
      const res = await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        headers: bearer(token),
        payload: { type: 'human.deploy', actor: 'ci:x' },
      });
      const body = expectError(res, 401, 'ingest_off');
      expect(body.message).toContain('SVC_INGEST_TOKEN');
      expect(performance.now() - started).toBeGreaterThanOrEqual(480);
    }
  });

  it('ingestion off: no credential is still no_credentials', async () => {
    expectError(
      await server.app.inject({
        method: 'POST',
        url: '/v1/events',
        payload: { type: 'human.deploy', actor: 'ci:x' },
      }),
      401,
      'no_credentials',
    );
  });

  it('ingestion off: the admin token still appends events', async () => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/v1/events',
      headers: asAdmin(),
      payload: { type: 'human.deploy', actor: 'ci:x', data: { service: 'api', version: '2' } },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ type: string }>().type).toBe('human.deploy');
  });
});

describe('actorOf: `by` counts only with the admin token', () => {
  const admin: Principal = { kind: 'admin-token', name: 'admin-token', role: 'owner' };
  const ingest: Principal = { kind: 'ingest-token', name: 'ingest-token', role: null };
  const session: Principal = { kind: 'session', name: 'alice', role: 'admin', userId: 'u-1' };

  it('the admin token acts for `by`', () => {
    // Recorded as acting for bob, counted by id as the admin token (bob never approves by it).
    expect(actorOf(admin, 'bob')).toStrictEqual({
      name: 'bob',
      via: 'admin-token',
      id: 'admin-token',
    });
    expect(actorOf(admin, '  bob  ')).toStrictEqual({
      name: 'bob',
      via: 'admin-token',
      id: 'admin-token',
    });
  });

  it('the admin token without `by` (or a blank one) is itself', () => {
    expect(actorOf(admin)).toStrictEqual({ name: 'admin-token', id: 'admin-token' });
    expect(actorOf(admin, null)).toStrictEqual({ name: 'admin-token', id: 'admin-token' });
    expect(actorOf(admin, '   ')).toStrictEqual({ name: 'admin-token', id: 'admin-token' });
  });

  it('a session or the ingest token is never anyone else', () => {
    expect(actorOf(session, 'bob')).toStrictEqual({ name: 'alice', id: 'u-1' });
    expect(actorOf(session)).toStrictEqual({ name: 'alice', id: 'u-1' });
    expect(actorOf(ingest, 'bob')).toStrictEqual({ name: 'ingest-token', id: 'ingest-token' });
  });
});
