// A new site joining its home with a site key (SVC_KEYCHAIN_JOIN + SVC_KEYCHAIN_SITE_KEY,
// design/keychain.md §2.3): hello (is this the home the key pins?), then enrol (the key's
// secret and our public keys, sealed to the home), then the roster the home answers is
// checked and kept. Nothing of the keychain is stored before the home has said yes.
//
// Tried every 30 s for up to 2 hours while the home cannot be reached, is busy (5xx, 429)
// or is not a home yet; stopped at once, with the reason logged, when the home is not the
// one the key pins or refuses the key.
import { verify, type KeyObject } from 'node:crypto';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import type { Clock } from '../shared/clock.js';
import { checkLog, fingerprintOfSigPub, importSigPub } from './authority-log.js';
import { importAgreementPublic, openSealed, sealTo } from './crypto/sealed-box.js';
import type { KeychainEvents } from './keychain.events.js';
import type { Hello, Identity, Roster } from './keychain.service.js';
import { helloText } from './keychain.service.js';
import type { KeychainStore } from './keychain.store.js';
import { callPeer, readCapped } from './peer-client.js';
import { aadFor, ENROL_AAD, ROSTER_AAD } from './peer-aad.js';
import { parseSiteKey } from './site-key.js';

export const JOIN_RETRY_S = 30;
export const JOIN_DEADLINE_S = 2 * 3600;

export type Attempt =
  | { readonly kind: 'enrolled' }
  | { readonly kind: 'retry'; readonly why: string; readonly afterS?: number }
  | { readonly kind: 'fatal'; readonly why: string; readonly reason: string };

export type JoinState =
  | { state: 'trying'; attempts: number; last_error: string | null; deadline: string }
  | { state: 'enrolled'; attempts: number }
  | { state: 'failed'; attempts: number; last_error: string }
  | { state: 'gave_up'; attempts: number; last_error: string | null };

/**
 * The retry policy on its own (tested on a fake clock): attempts until one enrols or is
 * fatal, waiting 30 s (or the home's Retry-After) between, never past the 2-hour deadline.
 */
export async function runJoin(deps: {
  attempt: () => Promise<Attempt>;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  onState: (s: JoinState) => void;
  stopped: () => boolean;
}): Promise<JoinState> {
  const deadline = deps.clock.now() + JOIN_DEADLINE_S * 1000;
  const deadlineIso = new Date(deadline).toISOString();
  let attempts = 0;
  let lastError: string | null = null;
  for (;;) {
    if (deps.stopped()) return { state: 'gave_up', attempts, last_error: lastError };
    attempts += 1;
    const result = await deps.attempt();
    if (result.kind === 'enrolled') {
      const done: JoinState = { state: 'enrolled', attempts };
      deps.onState(done);
      return done;
    }
    lastError = result.why;
    if (result.kind === 'fatal') {
      const failed: JoinState = { state: 'failed', attempts, last_error: result.why };
      deps.onState(failed);
      return failed;
    }
    const waitMs = Math.max(JOIN_RETRY_S, result.afterS ?? 0) * 1000;
    if (deps.clock.now() + waitMs > deadline) {
      const gaveUp: JoinState = { state: 'gave_up', attempts, last_error: lastError };
      deps.onState(gaveUp);
      return gaveUp;
    }
    deps.onState({ state: 'trying', attempts, last_error: lastError, deadline: deadlineIso });
    await deps.sleep(waitMs);
  }
}

interface JoinDeps {
  readonly url: string;
  readonly siteKey: string;
  readonly label: string;
  readonly address: string | null;
  readonly identity: Identity;
  readonly agreementKey: KeyObject;
  readonly store: KeychainStore;
  readonly ledger: DomainLedger<KeychainEvents>;
  readonly writer: Writer;
  readonly clock: Clock;
}

function isHello(x: unknown): x is Hello {
  const h = x as Partial<Hello> | null;
  return (
    typeof h === 'object' &&
    h !== null &&
    typeof h.keychain_id === 'string' &&
    typeof h.epoch === 'number' &&
    typeof h.head === 'string' &&
    typeof h.home_fp === 'string' &&
    typeof h.home_sig_pub === 'string' &&
    typeof h.home_kx_pub === 'string' &&
    typeof h.sig === 'string'
  );
}

/** One try at joining: the outcome decides whether runJoin tries again. */
export async function attemptJoin(deps: JoinDeps): Promise<Attempt> {
  const key = parseSiteKey(deps.siteKey);
  if ('error' in key) return { kind: 'fatal', why: key.error, reason: 'bad_site_key' };
  if (deps.store.state() !== null) return { kind: 'enrolled' };

  const asked = await askHello(deps.url);
  if ('forged' in asked)
    return {
      kind: 'fatal',
      reason: 'pin_mismatch',
      why: `${asked.why}: possible impersonation, not retried`,
    };
  if ('why' in asked)
    return {
      kind: 'retry',
      why: asked.why,
      ...(asked.afterS !== undefined && { afterS: asked.afterS }),
    };
  const { hello, homeKey } = asked;
  // The pin: the home must be the one the key names (askHello checked its own signature).
  if (hello.home_fp !== key.homeFp)
    return {
      kind: 'fatal',
      reason: 'pin_mismatch',
      why: `the install at ${deps.url} is not the home this site key pins (${key.homeFp.slice(0, 12)}…): possible impersonation, not retried`,
    };

  const enrol = {
    key_id: key.id,
    secret: key.secret,
    sig_pub: deps.identity.sigPub,
    kx_pub: deps.identity.kxPub,
    label: deps.label,
    address: deps.address,
  };
  const sealed = sealTo(
    importAgreementPublic(hello.home_kx_pub),
    Buffer.from(JSON.stringify(enrol), 'utf8'),
    aadFor(ENROL_AAD, hello.keychain_id, hello.home_fp),
  );
  const answer = await callPeer(
    { url: deps.url, fingerprint: hello.home_fp, key: homeKey },
    '/v1/keychain/peer/enrol',
    { sig_pub: deps.identity.sigPub, sealed },
    {
      signer: { fingerprint: deps.identity.fingerprint, key: deps.identity.key },
      keychainId: hello.keychain_id,
      epoch: hello.epoch,
      head: hello.head,
      now: deps.clock.now(),
    },
  );
  if (answer.kind !== 'answered')
    return {
      kind: 'retry',
      why:
        answer.kind === 'unreachable'
          ? `the home cannot be reached: ${answer.why}`
          : `the home's answer could not be verified (${answer.why})`,
    };
  if (answer.status === 429 || answer.status >= 500)
    return {
      kind: 'retry',
      why: `the home answered ${String(answer.status)}`,
      ...(answer.retryAfterS !== null && { afterS: answer.retryAfterS }),
    };
  const body = answer.body as { error?: string; message?: string; sealed?: unknown } | null;
  if (answer.status !== 200)
    return {
      kind: 'fatal',
      reason: body?.error ?? `http_${String(answer.status)}`,
      why: `the home refused the site key: ${body?.message ?? String(answer.status)}`,
    };

  const kept = await keepRoster(deps, body?.sealed, {
    keychainId: hello.keychain_id,
    homeFp: key.homeFp,
    via: `site_key:${key.id}`,
  });
  if (kept !== null) return kept;
  return { kind: 'enrolled' };
}

/** The home's hello, its signature checked against the key it names; or why to try again. */
export async function askHello(
  url: string,
): Promise<
  | { hello: Hello; homeKey: KeyObject }
  | { why: string; afterS?: number }
  | { forged: true; why: string }
> {
  let res: Response;
  try {
    res = await fetch(new URL('/v1/keychain/peer/hello', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(15_000),
      redirect: 'manual',
    });
  } catch (err) {
    const cause = (err as Error).cause;
    return {
      why: `the home cannot be reached: ${cause instanceof Error ? cause.message : (err as Error).message}`,
    };
  }
  const hello: unknown = await readCapped(res, 64 * 1024)
    .then((b) => JSON.parse(b.toString('utf8')) as unknown)
    .catch(() => null);
  if (res.status === 429 || res.status >= 500 || res.status === 409 || res.status === 404)
    return {
      why: `the home answered ${String(res.status)}${res.status === 409 ? ' (not a keychain home yet)' : ''}`,
      ...(res.headers.get('retry-after') !== null && {
        afterS: Number(res.headers.get('retry-after')) || 0,
      }),
    };
  if (!res.ok || !isHello(hello))
    return { why: `the home answered ${String(res.status)} without a hello` };
  const homeKey = importSigPub(hello.home_sig_pub);
  const { sig, ...signed } = hello;
  let signatureGood = false;
  try {
    signatureGood =
      homeKey !== null && verify(null, helloText(signed), homeKey, Buffer.from(sig, 'base64url'));
  } catch {
    signatureGood = false;
  }
  if (
    homeKey === null ||
    !signatureGood ||
    fingerprintOfSigPub(hello.home_sig_pub) !== hello.home_fp
  )
    return { forged: true, why: `the install at ${url} answered a hello it did not sign itself` };
  return { hello, homeKey };
}

type RosterDeps = Pick<
  JoinDeps,
  'store' | 'ledger' | 'writer' | 'clock' | 'agreementKey' | 'identity' | 'label' | 'url'
>;

/**
 * The roster a home answered a new member (sealed to us): opened, its log checked, and kept
 * as our enrolment; null when kept, else why not (a retry, or fatal when the log is bad).
 */
export async function keepRoster(
  deps: RosterDeps,
  sealed: unknown,
  expect: { keychainId: string; homeFp: string; via: string },
): Promise<Attempt | null> {
  let roster: Roster;
  try {
    roster = JSON.parse(
      openSealed(
        deps.agreementKey,
        sealed,
        aadFor(ROSTER_AAD, expect.keychainId, deps.identity.fingerprint),
      ).toString('utf8'),
    ) as Roster;
  } catch {
    return { kind: 'retry', why: 'the roster the home answered could not be opened' };
  }
  const logProblem = checkLog(roster.records, expect.keychainId);
  if (
    logProblem !== null ||
    roster.home_fp !== expect.homeFp ||
    roster.keychain_id !== expect.keychainId
  )
    return {
      kind: 'fatal',
      reason: 'bad_roster',
      why: `the home's authority log does not hold: ${logProblem ?? 'another home or keychain'}`,
    };
  await deps.writer.transact(() => {
    if (deps.store.state() !== null) return;
    deps.ledger.append({
      type: 'keychain.enrolled',
      actor: 'system',
      data: {
        keychain_id: roster.keychain_id,
        home_fp: roster.home_fp,
        epoch: roster.epoch,
        via: expect.via,
        label: deps.label,
        carried: roster.carried,
        // The home's own entry has no address: we reach it where we joined it.
        members: roster.members.map((m) =>
          m.fingerprint === roster.home_fp && m.address === null ? { ...m, address: deps.url } : m,
        ),
        records: roster.records,
      },
    });
    deps.store.heard(roster.home_fp, deps.clock.nowIso());
  });
  return null;
}
