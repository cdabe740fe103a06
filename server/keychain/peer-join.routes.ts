// POST /v1/keychain/peer/join/*: an install pairing with this home by code (pairing.ts). The
// joiner is in no roster yet, so each request is signed by the key it names: in the body for
// join/hello, then the key its request was made with. Throttled like the other calls before
// pairing, but join/status, which a joiner asks every few seconds while it waits, like a member.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fingerprintOfSigPub } from './authority-log.js';
import type { VerifiedRequest, VerifyFailure } from './crypto/peer-signature.js';
import { importAgreementPublic, sealTo } from './crypto/sealed-box.js';
import type { KeychainStore } from './keychain.store.js';
import type { JoinStatus, PairingHome } from './pairing.js';
import { aadFor, ROSTER_AAD } from './peer-aad.js';

type Limit = { rateLimit: { max: number; timeWindow: number } };

interface JoinRouteOptions {
  readonly pairing: PairingHome;
  readonly store: KeychainStore;
  readonly limits: { preAuth: Limit; member: Limit };
  readonly verifySelfSigned: (
    req: FastifyRequest,
    keychainId: string,
    sigPub: string | null,
  ) => VerifiedRequest | VerifyFailure;
  readonly refuse: (
    req: FastifyRequest,
    reply: FastifyReply,
    f: VerifyFailure,
    keyid: string | null,
  ) => unknown;
  readonly answer: (
    req: FastifyRequest,
    reply: FastifyReply,
    status: number,
    payload: unknown,
    nonce: string,
  ) => unknown;
  readonly answerError: (
    req: FastifyRequest,
    reply: FastifyReply,
    err: unknown,
    nonce: string,
  ) => unknown;
  readonly jsonOf: (body: unknown) => Record<string, unknown> | null;
}

const REQUEST_ID = /^pr_[a-z2-7]{16}$/;
const NONCE = /^[0-9a-f]{64}$/;

const unreadable = (message: string): VerifyFailure => ({
  ok: false,
  status: 400,
  code: 'join_unreadable',
  message,
});

export async function joinRoutes(app: FastifyInstance, o: JoinRouteOptions): Promise<void> {
  const { pairing, store } = o;

  /** The home's keychain id, or a 409 when this install is no home. */
  function homeKeychain(reply: FastifyReply): string | null {
    const st = store.state();
    if (st?.role === 'home') return st.keychain_id;
    void reply
      .code(409)
      .send({ error: 'not_home', message: 'this install is not a keychain home' });
    return null;
  }

  /** A later call about a request: signed by the key that request was made with. */
  function verifyFor(req: FastifyRequest, keychainId: string) {
    const body = o.jsonOf(req.body);
    const requestId = typeof body?.['request_id'] === 'string' ? body['request_id'] : '';
    const keyid =
      typeof req.headers['keychain-from'] === 'string' ? req.headers['keychain-from'] : '';
    const keys = REQUEST_ID.test(requestId) ? pairing.keysOf(requestId, keyid) : null;
    return {
      body,
      requestId,
      keys,
      verified: o.verifySelfSigned(req, keychainId, keys?.sig_pub ?? null),
    };
  }

  /** A status as the joiner gets it: the roster sealed to its own agreement key once added. */
  function statusBody(s: JoinStatus, keychainId: string, fp: string, kxPub: string) {
    if (s.state !== 'added') return s;
    const sealed = sealTo(
      importAgreementPublic(kxPub),
      Buffer.from(JSON.stringify(s.roster), 'utf8'),
      aadFor(ROSTER_AAD, keychainId, fp),
    );
    return { state: 'added', sealed };
  }

  app.post('/keychain/peer/join/hello', { config: o.limits.preAuth }, async (req, reply) => {
    const keychainId = homeKeychain(reply);
    if (keychainId === null) return reply;
    const body = o.jsonOf(req.body);
    const sigPub = typeof body?.['sig_pub'] === 'string' ? body['sig_pub'] : null;
    const verified = o.verifySelfSigned(req, keychainId, sigPub);
    const fp = sigPub === null ? null : fingerprintOfSigPub(sigPub);
    if (!verified.ok) return o.refuse(req, reply, verified, fp);
    const kxPub = body?.['kx_pub'];
    const label = body?.['label'];
    let kxGood = false;
    try {
      kxGood = typeof kxPub === 'string' && importAgreementPublic(kxPub) !== null;
    } catch {
      kxGood = false;
    }
    if (!kxGood || typeof kxPub !== 'string' || sigPub === null)
      return o.refuse(req, reply, unreadable('join/hello needs sig_pub, kx_pub and label'), fp);
    try {
      const made = await pairing.hello({
        fingerprint: verified.keyid,
        sig_pub: sigPub,
        kx_pub: kxPub,
        label:
          typeof label === 'string' && label.trim() !== ''
            ? label.trim().slice(0, 64)
            : `site ${verified.keyid.slice(0, 8)}`,
        // The URL it gives (its SVC_CONSOLE_URL), else the address it called from.
        address:
          typeof body?.['address'] === 'string' && /^https?:\/\/\S{1,240}$/.test(body['address'])
            ? body['address']
            : req.ip,
      });
      return o.answer(req, reply, 200, made, verified.nonce);
    } catch (err) {
      return o.answerError(req, reply, err, verified.nonce);
    }
  });

  app.post('/keychain/peer/join/nonce', { config: o.limits.preAuth }, async (req, reply) => {
    const keychainId = homeKeychain(reply);
    if (keychainId === null) return reply;
    const { body, requestId, verified } = verifyFor(req, keychainId);
    if (!verified.ok) return o.refuse(req, reply, verified, null);
    const nonce = body?.['joiner_nonce'];
    if (typeof nonce !== 'string' || !NONCE.test(nonce))
      return o.refuse(req, reply, unreadable('joiner_nonce must be 64 hex digits'), verified.keyid);
    try {
      return o.answer(
        req,
        reply,
        200,
        await pairing.nonce(verified.keyid, requestId, nonce),
        verified.nonce,
      );
    } catch (err) {
      return o.answerError(req, reply, err, verified.nonce);
    }
  });

  for (const [path, limit] of [
    ['confirm', o.limits.preAuth],
    ['status', o.limits.member],
  ] as const)
    app.post(`/keychain/peer/join/${path}`, { config: limit }, async (req, reply) => {
      const keychainId = homeKeychain(reply);
      if (keychainId === null) return reply;
      const { requestId, keys, verified } = verifyFor(req, keychainId);
      if (!verified.ok || keys === null)
        return o.refuse(req, reply, verified.ok ? unreadable('no such request') : verified, null);
      try {
        const s =
          path === 'confirm'
            ? await pairing.joinerConfirmed(verified.keyid, requestId)
            : await pairing.status(verified.keyid, requestId);
        return o.answer(
          req,
          reply,
          200,
          statusBody(s, keychainId, verified.keyid, keys.kx_pub),
          verified.nonce,
        );
      } catch (err) {
        return o.answerError(req, reply, err, verified.nonce);
      }
    });

  app.post('/keychain/peer/join/abort', { config: o.limits.preAuth }, async (req, reply) => {
    const keychainId = homeKeychain(reply);
    if (keychainId === null) return reply;
    const { body, requestId, verified } = verifyFor(req, keychainId);
    if (!verified.ok) return o.refuse(req, reply, verified, null);
    const reason = body?.['reason'] === 'code' ? 'code' : 'cancelled';
    try {
      return o.answer(
        req,
        reply,
        200,
        await pairing.abort(verified.keyid, requestId, reason),
        verified.nonce,
      );
    } catch (err) {
      return o.answerError(req, reply, err, verified.nonce);
    }
  });
}
