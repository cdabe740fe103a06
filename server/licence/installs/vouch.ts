// What E does with `POST /v1/licence/installs/vouch {text, code}` (licence.md §3.7, step 3), as a
// pure decision: every look check again, the replay guard, the typed code compared in constant
// time (the fifth wrong code burns the request), then the outcome with the text to carry. The
// caller records the req_id before it answers (so a text is vouched once), waits the 0.5 s of a
// wrong code, and talks to the authority when the outcome says so.
import type { KeyObject } from 'node:crypto';
import type { Envelope } from '../document/envelope.js';
import type { InstallRole } from '../document/licence-doc.js';
import { codeMatches } from './code.js';
import { buildForward, type ForwardPayload } from './forward.js';
import { buildGrant, type GrantPayload } from './grant.js';
import { examine, type LookAnswer, type LookContext } from './look.js';
import { examineRequest, type SignedRequest } from './request.js';

/** Wrong codes a request survives: the fifth burns it (N must ask again). */
export const MAX_CODE_MISMATCHES = 5;

/** What E has recorded of a request (licence_requests on E). */
export interface RequestRecord {
  /** open: only wrong codes so far; the others end the request here */
  readonly state: 'open' | 'vouched' | 'forwarded' | 'authority' | 'burned';
  /** wrong codes typed so far */
  readonly mismatches: number;
}

export interface VouchContext extends Omit<LookContext, 'seenReqIds'> {
  /** E's record of a req_id, or null when E has never seen it vouched */
  readonly recordOf: (reqId: string) => RequestRecord | null;
  /** E's install key (Ed25519, private), to sign grants and forwards */
  readonly installKey: KeyObject;
  /** E's licence envelope as installed, attached to grants */
  readonly envelope: Envelope | null;
  readonly revocationsSeq: number;
  /** E's revocation list as signed, attached to a grant */
  readonly revocations?: string | null;
  /** the role the admin gives N (default from the request's purpose) */
  readonly role?: InstallRole;
}

export type VouchResult =
  /** 409 already_vouched: this req_id was vouched, forwarded or sent to the authority here */
  | { readonly outcome: 'already_vouched'; readonly req_id: string }
  /** 409 request_burned: five wrong codes; N must ask again */
  | { readonly outcome: 'request_burned'; readonly req_id: string }
  /** 400: a check rules any vouch out (look says which) */
  | { readonly outcome: 'refused'; readonly why: string; readonly look: LookAnswer }
  /** 409 code_mismatch, or request_burned when `burned` (the fifth) */
  | {
      readonly outcome: 'code_mismatch';
      readonly req_id: string;
      readonly attempt: number;
      readonly burned: boolean;
    }
  /** granted offline: the grant text goes back to N */
  | {
      readonly outcome: 'granted';
      readonly why: string;
      readonly request: SignedRequest;
      readonly grant: GrantPayload;
      readonly text: string;
    }
  /** online: send the request to the authority; `expect` is what look foresaw */
  | {
      readonly outcome: 'authority';
      readonly expect: 'granted' | 'pending';
      readonly why: string;
      readonly request: SignedRequest;
    }
  /** no route and no allowance: the forward bundle for the vendor portal */
  | {
      readonly outcome: 'manual';
      readonly why: string;
      readonly request: SignedRequest;
      readonly forward: ForwardPayload;
      readonly text: string;
    };

/** Decides a vouch; never throws on any text or code. */
export function decideVouch(text: unknown, code: unknown, ctx: VouchContext): VouchResult {
  const reqId = examineRequest(text).payload?.req_id ?? null;
  const record = reqId === null ? null : ctx.recordOf(reqId);
  if (reqId !== null && record !== null && record.state !== 'open') {
    return record.state === 'burned'
      ? { outcome: 'request_burned', req_id: reqId }
      : { outcome: 'already_vouched', req_id: reqId };
  }
  const x = examine(text, { ...ctx, seenReqIds: new Set() });
  const { answer } = x;
  if (answer.would === 'refused' || x.signed === null || answer.digits === null) {
    return { outcome: 'refused', why: answer.why, look: answer };
  }
  const request = x.signed;
  const id = request.payload.req_id;
  if (!codeMatches(code, answer.digits)) {
    const attempt = (record?.mismatches ?? 0) + 1;
    return {
      outcome: 'code_mismatch',
      req_id: id,
      attempt,
      burned: attempt >= MAX_CODE_MISMATCHES,
    };
  }
  const lic = ctx.licence;
  if (x.route === 'authority') {
    return {
      outcome: 'authority',
      expect: answer.would === 'granted' ? 'granted' : 'pending',
      why: answer.why,
      request,
    };
  }
  if (x.route === 'grant' && lic !== null && ctx.envelope !== null) {
    const g = buildGrant({
      request: request.payload,
      licence: lic,
      envelope: ctx.envelope,
      installKey: ctx.installKey,
      thisFingerprint: ctx.thisFingerprint,
      grantsIssued: ctx.grantsIssued,
      revocationsSeq: ctx.revocationsSeq,
      revocations: ctx.revocations ?? null,
      now: ctx.now,
      ...(ctx.role === undefined ? {} : { role: ctx.role }),
    });
    return { outcome: 'granted', why: answer.why, request, grant: g.payload, text: g.text };
  }
  if (x.route === 'forward' && lic !== null) {
    const f = buildForward({
      request,
      licence: lic,
      installKey: ctx.installKey,
      thisFingerprint: ctx.thisFingerprint,
      why: answer.why,
      now: ctx.now,
    });
    return { outcome: 'manual', why: answer.why, request, forward: f.payload, text: f.text };
  }
  return {
    outcome: 'refused',
    why: 'this install holds no licence envelope to vouch with',
    look: answer,
  };
}
