// The licence and its installs (docs/licence.md, licence.md §3.7): the wire shapes of the
// licence endpoints and their calls. The shapes are the server's own: licence.schemas.ts for
// POST/DELETE /v1/licence, licence.wire.ts for the install exchange's answers.
import { ApiError, call, session } from '../../shared/api.js';
import type { LicenceAnswer } from '../../../../server/licence/licence.schemas.js';
import type {
  AskAnswer,
  InstallsView,
  LookAnswer,
  PollAnswer,
  Purpose,
  RemoveAnswer,
  VouchAnswer,
} from '../../../../server/licence/licence.wire.js';

export type { LicenceAnswer };
export type * from '../../../../server/licence/licence.wire.js';

export const licenceApi = {
  install: (licence: string, acknowledge?: boolean) =>
    call<LicenceAnswer>('POST', '/v1/licence', {
      licence,
      ...(acknowledge === true && { acknowledge: true }),
    }),
  remove: () => call<LicenceAnswer>('DELETE', '/v1/licence'),
  installs: () => call<InstallsView>('GET', '/v1/licence/installs'),
  ask: (purpose: Purpose, label: string) =>
    call<AskAnswer>('POST', '/v1/licence/installs/ask', {
      purpose,
      ...(label.trim() !== '' && { label: label.trim() }),
    }),
  look: (text: string) => call<LookAnswer>('POST', '/v1/licence/installs/look', { text }),
  vouch: (text: string, code: string) =>
    call<VouchAnswer>('POST', '/v1/licence/installs/vouch', { text, code }),
  poll: () => call<PollAnswer>('POST', '/v1/licence/installs/poll', {}),
  removeInstall: (fingerprint: string) =>
    call<RemoveAnswer>('POST', '/v1/licence/installs/remove', { fingerprint }),
  /**
   * GET /v1/licence/usage (admin) as a file the browser saves: each statement is signed,
   * chained to the one before and recorded in the ledger, so it is made only on a click.
   */
  usage: async (): Promise<{ name: string; blob: Blob }> => {
    const headers: Record<string, string> = { accept: 'application/json' };
    const token = session.get();
    if (token !== null) headers['authorization'] = `Bearer ${token}`;
    const res = await fetch('/v1/licence/usage', { headers, cache: 'no-store' });
    const text = await res.text();
    if (!res.ok) {
      let body: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
      } catch {
        // not JSON: the status says enough
      }
      throw new ApiError(res.status, body);
    }
    const stamp = new Date().toISOString().slice(0, 19).replace(/[:T]/g, '-');
    return {
      name: `usage-statement-${stamp}.json`,
      blob: new Blob([text], { type: 'application/json' }),
    };
  },
};
