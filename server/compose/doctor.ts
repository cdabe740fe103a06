// The doctor with the spine's checks, shared by the server and `svc-core doctor`.
import {
  connectionsCheck,
  createDoctor,
  dataVolumeCheck,
  ledgerCheck,
  licenceCheck,
  intakeCheck,
  investigationsCheck,
  type ConnectionState,
  mainCheck,
} from '../doctor/index.js';
import { imageBakedMachineId } from '../install/index.js';
import { mlArtefactsCheck } from '../ml/index.js';
import type { Runtime } from './runtime.js';
import type { StatusService } from '../status/index.js';

export function createCoreDoctor(
  rt: Runtime,
  status: StatusService,
  problems: () => readonly string[] = () => [],
  connections: () => readonly ConnectionState[] = () => [],
) {
  const doctor = createDoctor({ clock: rt.clock });
  doctor.register(mainCheck(status.mode, problems));
  doctor.register(
    ledgerCheck(
      () => rt.reader.verifyRecent(),
      () => rt.sealer?.lastRefusal()?.message ?? null,
    ),
  );
  doctor.register(dataVolumeCheck(rt.config.dataDir));
  doctor.register(
    licenceCheck(rt.licence, rt.fingerprint, () =>
      imageBakedMachineId(
        rt.fingerprint.ok ? rt.fingerprint.source : null,
        rt.config.identity.machineIdFile,
      ),
    ),
  );
  doctor.register(
    investigationsCheck(() => ({
      enabled: rt.config.orchestrate,
      episodes: rt.episodesStore.running().length,
      investigating: rt.investigationsStore.active().filter((i) => i.status === 'running').length,
      waiting: rt.investigationsStore.waiting(),
      firing: rt.incidentsStore.firing(),
    })),
  );
  doctor.register(
    intakeCheck(
      () => rt.reader.list({ type: 'signal.', limit: 1 }).events[0]?.ts ?? null,
      rt.config.tokens.ingest !== null,
      () => rt.clock.now(),
    ),
  );
  doctor.register(connectionsCheck(connections));
  doctor.register(mlArtefactsCheck(() => rt.ml.report()));
  return doctor;
}
