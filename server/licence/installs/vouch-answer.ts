// What POST /v1/licence/installs/vouch answers for each decided outcome (vouch.ts): 200 with
// the text to carry for granted and manual, 409 for a replay, a burned request or a wrong
// code, 400 naming the check when the text itself is refused.
import { ConflictError, InvalidInputError } from '../../shared/errors.js';
import type { VouchAnswer } from '../licence.wire.js';
import { MAX_CODE_MISMATCHES, type VouchResult } from './vouch.js';

export type { VouchAnswer } from '../licence.wire.js';

/** The answer, or the error to throw, for an outcome that is not `authority`. */
export function vouchAnswer(
  r: Exclude<VouchResult, { outcome: 'authority' }>,
  whyPrefix = '',
): VouchAnswer {
  switch (r.outcome) {
    case 'already_vouched':
      throw new ConflictError(
        'already_vouched',
        `request ${r.req_id} was already vouched for here: a text is vouched once`,
        { req_id: r.req_id },
      );
    case 'request_burned':
      throw new ConflictError(
        'request_burned',
        `request ${r.req_id} was burned by ${String(MAX_CODE_MISMATCHES)} wrong codes: the new install must ask again`,
        { req_id: r.req_id },
      );
    case 'code_mismatch':
      if (r.burned)
        throw new ConflictError(
          'request_burned',
          `the code does not match, for the ${String(MAX_CODE_MISMATCHES)}th time: request ${r.req_id} is burned and the new install must ask again`,
          { req_id: r.req_id, attempt: r.attempt },
        );
      throw new ConflictError(
        'code_mismatch',
        `the code does not match the one this text computes (attempt ${String(r.attempt)} of ${String(MAX_CODE_MISMATCHES)}): read the code again from the new install's screen`,
        { req_id: r.req_id, attempt: r.attempt, left: MAX_CODE_MISMATCHES - r.attempt },
      );
    case 'refused': {
      const failing = r.look.checks.find((c) => !c.ok && c.name !== 'seat_available');
      throw new InvalidInputError('request_refused', `the request was refused: ${r.why}`, {
        field: 'text',
        check: failing?.name ?? null,
        look: r.look,
      });
    }
    case 'granted':
      return {
        result: 'granted',
        why: `${whyPrefix}${r.why}`,
        req_id: r.request.payload.req_id,
        fingerprint: r.grant.fingerprint,
        role: r.grant.role,
        valid_until: r.grant.valid_until,
        text: r.text,
      };
    case 'manual':
      return {
        result: 'manual',
        why: `${whyPrefix}${r.why}`,
        req_id: r.request.payload.req_id,
        fingerprint: r.request.payload.fingerprint,
        text: r.text,
      };
  }
}
