// The revocation list in force (licence.md §3.9): read from the data folder at construction,
// offered from the build's bundled list, SVC_REVOCATION_FILE, a confirmation or a grant. The
// highest seq wins; a lower one (or one under the licence's min_revocations_seq) is a rollback,
// ignored and recorded. The list also carries key statements (a trial key's), and decides
// which signing kids are revoked: the trust every verification uses.
import type { Logger } from 'pino';
import type { Writer } from '../db/writer.js';
import type { DomainLedger } from '../ledger/index.js';
import {
  EMPTY_REVOCATIONS,
  verifyRevocations,
  type RevocationList,
} from './document/revocations-doc.js';
import { readEnvelope, type TrustContext, type TrustedRoot } from './document/trust.js';
import {
  REVOCATIONS_COPY,
  bundledRevocationsFile,
  dataFile,
  readDocumentFile,
  writeDocumentCopy,
} from './licence-files.js';
import type { LicenceEvents } from './licence.events.js';

interface Deps {
  readonly roots: readonly TrustedRoot[];
  readonly fips: boolean;
  readonly dataDir: string;
  /** SVC_REVOCATION_FILE, or null for the list bundled with the build */
  readonly revocationFile: string | null;
  readonly ledger: DomainLedger<LicenceEvents>;
  readonly writer: Writer;
  readonly log: Pick<Logger, 'warn'>;
  /** the licence in force's min_revocations_seq (0 without one) */
  readonly floor: () => number;
}

const keysOf = (text: string): readonly unknown[] => {
  const env = readEnvelope(text);
  return typeof env === 'string' ? [] : (env.keys ?? []);
};

export function createHeldRevocations(deps: Deps) {
  const { ledger, writer } = deps;
  const copy = dataFile(deps.dataDir, REVOCATIONS_COPY);
  let list: RevocationList = EMPTY_REVOCATIONS;
  /** the key statements the list in force carries (it may carry a trial key's) */
  let keys: readonly unknown[] = [];
  /** the list's envelope as received, attached to the grants this install issues */
  let text: string | null = null;

  const trust = (): TrustContext => ({
    roots: deps.roots,
    revokedKids: new Set(list.keys.map((k) => k.kid)),
    fips: deps.fips,
  });

  // The stored list, read without writing anything (read-only tools see what the service does).
  const stored = readDocumentFile(copy);
  if ('text' in stored) {
    const v = verifyRevocations(stored.text, {
      roots: deps.roots,
      revokedKids: new Set(),
      fips: deps.fips,
    });
    if (v.ok) {
      list = v.list;
      keys = keysOf(stored.text);
      text = stored.text;
    } else {
      deps.log.warn(
        { check: v.check },
        `the stored revocation list ${copy} is not valid (${v.detail}); keeping none`,
      );
    }
  }

  /** A revocation list from anywhere: the highest seq wins, a lower one is a rollback. */
  async function offer(offered: string, source: string): Promise<void> {
    const v = verifyRevocations(offered, trust());
    if (!v.ok) {
      deps.log.warn({ check: v.check, source }, `a revocation list was refused: ${v.detail}`);
      return;
    }
    const floor = deps.floor();
    if (v.list.seq < list.seq || v.list.seq < floor) {
      // The bundled list is older than one learnt later after every update: that is expected.
      if (source !== 'bundled') {
        await writer.transact(() => {
          ledger.append({
            type: 'licence.revocations_rollback_ignored',
            actor: 'system',
            data: { seq: v.list.seq, held: Math.max(list.seq, floor), source },
          });
        });
      }
      return;
    }
    if (v.list.seq === list.seq) return;
    const from = list.seq;
    // The list shipped with the build, taken when nothing was held: every install starts
    // with it, so it is no news to record (a newer one shipped by an upgrade is recorded).
    if (source !== 'bundled' || from !== 0) {
      // The copy is written inside the job that records it, just before the commit: a failed
      // write records nothing, and the one window left is the commit itself.
      await writer.transact(() => {
        ledger.append({
          type: 'licence.revocations_updated',
          actor: 'system',
          data: { seq: v.list.seq, from_seq: from, source },
        });
        writeDocumentCopy(copy, offered);
      });
    } else {
      writeDocumentCopy(copy, offered);
    }
    list = v.list;
    keys = keysOf(offered);
    text = offered;
  }

  return {
    list: (): RevocationList => list,
    /** the list in force as signed, or null when none is held */
    text: (): string | null => text,
    /** the key statements the list in force carries */
    keys: (): readonly unknown[] => keys,
    trust,
    offer,
    /**
     * The list shipped with the build, offered at start (an admin-placed SVC_REVOCATION_FILE is
     * read by every tick instead).
     */
    async offerBundled(): Promise<void> {
      if (deps.revocationFile !== null) return;
      const bundled = bundledRevocationsFile();
      const file = bundled === null ? null : readDocumentFile(bundled);
      if (file !== null && 'text' in file) await offer(file.text, 'bundled');
    },
  };
}
