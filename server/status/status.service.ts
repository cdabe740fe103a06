import type { Config } from '../config.js';
import type { Fingerprint } from '../install/index.js';
import type { LedgerStore } from '../ledger/index.js';
import type { LicenceService } from '../licence/index.js';
import { Mode } from '../shared/mode.js';
import type { ModelUseState } from '../investigate/index.js';
import { modelsView } from './status.models.js';
import type { StatusBody } from './status.schemas.js';

interface Deps {
  readonly config: Config;
  readonly fingerprint: Fingerprint;
  readonly licence: LicenceService;
  readonly ledgerStore: LedgerStore;
  readonly startedAt: string;
  /** True once a connection works; the connectors domain provides it. */
  readonly hasWorkingConnection: () => boolean;
  /** True once the caller has set impact figures. */
  readonly impactSet?: () => boolean;
  /** The sign-in methods offered now, for the console's sign-in page (access domain). */
  readonly auth?: () => { sso: boolean; methods: string[] };
  /** The running model service: token ceilings and the local runtime (absent in svc-core). */
  readonly models?: ModelUseState;
}

export function createStatusService(deps: Deps) {
  const { config, licence } = deps;
  const models = modelsView(config, deps.models);

  function mode(): Mode {
    if (licence.view()?.valid !== true) return Mode.Setup;
    return deps.hasWorkingConnection() ? Mode.Operating : Mode.Configuring;
  }

  function setup() {
    const lic = licence.view();
    const steps = [
      {
        id: 'licence',
        title: 'Licence',
        done: lic?.valid === true,
        hint:
          lic === null
            ? 'start the offline trial (SVC_TRIAL=1, npm start does) or install a licence'
            : lic.valid
              ? ''
              : `${lic.why ?? 'the licence is not valid'}: install a new one (Licence)`,
      },
      {
        id: 'connection',
        title: 'First connection',
        done: deps.hasWorkingConnection(),
        hint: 'add a connection to a monitoring tool or host (Connections)',
      },
    ];
    return { steps, done: steps.filter((s) => s.done).length, of: steps.length };
  }

  return {
    mode,
    /** GET /v1/status: typed by its schema, which the console reads too. */
    status(): StatusBody {
      const head = deps.ledgerStore.head();
      const last = deps.ledgerStore.lastSegment();
      const lic = licence.view();
      return {
        version: config.version,
        instance: config.instance,
        fingerprint: deps.fingerprint.ok ? deps.fingerprint.fingerprint : null,
        mode: mode(),
        licence:
          lic === null
            ? null
            : {
                tier: lic.tier,
                kind: lic.kind,
                customer: lic.customer,
                services: lic.services,
                services_used: lic.services_used,
                installs: lic.installs,
                install_limit: lic.install_limit,
                expires_at: lic.expires_at,
                grace_ends_at: lic.grace_ends_at,
                in_grace: lic.in_grace,
                stage: lic.stage,
                valid: lic.valid,
                why: lic.why,
                days_left: lic.days_left,
                check: lic.check,
                confirmed_at: lic.confirmed_at,
                verified: lic.verified,
                file_mounted: lic.file_mounted,
                vouched_until: lic.vouched_until,
              },
        setup: setup(),
        impact_set: deps.impactSet?.() ?? false,
        auth: deps.auth?.() ?? { sso: false, methods: ['token'] },
        ledger: {
          seq: head.seq,
          hash: head.hash?.toString('hex') ?? null,
          segments: last?.segment ?? 0,
          sealed_through: last?.last_seq ?? 0,
        },
        models: models(),
        orchestrate: config.orchestrate,
        ingest: config.tokens.ingest !== null,
        started_at: deps.startedAt,
      };
    },
  };
}
export type StatusService = ReturnType<typeof createStatusService>;
