// POST /v1/keychain/peer/*: the calls installs make to each other. No session: each request
// is signed with the sender's install key (crypto/peer-signature.ts) and each answer with
// ours; secrets travel sealed to the recipient's agreement key. Bodies are read raw (the
// signature covers their digest), at most 64 KB, and every address is throttled, the
// calls before pairing (hello, enrol) ten times harder than a member's.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { KeyObject } from 'node:crypto';
import type { Clock } from '../shared/clock.js';
import { statusOf } from '../http/errors.js';
import { InvalidInputError, ServiceError } from '../shared/errors.js';
import { fingerprintOfSigPub, importSigPub } from './authority-log.js';
import {
  signResponse,
  verifyRequest,
  type VerifiedRequest,
  type VerifyFailure,
} from './crypto/peer-signature.js';
import { openSealed, sealTo, importAgreementPublic, SealedBoxError } from './crypto/sealed-box.js';
import type { EnrolRequest, KeychainService } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { aadFor, ENROL_AAD, ROSTER_AAD } from './peer-aad.js';
import { createPullBucket, PULL_EVERY_MS } from './pull-bucket.js';
import { joinRoutes } from './peer-join.routes.js';
import type { PairingHome } from './pairing.js';
import type { Handover } from './handover.js';
import type { Takeover } from './takeover.js';

/** The specification's limit on a peer request body. */
export const PEER_BODY_LIMIT = 64 * 1024;
/** Per address: before pairing 10 a minute, a member's calls 120 a minute (design §2.10). */
export const PRE_AUTH_PER_MINUTE = 10;
export const MEMBER_PER_MINUTE = 120;

export { aadFor, ENROL_AAD, PARTS_AAD, ROSTER_AAD } from './peer-aad.js';

interface Options {
  readonly keychain: KeychainService;
  readonly pairing: PairingHome;
  readonly handover: Handover;
  readonly takeover: Takeover;
  /** The licence part: the home vouches for a member it seated (licence-seat.ts). */
  readonly licenceSeat: {
    vouchFor(fp: string, body: Record<string, unknown> | null): Promise<unknown>;
  };
  readonly store: KeychainStore;
  readonly clock: Clock;
  readonly identity: { fingerprint: string; key: KeyObject };
  readonly agreementKey: KeyObject;
  /** A refused request, for the ledger (aggregated by the caller). */
  readonly onRefused: (failure: {
    code: string;
    address: string;
    path: string;
    keyid: string | null;
  }) => void;
}

/** The body as sent; a request without one has none (not undefined). */
function rawBody(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

const KEY_ID = /^[A-Z2-7]{8}$/;

function jsonOf(body: unknown): Record<string, unknown> | null {
  if (!Buffer.isBuffer(body)) return null;
  try {
    const parsed: unknown = JSON.parse(body.toString('utf8'));
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const NOT_HOME = { ok: false, notHome: true } as const;
type NotHome = typeof NOT_HOME;

export async function keychainPeerRoutes(app: FastifyInstance, opts: Options): Promise<void> {
  const { keychain, store, clock, identity } = opts;
  await app.register(rateLimit, {
    global: false,
    // The answer every throttled caller gets: 429 with Retry-After (the plugin's header).
    errorResponseBuilder: (_req, ctx) => ({
      statusCode: 429,
      error: 'throttled',
      message: `too many keychain calls from this address; retry in ${String(Math.ceil(ctx.ttl / 1000))} s`,
    }),
  });
  // Raw bodies: the signature covers the bytes as sent, not a re-serialisation.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'buffer', bodyLimit: PEER_BODY_LIMIT },
    (_req, body, done) => {
      done(null, body);
    },
  );

  const preAuth = { rateLimit: { max: PRE_AUTH_PER_MINUTE, timeWindow: 60_000 } };
  const member = { rateLimit: { max: MEMBER_PER_MINUTE, timeWindow: 60_000 } };

  function refuse(
    req: FastifyRequest,
    reply: FastifyReply,
    f: VerifyFailure,
    keyid: string | null,
  ) {
    opts.onRefused({ code: f.code, address: req.ip, path: req.url, keyid });
    return reply.code(f.status).send({
      error: f.code,
      message: f.message,
      ...(f.serverTime !== undefined && { server_time: f.serverTime }),
    });
  }

  /** Sends `payload` as JSON, signed as the answer to the request that carried `nonce`. */
  function answer(
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    payload: unknown,
    requestNonce: string,
  ) {
    const body = Buffer.from(JSON.stringify(payload), 'utf8');
    const st = store.state();
    const headers = signResponse({
      status,
      body,
      keychainId: st?.keychain_id ?? '',
      from: identity.fingerprint,
      to: String(req.headers['keychain-from'] ?? ''),
      epoch: st?.epoch ?? 0,
      head: store.head()?.hash ?? '',
      requestNonce,
      key: identity.key,
      keyid: identity.fingerprint,
      now: clock.now(),
    });
    return reply.code(status).headers(headers).type('application/json').send(body);
  }

  /** A refusal of the service (a used site key …), signed like any answer. */
  function answerError(req: FastifyRequest, reply: FastifyReply, err: unknown, nonce: string) {
    if (!(err instanceof ServiceError)) throw err;
    return answer(
      req,
      reply,
      statusOf[err.kind],
      { ...err.details, error: err.code, message: err.message },
      nonce,
    );
  }

  /** A member's pinned key; a removed one is told so (403), anyone else is unknown. */
  function memberKey(id: string) {
    const m = store.member(id);
    if (m?.removed_at != null) return { refused: 'removed' as const };
    const key = m === null || m.role !== 'member' ? null : importSigPub(m.sig_pub);
    return key === null ? { refused: 'unknown' as const } : { key };
  }

  /** A member's signed call to this home: verified, or why not (409 when this is no home). */
  function homeVerifiesMember(req: FastifyRequest): VerifiedRequest | VerifyFailure | NotHome {
    const st = store.state();
    if (st?.role !== 'home') return NOT_HOME;
    return verifyMember(req, st.keychain_id);
  }

  function verifyMember(req: FastifyRequest, keychainId: string) {
    return verifyRequest({
      method: req.method,
      path: req.url.split('?')[0] ?? req.url,
      query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '',
      headers: req.headers,
      body: rawBody(req),
      now: clock.now(),
      expect: { keychainId, to: identity.fingerprint },
      publicKeyFor: memberKey,
      recordNonce: (id: string, nonce: string, expiresAt: number) =>
        store.recordNonce(id, nonce, expiresAt, clock.now()),
    });
  }

  /**
   * A removed member is told so in an answer signed by the home (bound to its request's
   * nonce), so that it can believe it and stop; every other refusal goes unsigned.
   */
  function refuseMember(req: FastifyRequest, reply: FastifyReply, f: VerifyFailure | NotHome) {
    if ('notHome' in f) {
      // A former home tells its members where the home went, signed, so they can follow.
      const moved = opts.handover.movedAnswer();
      const st = store.state();
      const asked = moved === null || st === null ? null : verifyMember(req, st.keychain_id);
      if (moved !== null && asked?.ok === true)
        return answer(
          req,
          reply,
          409,
          { error: 'home_moved', message: 'the home moved to another install', ...moved },
          asked.nonce,
        );
      return reply
        .code(409)
        .send({ error: 'not_home', message: 'this install is not a keychain home' });
    }
    const keyid =
      typeof req.headers['keychain-from'] === 'string' ? req.headers['keychain-from'] : null;
    if (f.code !== 'member_removed') return refuse(req, reply, f, keyid);
    opts.onRefused({ code: f.code, address: req.ip, path: req.url, keyid });
    const nonce =
      /nonce="([^"]{1,64})"/.exec(String(req.headers['signature-input'] ?? ''))?.[1] ?? '';
    return answer(req, reply, 403, { error: f.code, message: f.message }, nonce);
  }

  /** A request signed by the key it names itself (an install not in the roster yet). */
  function verifySelfSigned(req: FastifyRequest, keychainId: string, sigPub: string | null) {
    const fp = sigPub === null ? null : fingerprintOfSigPub(sigPub);
    const sigKey = sigPub === null ? null : importSigPub(sigPub);
    return verifyRequest({
      method: req.method,
      path: req.url.split('?')[0] ?? req.url,
      query: req.url.includes('?') ? req.url.slice(req.url.indexOf('?')) : '',
      headers: req.headers,
      body: rawBody(req),
      now: clock.now(),
      expect: { keychainId, to: identity.fingerprint },
      publicKeyFor: (keyid: string) =>
        keyid === fp && sigKey !== null ? { key: sigKey } : { refused: 'unknown' as const },
      recordNonce: (keyid: string, nonce: string, expiresAt: number) =>
        store.recordNonce(keyid, nonce, expiresAt, clock.now()),
    });
  }

  app.post('/keychain/peer/hello', { config: preAuth }, async () => keychain.hello());

  app.post('/keychain/peer/enrol', { config: preAuth }, async (req, reply) => {
    const st = store.state();
    if (st?.role !== 'home')
      return reply
        .code(409)
        .send({ error: 'not_home', message: 'this install is not a keychain home' });
    // The sender's public key travels in the clear beside the sealed part: the signature
    // (over the body's digest) is checked before anything is decrypted.
    const parsed = jsonOf(req.body);
    const sigPub = typeof parsed?.['sig_pub'] === 'string' ? parsed['sig_pub'] : '';
    const fp = fingerprintOfSigPub(sigPub);
    // Self-signed: the new site proves it holds the key it asks to be pinned with.
    const verified = verifySelfSigned(req, st.keychain_id, sigPub);
    if (!verified.ok) return refuse(req, reply, verified, fp);
    let enrol: EnrolRequest;
    let kx: KeyObject;
    try {
      const plain = openSealed(
        opts.agreementKey,
        parsed?.['sealed'],
        aadFor(ENROL_AAD, st.keychain_id, identity.fingerprint),
      );
      const opened: unknown = JSON.parse(plain.toString('utf8'));
      if (typeof opened !== 'object' || opened === null || Array.isArray(opened))
        throw new SealedBoxError();
      enrol = opened as EnrolRequest;
      if (
        typeof enrol.key_id !== 'string' ||
        !KEY_ID.test(enrol.key_id) ||
        typeof enrol.kx_pub !== 'string' ||
        typeof enrol.secret !== 'string' ||
        enrol.sig_pub !== sigPub
      )
        throw new SealedBoxError();
      kx = importAgreementPublic(enrol.kx_pub);
    } catch (err) {
      if (!(err instanceof SealedBoxError) && !(err instanceof SyntaxError)) throw err;
      return refuse(
        req,
        reply,
        {
          ok: false,
          status: 400,
          code: 'enrol_unreadable',
          message:
            'the enrol body is not sealed to this home, or lacks key_id, secret, sig_pub or kx_pub',
        },
        fp,
      );
    }
    const label =
      typeof enrol.label === 'string' && enrol.label.trim() !== ''
        ? enrol.label.trim().slice(0, 64)
        : `site ${String(fp).slice(0, 8)}`;
    try {
      const roster = await keychain.enrol(
        verified.keyid,
        { ...enrol, label },
        typeof enrol.address === 'string' ? enrol.address.slice(0, 255) : null,
      );
      // The roster holds no secret today, but parts will: it always travels sealed.
      const box = sealTo(
        kx,
        Buffer.from(JSON.stringify(roster), 'utf8'),
        aadFor(ROSTER_AAD, st.keychain_id, verified.keyid),
      );
      return answer(req, reply, 200, { sealed: box }, verified.nonce);
    } catch (err) {
      // Made-up key ids are counted with the other refusals (aggregated per address).
      if (err instanceof ServiceError && err.code === 'site_key_unknown')
        opts.onRefused({ code: err.code, address: req.ip, path: req.url, keyid: verified.keyid });
      return answerError(req, reply, err, verified.nonce);
    }
  });

  await joinRoutes(app, {
    pairing: opts.pairing,
    store,
    limits: { preAuth, member },
    verifySelfSigned,
    refuse,
    answer,
    answerError,
    jsonOf,
  });

  const pulls = createPullBucket(() => clock.now());
  app.post('/keychain/peer/pull', { config: member }, async (req, reply) => {
    const verified = homeVerifiesMember(req);
    if (!verified.ok) return refuseMember(req, reply, verified);
    const wait = pulls.take(verified.keyid);
    if (wait !== null) {
      void reply.header('retry-after', String(wait));
      return answer(
        req,
        reply,
        429,
        {
          error: 'throttled',
          message: `this member pulls faster than one every ${String(PULL_EVERY_MS / 1000)} s; retry in ${String(wait)} s`,
        },
        verified.nonce,
      );
    }
    return answer(
      req,
      reply,
      200,
      {
        ...(await keychain.pull(verified.keyid, jsonOf(req.body))),
        handover: opts.handover.offerFor(verified.keyid),
      },
      verified.nonce,
    );
  });

  /** A call from a member on our roster (home or not), answered by `act` or its refusal. */
  const fromMember =
    (act: (fp: string, body: Record<string, unknown> | null) => Promise<unknown>) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      const st = store.state();
      if (st === null) return refuseMember(req, reply, NOT_HOME);
      const verified = verifyMember(req, st.keychain_id);
      if (!verified.ok) return refuseMember(req, reply, verified);
      try {
        return answer(req, reply, 200, await act(verified.keyid, jsonOf(req.body)), verified.nonce);
      } catch (err) {
        return answerError(req, reply, err, verified.nonce);
      }
    };

  // A seated member asking the home to vouch for it under the home's licence.
  app.post(
    '/keychain/peer/licence',
    { config: member },
    fromMember((fp, body) => opts.licenceSeat.vouchFor(fp, body)),
  );

  // Another member claims the home of a silent one (take-over).
  app.post(
    '/keychain/peer/takeover',
    { config: member },
    fromMember((fp, body) => opts.takeover.received(fp, body)),
  );

  // A home asking which epoch we follow: told stale_epoch, with the log, when it was replaced.
  app.post('/keychain/peer/epoch', { config: member }, async (req, reply) => {
    const st = store.state();
    if (st === null) return refuseMember(req, reply, NOT_HOME);
    const asked = jsonOf(req.body);
    const verified = verifyRequest({
      method: req.method,
      path: req.url.split('?')[0] ?? req.url,
      query: '',
      headers: req.headers,
      body: rawBody(req),
      now: clock.now(),
      expect: { keychainId: st.keychain_id, to: identity.fingerprint },
      // Any install on our roster, the old home above all; or the other side of a fork,
      // added by the old home in the log it shows (we may have missed its joining).
      publicKeyFor: (id: string) => {
        const m = store.member(id);
        // One we removed stays refused, whatever log it shows; so does one our log removed
        // that our roster never listed (it joined and went between two of our pulls).
        if (m?.removed_at != null || (m === null && opts.takeover.removedHere(id)))
          return { refused: 'removed' as const };
        const key =
          m === null ? opts.takeover.keyShownBy(id, asked?.['records']) : importSigPub(m.sig_pub);
        return key === null ? { refused: 'unknown' as const } : { key };
      },
      recordNonce: (id: string, nonce: string, expiresAt: number) =>
        store.recordNonce(id, nonce, expiresAt, clock.now()),
    });
    if (!verified.ok) return refuseMember(req, reply, verified);
    await opts.takeover.shown(asked?.['records'], verified.keyid);
    const theirs = asked?.['epoch'];
    const theirHead = asked?.['head'];
    const said = opts.takeover.epochAnswer(
      typeof theirs === 'number' ? theirs : 0,
      typeof theirHead === 'string' ? theirHead : null,
    );
    if ('fork' in said)
      return answer(
        req,
        reply,
        409,
        { error: 'fork', message: 'another home holds this epoch', ...said.moved },
        verified.nonce,
      );
    return said.stale
      ? answer(
          req,
          reply,
          409,
          { error: 'stale_epoch', message: 'a newer home holds the keychain', ...said.moved },
          verified.nonce,
        )
      : answer(req, reply, 200, { epoch: said.epoch }, verified.nonce);
  });

  // A member accepting the home's offer; asked again after the home handed over (a lost answer).
  app.post(
    '/keychain/peer/handover/accept',
    { config: member },
    fromMember((fp, body) => opts.handover.accepted(fp, body)),
  );

  // A member renaming itself (only itself): a signed rename record on the home.
  app.post('/keychain/peer/rename', { config: member }, async (req, reply) => {
    const verified = homeVerifiesMember(req);
    if (!verified.ok) return refuseMember(req, reply, verified);
    const label = jsonOf(req.body)?.['label'];
    try {
      if (typeof label !== 'string' || label.trim() === '' || label.trim().length > 64)
        throw new InvalidInputError('invalid_input', 'label is 1 to 64 characters', {
          field: 'label',
        });
      await keychain.rename(label.trim(), verified.keyid, { name: `peer:${verified.keyid}` });
      return answer(req, reply, 200, { renamed: true }, verified.nonce);
    } catch (err) {
      return answerError(req, reply, err, verified.nonce);
    }
  });

  // A member leaving: the home removes it from the roster (reason left).
  app.post('/keychain/peer/leave', { config: member }, async (req, reply) => {
    const verified = homeVerifiesMember(req);
    if (!verified.ok) return refuseMember(req, reply, verified);
    try {
      await keychain.removeMember(verified.keyid, { name: `peer:${verified.keyid}` }, 'left');
      return answer(req, reply, 200, { left: true }, verified.nonce);
    } catch (err) {
      return answerError(req, reply, err, verified.nonce);
    }
  });
}
