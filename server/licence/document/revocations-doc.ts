// The signed revocation list (format svc-revocations/1, licence.md §3.9): licences revoked or
// superseded below a serial, compromised signing keys, withdrawn install grants. Lists are
// ordered by `seq`; the caller keeps the highest seen and ignores a lower one as a rollback.
// No list expires: an air-gapped install with an old list keeps working.
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { openEnvelope, type DocumentCheck, type TrustContext } from './trust.js';

export const REVOCATIONS_FORMAT = 'svc-revocations/1';

export const RevocationList = Type.Object({
  seq: Type.Integer({ minimum: 0 }),
  issued_at: Type.String({ format: 'date-time' }),
  licences: Type.Array(
    Type.Object({
      licence_id: Type.String(),
      reason: Type.Union([Type.Literal('revoked'), Type.Literal('superseded')]),
      below_serial: Type.Optional(Type.Integer({ minimum: 1 })),
      at: Type.Optional(Type.String({ format: 'date-time' })),
    }),
    { maxItems: 10_000 },
  ),
  keys: Type.Array(
    Type.Object({
      kid: Type.String({ pattern: '^[0-9a-f]{16}$' }),
      reason: Type.String(),
      at: Type.Optional(Type.String()),
    }),
    { maxItems: 1000 },
  ),
  grants: Type.Array(Type.Object({ req_id: Type.String(), reason: Type.String() }), {
    maxItems: 10_000,
  }),
});
export type RevocationList = Static<typeof RevocationList>;

/** The list that holds before any is read: nothing revoked. */
export const EMPTY_REVOCATIONS: RevocationList = {
  seq: 0,
  issued_at: '1970-01-01T00:00:00.000Z',
  licences: [],
  keys: [],
  grants: [],
};

export type RevocationsVerdict =
  | { readonly ok: true; readonly list: RevocationList }
  | { readonly ok: false; readonly check: DocumentCheck; readonly detail: string };

/**
 * Verifies a revocation list. Its own signer may not be one it revokes, so the trust context
 * used is the one in force before it (a compromised key cannot un-revoke itself, and a list
 * signed by a key revoked earlier is refused).
 */
export function verifyRevocations(input: unknown, ctx: TrustContext): RevocationsVerdict {
  const opened = openEnvelope(input, { format: REVOCATIONS_FORMAT, usage: 'revocations' }, ctx);
  if (!opened.ok) return opened;
  if (!Value.Check(RevocationList, opened.payload)) {
    const first = Value.Errors(RevocationList, opened.payload)[0];
    return {
      ok: false,
      check: 'payload',
      detail: `${first?.instancePath ?? ''} ${first?.message ?? 'not a revocation list'}`.trim(),
    };
  }
  return { ok: true, list: opened.payload };
}

/** What a list says of a licence at `serial`: revoked, superseded (below a serial) or nothing. */
export function revocationOf(
  list: RevocationList,
  licenceId: string,
  serial: number,
): { reason: 'revoked' | 'superseded'; at?: string } | null {
  for (const l of list.licences) {
    if (l.licence_id !== licenceId) continue;
    if (l.reason === 'revoked')
      return l.at === undefined ? { reason: 'revoked' } : { reason: 'revoked', at: l.at };
    if (l.below_serial !== undefined && serial < l.below_serial) {
      return l.at === undefined ? { reason: 'superseded' } : { reason: 'superseded', at: l.at };
    }
  }
  return null;
}
