// The test licence authority (design licence.md §4.1): a Fastify app on startHttpsServer with its
// own CA → intermediate → leaf, signing with a createTestIssuer() (keys certified by the
// development root, which test builds trust). It answers the service's confirmation checks,
// redeems short trial codes (one per company), serves its revocation list, and has admin hooks
// (/_test/*) to issue, revoke, set its clock and misbehave. Test-only: nothing under server/
// imports this.
import { randomBytes } from 'node:crypto';
import type { Envelope } from '../../server/licence/document/envelope.js';
import type { LicencePayload } from '../../server/licence/document/licence-doc.js';
import type { RevocationList } from '../../server/licence/document/revocations-doc.js';
import { MAX_FORWARD_ARMOUR_BYTES, readForward } from '../../server/licence/installs/forward.js';
import { payloadJson, readArmour } from '../../server/licence/installs/armour.js';
import { roleFor } from '../../server/licence/installs/grant.js';
import { installKeyFromPub } from '../../server/licence/installs/install-pub.js';
import { signingInput, verifyBytes } from '../../server/licence/document/envelope.js';
import type { RequestPayload } from '../../server/licence/installs/request.js';
import { encodeTrialCode, type TrialToken } from '../../server/licence/trial-code.js';
import {
  createTestIssuer,
  licencePayload,
  type TestIssuer,
} from '../../server/testing/licence/issuer.js';
import { startHttpsServer, type HttpsApp, type RunningHttpsServer } from './https-server.js';
import { makePki, spkiPin, writePemFile, type Pki } from './pki.js';

export const CONFIRM_FORMAT = 'svc-confirm/1';
const DAY = 86_400_000;

/** How the authority misbehaves, set by /_test/behaviour (each call replaces the last). */
export interface Behaviour {
  /** wait this long before answering */
  readonly delay_ms?: number;
  /** answer this status whatever the facts */
  readonly status?: 'ok' | 'revoked' | 'superseded' | 'unknown_install';
  /** one byte of the signature changed */
  readonly bad_signature?: boolean;
  /** echo another nonce than the request's */
  readonly wrong_nonce?: boolean;
  /** authority_time 30 days in the past */
  readonly stale_time?: boolean;
  /** close the socket without answering */
  readonly drop_connection?: boolean;
  /** attach this serial of the licence (from its history) whatever the request's serial */
  readonly serve_licence_serial?: number;
  /** answer for another fingerprint than the request's */
  readonly other_fingerprint?: string;
  /** answer again the confirmation signed earlier at this index of `answers` (a replay) */
  readonly replay?: number;
}

export interface CheckRequest {
  readonly format: string;
  readonly licence_id: string;
  readonly serial: number;
  readonly fingerprint: string | null;
  readonly install_pub: string | null;
  readonly nonce: string;
  readonly mode: string;
  readonly revocations_seq: number;
  readonly [k: string]: unknown;
}

export interface TestAuthority {
  readonly url: string;
  readonly server: RunningHttpsServer;
  readonly issuer: TestIssuer;
  readonly pki: Pki;
  /** a PEM file holding the authority's root CA: the service's SVC_CA_BUNDLE */
  readonly caBundle: string;
  /** SPKI pins of the leaf, the intermediate and the root */
  readonly pins: { readonly leaf: string; readonly intermediate: string; readonly root: string };
  /** every check request received, oldest first */
  readonly checks: CheckRequest[];
  /** the answers signed, oldest first (a test replays one) */
  readonly answers: Envelope[];
  /** Issues a licence (a new serial of `licence_id` when it already exists). */
  issue(over?: Partial<LicencePayload>): { payload: LicencePayload; envelope: Envelope };
  revoke(r: {
    licence_id?: string;
    reason?: 'revoked' | 'superseded';
    below_serial?: number;
    kid?: string;
    /** an offline grant withdrawn (its request id) */
    grant?: string;
  }): number;
  /** The authority's clock (null: the real time). */
  setTime(iso: string | null): void;
  behave(b: Behaviour): void;
  /** Forward bundles received (POST /v1/installs/forward), oldest first. */
  readonly forwards: string[];
  /** Installs removed through POST /v1/installs/remove, oldest first. */
  readonly removals: string[];
  /** Approves a request held pending: the next serial lists its install. Returns that serial. */
  approve(reqId: string): number;
  /** A short code that redeems a trial for `company`. */
  addCode(code: string, company: string): void;
  /** An offline code signed with the issuer's Ed25519 key (SVCT1-) or its P-256 key (SVCT2-). */
  trialCode(over?: Partial<TrialToken>, alg?: 'Ed25519' | 'ES256'): string;
  /** The revocation list as signed now (it carries the issuer's key statements). */
  revocations(): Envelope;
  close(): Promise<void>;
}

export async function startTestAuthority(
  options: { issuer?: TestIssuer; port?: number } = {},
): Promise<TestAuthority> {
  const issuer = options.issuer ?? createTestIssuer();
  const pki = makePki({ name: 'test licence authority', leaf: { key: 'p256' } });
  const bundle = writePemFile(pki.caPem, 'authority-ca.pem');
  const history = new Map<string, { payload: LicencePayload; envelope: Envelope }[]>();
  const codes = new Map<string, string>();
  const companiesUsed = new Set<string>();
  const checks: CheckRequest[] = [];
  const answers: Envelope[] = [];
  let fixedTime: number | null = null;
  let behaviour: Behaviour = {};
  // The authority's list starts where the bundled one is (seq 1): its first revocation is news.
  let list: RevocationList = {
    seq: 1,
    issued_at: new Date().toISOString(),
    licences: [],
    keys: [],
    grants: [],
  };
  const now = () => fixedTime ?? Date.now();
  const forwards: string[] = [];
  const removals: string[] = [];
  /** requests over the install limit, waiting for /_test/approve */
  const held = new Map<string, { licence_id: string; request: RequestPayload }>();

  const latest = (id: string) => history.get(id)?.at(-1) ?? null;

  function issue(over: Partial<LicencePayload> = {}) {
    const prev = over.licence_id === undefined ? null : latest(over.licence_id);
    const payload = licencePayload(new Date(now()).toISOString(), {
      ...(prev === null ? {} : { ...prev.payload, issued_at: new Date(now()).toISOString() }),
      ...over,
      serial: over.serial ?? (prev === null ? 1 : prev.payload.serial + 1),
    });
    const envelope = issuer.licence(payload);
    const entry = { payload, envelope };
    history.set(payload.licence_id, [...(history.get(payload.licence_id) ?? []), entry]);
    return entry;
  }

  /** The next serial of `licenceId`, listing the install that asked. */
  function addInstall(licenceId: string, request: RequestPayload) {
    const prev = latest(licenceId);
    if (prev === null) throw new Error(`no licence ${licenceId}`);
    return issue({
      licence_id: licenceId,
      installs: [
        ...prev.payload.installs,
        {
          fingerprint: request.fingerprint,
          install_pub: request.install_pub,
          label: request.label ?? request.purpose,
          role: roleFor(request.purpose),
          added_at: new Date(now()).toISOString(),
          via: 'authority',
        },
      ],
    });
  }

  /** A forward bundle from an install on a licence (§3.7): added at once while seats are free. */
  function forwarded(text: string): { status: number; body: Record<string, unknown> } {
    forwards.push(text);
    const armour = readArmour(text, {
      label: 'SVC INSTALL FORWARD',
      maxBytes: MAX_FORWARD_ARMOUR_BYTES,
    });
    const json = armour.ok ? payloadJson(armour.armoured.payload) : null;
    const named =
      json?.ok === true && typeof json.value === 'object' && json.value !== null
        ? (json.value as { licence_id?: unknown }).licence_id
        : undefined;
    const entry = typeof named === 'string' ? latest(named) : null;
    if (entry === null)
      return { status: 400, body: { error: 'bad_forward', why: 'no such licence' } };
    const read = readForward(text, entry.payload);
    if (!read.ok)
      return { status: 400, body: { error: 'bad_forward', why: `${read.reason}: ${read.detail}` } };
    const request = read.request.payload;
    const limit = entry.payload.limits.installs;
    if (limit !== null && entry.payload.site === null && entry.payload.installs.length >= limit) {
      held.set(request.req_id, { licence_id: entry.payload.licence_id, request });
      return {
        status: 200,
        body: {
          status: 'pending',
          why: `install limit reached (${String(limit)}): the vendor must approve`,
        },
      };
    }
    const { envelope, payload } = addInstall(entry.payload.licence_id, request);
    return {
      status: 200,
      body: {
        status: 'granted',
        licence: envelope,
        why: `added to serial ${String(payload.serial)}`,
      },
    };
  }

  function approve(reqId: string): number {
    const h = held.get(reqId);
    if (h === undefined) throw new Error(`no request ${reqId} is held`);
    held.delete(reqId);
    return addInstall(h.licence_id, h.request).payload.serial;
  }

  /** E removing an install (svc-install-remove/1, signed by E): the next serial without it. */
  function removed(body: Record<string, unknown>): {
    status: number;
    body: Record<string, unknown>;
  } {
    const bytes = Buffer.from(
      typeof body['payload'] === 'string' ? body['payload'] : '',
      'base64url',
    );
    let r: Record<string, unknown> = {};
    try {
      r = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      return { status: 400, body: { error: 'bad_removal', why: 'not JSON' } };
    }
    const entry = typeof r['licence_id'] === 'string' ? latest(r['licence_id']) : null;
    if (entry === null)
      return { status: 400, body: { error: 'bad_removal', why: 'no such licence' } };
    const by = entry.payload.installs.find((i) => i.fingerprint === r['removed_by']);
    const key = by === undefined ? null : installKeyFromPub(by.install_pub);
    const sig = typeof body['sig'] === 'string' ? body['sig'] : '';
    if (
      key === null ||
      !verifyBytes('Ed25519', key, signingInput('svc-install-remove/1', bytes), sig)
    )
      return {
        status: 403,
        body: { error: 'bad_signature', why: 'not signed by an install on the licence' },
      };
    // A removal made on an older serial is stale: the vendor's later serial is its word.
    if (r['licence_serial'] !== entry.payload.serial)
      return {
        status: 409,
        body: { error: 'stale_removal', why: `serial ${String(entry.payload.serial)} is newer` },
      };
    if (!entry.payload.installs.some((i) => i.fingerprint === r['fingerprint']))
      return { status: 200, body: { status: 'unknown', why: 'not listed on the vendor’s serial' } };
    const { envelope, payload } = issue({
      licence_id: entry.payload.licence_id,
      installs: entry.payload.installs.filter((i) => i.fingerprint !== r['fingerprint']),
    });
    removals.push(String(r['fingerprint']));
    return {
      status: 200,
      body: {
        status: 'granted',
        licence: envelope,
        why: `removed in serial ${String(payload.serial)}`,
      },
    };
  }

  /** N asking where its request stands (signed by N's key): the newest serial listing it, if any. */
  function polled(signedBody: Record<string, unknown>): Record<string, unknown> {
    const bytes = Buffer.from(
      typeof signedBody['payload'] === 'string' ? signedBody['payload'] : '',
      'base64url',
    );
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
    } catch {
      return { status: 'unknown', why: 'not JSON' };
    }
    const key = installKeyFromPub(body['install_pub']);
    const sig = typeof signedBody['sig'] === 'string' ? signedBody['sig'] : '';
    if (
      key === null ||
      !verifyBytes('Ed25519', key, signingInput('svc-install-poll/1', bytes), sig)
    )
      return { status: 'unknown', why: 'not signed by the install key it names' };
    for (const entries of history.values()) {
      const last = entries.at(-1);
      if (
        last?.payload.installs.some(
          (i) => i.fingerprint === body['fingerprint'] && i.install_pub === body['install_pub'],
        ) === true
      )
        return {
          status: 'granted',
          licence: last.envelope,
          why: `listed on serial ${String(last.payload.serial)}`,
        };
    }
    const reqId = typeof body['req_id'] === 'string' ? body['req_id'] : '';
    return held.has(reqId)
      ? { status: 'pending', why: 'waiting for the vendor to approve' }
      : { status: 'unknown', why: 'no such request here' };
  }

  function revoke(r: Parameters<TestAuthority['revoke']>[0]): number {
    const at = new Date(now()).toISOString();
    list = {
      ...list,
      seq: list.seq + 1,
      issued_at: at,
      licences:
        r.licence_id === undefined
          ? list.licences
          : [
              ...list.licences,
              r.reason === 'superseded'
                ? {
                    licence_id: r.licence_id,
                    below_serial: r.below_serial ?? 2,
                    reason: 'superseded',
                  }
                : { licence_id: r.licence_id, reason: 'revoked', at },
            ],
      keys:
        r.kid === undefined ? list.keys : [...list.keys, { kid: r.kid, reason: 'compromised', at }],
      grants:
        r.grant === undefined
          ? list.grants
          : [...list.grants, { req_id: r.grant, reason: 'seat removed' }],
    };
    return list.seq;
  }

  const revocations = () => issuer.revocations(list);

  function confirmation(req: CheckRequest): Envelope {
    const b = behaviour;
    const entry = latest(req.licence_id);
    const revoked = list.licences.some(
      (l) => l.licence_id === req.licence_id && l.reason === 'revoked',
    );
    const listed =
      entry !== null &&
      (entry.payload.site !== null ||
        entry.payload.installs.some((i) => i.fingerprint === req.fingerprint));
    let status: NonNullable<Behaviour['status']> =
      entry === null || !listed
        ? 'unknown_install'
        : revoked
          ? 'revoked'
          : req.serial < entry.payload.serial
            ? 'superseded'
            : 'ok';
    if (b.status !== undefined) status = b.status;
    const attach =
      b.serve_licence_serial !== undefined
        ? history.get(req.licence_id)?.find((e) => e.payload.serial === b.serve_licence_serial)
        : status === 'superseded'
          ? entry
          : undefined;
    const payload = {
      licence_id: req.licence_id,
      fingerprint: b.other_fingerprint ?? req.fingerprint,
      nonce: b.wrong_nonce === true ? randomBytes(16).toString('base64url') : req.nonce,
      status,
      authority_time: new Date(b.stale_time === true ? now() - 30 * DAY : now()).toISOString(),
      latest_serial: entry?.payload.serial ?? 0,
      ...(attach != null && { licence: JSON.stringify(attach.envelope) }),
      ...(list.seq > req.revocations_seq && { revocations: JSON.stringify(revocations()) }),
      next_check_after_s: 3600,
    };
    let env = issuer.sign(CONFIRM_FORMAT, payload);
    if (b.bad_signature === true) {
      env = {
        ...env,
        signatures: env.signatures.map((s, i) => (i === 0 ? { ...s, sig: flip(s.sig) } : s)),
      };
    }
    answers.push(env);
    return env;
  }

  async function routes(app: HttpsApp): Promise<void> {
    app.post('/v1/check', async (req, reply) => {
      const body = req.body as Partial<CheckRequest> | null;
      if (
        body?.format !== 'svc-check/1' ||
        typeof body.licence_id !== 'string' ||
        typeof body.nonce !== 'string' ||
        typeof body.serial !== 'number'
      )
        return reply.code(400).send({ error: 'bad_request', message: 'not a svc-check/1' });
      const request = body as CheckRequest;
      checks.push(request);
      if (behaviour.drop_connection === true) {
        req.raw.socket.destroy();
        return reply;
      }
      if (behaviour.delay_ms !== undefined)
        await new Promise((resolve) => setTimeout(resolve, behaviour.delay_ms));
      const replayed = behaviour.replay === undefined ? undefined : answers[behaviour.replay];
      return replayed ?? confirmation(request);
    });
    app.post('/v1/redeem', async (req, reply) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const code = typeof body['code'] === 'string' ? body['code'] : '';
      const company = codes.get(code);
      if (company === undefined)
        return reply.code(404).send({ error: 'unknown_code', message: 'no such trial code' });
      if (companiesUsed.has(company))
        return reply
          .code(409)
          .send({ error: 'trial_used', message: `${company} has already had its trial` });
      companiesUsed.add(company);
      const t = now();
      const pub =
        typeof body['install_pub'] === 'string'
          ? body['install_pub']
          : randomBytes(32).toString('base64url');
      const { envelope } = issue({
        tier: 'trial',
        issued_at: new Date(t).toISOString(),
        not_before: new Date(t - 60_000).toISOString(),
        expires_at: new Date(t + 90 * DAY).toISOString(),
        grace_days: 1,
        warn_days: [14, 7, 1],
        customer: { id: company, name: company },
        limits: { services: 50, installs: 10 },
        features: { keychain: false, packs: '*' },
        installs: [
          {
            fingerprint: String(body['fingerprint']),
            install_pub: pub,
            label: 'trial',
            role: 'production',
            added_at: new Date(t).toISOString(),
            via: 'redeem',
          },
        ],
        trial: { trial_id: `trial-${code}`, company_key: `ck-${company}`, verified: true },
      });
      return { licence: envelope };
    });
    app.get('/v1/revocations', async () => revocations());
    app.post('/v1/installs/forward', async (req, reply) => {
      const text = (req.body as { forward?: unknown } | null)?.forward;
      const answer = forwarded(typeof text === 'string' ? text : '');
      return reply.code(answer.status).send(answer.body);
    });
    app.post('/v1/installs/remove', async (req, reply) => {
      const answer = removed((req.body ?? {}) as Record<string, unknown>);
      return reply.code(answer.status).send(answer.body);
    });
    app.post('/v1/installs/poll', async (req) =>
      polled((req.body ?? {}) as Record<string, unknown>),
    );
    app.post('/_test/approve', async (req) => ({
      serial: approve(String(((req.body ?? {}) as { req_id?: string }).req_id ?? '')),
    }));
    // Admin hooks.
    app.post('/_test/issue', async (req) => issue((req.body ?? {}) as Partial<LicencePayload>));
    app.post('/_test/revoke', async (req) => ({
      seq: revoke((req.body ?? {}) as Parameters<TestAuthority['revoke']>[0]),
    }));
    app.post('/_test/time', async (req) => {
      const iso = (req.body as { iso?: unknown } | null)?.iso;
      fixedTime = typeof iso === 'string' ? Date.parse(iso) : null;
      return { time: new Date(now()).toISOString() };
    });
    app.post('/_test/behaviour', async (req) => {
      behaviour = req.body ?? {};
      return { behaviour };
    });
  }

  const server = await startHttpsServer({
    keyPem: pki.leafKeyPem,
    chainPem: pki.chainPem,
    routes,
    ...(options.port !== undefined && { port: options.port }),
  });
  return {
    url: server.url,
    server,
    issuer,
    pki,
    caBundle: bundle.path,
    pins: {
      leaf: spkiPin(pki.leafPem),
      intermediate: spkiPin(pki.intermediatePem),
      root: spkiPin(pki.caPem),
    },
    checks,
    answers,
    forwards,
    removals,
    approve,
    issue,
    revoke,
    setTime: (iso) => {
      fixedTime = iso === null ? null : Date.parse(iso);
    },
    behave: (b) => {
      behaviour = b;
    },
    addCode: (code, company) => {
      codes.set(code, company);
    },
    trialCode: (over = {}, alg = 'Ed25519') => {
      const key = alg === 'ES256' ? issuer.p256 : issuer.ed;
      return encodeTrialCode(
        {
          trial_id: `t-${randomBytes(6).toString('hex')}`,
          company_key: `ck-${randomBytes(6).toString('hex')}`,
          days: 90,
          issued_at: new Date(now()).toISOString(),
          redeem_by: new Date(now() + 30 * DAY).toISOString(),
          kid: key.signer.kid,
          ...over,
        },
        key.signer,
      );
    },
    revocations,
    async close() {
      await server.close();
      bundle.remove();
      pki.remove();
    },
  };
}

/** The signature with its first character changed (still base64url, no longer valid). */
function flip(sig: string): string {
  const c = sig.charAt(0);
  return `${c === 'A' ? 'B' : 'A'}${sig.slice(1)}`;
}
