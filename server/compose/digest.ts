// The digest's input, gathered from the stores of a runtime: the server's GET /v1/digest and
// svc-core digest (a read-only runtime) read the same things the same way.
import {
  buildDigest,
  dayOf,
  MAX_DAYS,
  windowOf,
  type Digest,
  type DigestEpisode,
} from '../digest/index.js';
import { InvalidInputError } from '../shared/errors.js';
import type { Runtime } from './runtime.js';

const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

export function createDigestSource(rt: Runtime) {
  return {
    /**
     * The digest of `days` whole UTC days ending with `lastDay` (today by default, so far).
     * Bad arguments are refused naming the field.
     */
    async digest(options: { days?: number; lastDay?: string } = {}): Promise<Digest> {
      const days = options.days ?? 1;
      if (!Number.isInteger(days) || days < 1 || days > MAX_DAYS)
        throw new InvalidInputError(
          'invalid_input',
          `days must be a whole number from 1 to ${String(MAX_DAYS)}`,
          { field: 'days' },
        );
      const now = rt.clock.nowIso();
      const lastDay = options.lastDay ?? dayOf(now);
      // A date that exists: 2026-02-30 parses, as 2 March, and is refused here.
      const parsed = Date.parse(`${lastDay}T00:00:00.000Z`);
      if (
        !DAY_RE.test(lastDay) ||
        Number.isNaN(parsed) ||
        new Date(parsed).toISOString().slice(0, 10) !== lastDay
      )
        throw new InvalidInputError('invalid_input', 'day must be a date as YYYY-MM-DD', {
          field: 'day',
        });
      const { first, from, to } = windowOf(lastDay, days);
      const report = await rt.reader.verify();
      const episodes: DigestEpisode[] = rt.episodesStore.touched(from, to);
      return buildDigest({
        first,
        days,
        now,
        episodes,
        incidents: rt.incidentsStore.touched(from, to),
        approvalsWaiting: rt.approvalsStore.pending().length,
        labels: rt.learningStore.labels(),
        demoted: rt.learningStore.demotions().map((d) => d.cause),
        ledger: {
          ok: report.ok,
          head_seq: report.head.seq,
          verified_at: report.verified_at,
          failure:
            report.failure === null
              ? null
              : `seq ${String(report.failure.seq)}: ${report.failure.message}`,
        },
      });
    },
  };
}
export type DigestSource = ReturnType<typeof createDigestSource>;
