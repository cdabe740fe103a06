// Whether the service runs in a container, and whether its machine id is the host's (licence.md
// §3.5): a container has /.dockerenv, /run/.containerenv or a container cgroup; Debian images
// ship a fixed /etc/machine-id, so inside a container a machine id that is not a bind mount is
// baked into the image and every container of it has the same fingerprint.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export interface ContainerPaths {
  readonly dockerenv: string;
  readonly containerenv: string;
  readonly cgroup: string;
  readonly mountinfo: string;
}

export const HOST_PATHS: ContainerPaths = {
  dockerenv: '/.dockerenv',
  containerenv: '/run/.containerenv',
  cgroup: '/proc/1/cgroup',
  mountinfo: '/proc/self/mountinfo',
};

export interface ContainerFacts {
  /** what says this is a container (a file or the cgroup), null on a plain host */
  readonly container: string | null;
  /** whether the machine id file is a mount point of its own (a bind mount from the host) */
  readonly machineIdMounted: boolean;
}

const CGROUP_MARKERS = /\/(docker|kubepods|lxc|libpod|containerd|crio)[-/.]/;

const readOr = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Mount points in /proc/self/mountinfo (the fifth field; spaces are written \040). */
function mountPoints(mountinfo: string): Set<string> {
  const points = new Set<string>();
  for (const line of mountinfo.split('\n')) {
    const field = line.split(' ')[4];
    if (field !== undefined) points.add(field.replace(/\\040/g, ' '));
  }
  return points;
}

export function containerFacts(
  machineIdFile: string,
  paths: ContainerPaths = HOST_PATHS,
): ContainerFacts {
  const container = existsSync(paths.dockerenv)
    ? paths.dockerenv
    : existsSync(paths.containerenv)
      ? paths.containerenv
      : CGROUP_MARKERS.test(readOr(paths.cgroup))
        ? `${paths.cgroup} (a container cgroup)`
        : null;
  return {
    container,
    machineIdMounted: mountPoints(readOr(paths.mountinfo)).has(resolve(machineIdFile)),
  };
}

/** The machine id a Debian-based image ships: the one a container may have baked in. */
export const IMAGE_MACHINE_ID = '/etc/machine-id';

/**
 * Why the fingerprint is not this host's own, or null: it comes from /etc/machine-id inside a
 * container where that file is not bind-mounted, so every container of the image shares it. A
 * machine id file named elsewhere (SVC_MACHINE_ID_FILE on a data volume) is a choice, not this.
 */
export function imageBakedMachineId(
  source: string | null,
  machineIdFile: string,
  paths: ContainerPaths = HOST_PATHS,
): string | null {
  if (source !== 'machine-id' || resolve(machineIdFile) !== IMAGE_MACHINE_ID) return null;
  const facts = containerFacts(machineIdFile, paths);
  if (facts.container === null || facts.machineIdMounted) return null;
  return `${machineIdFile} is inside a container (${facts.container}) and not bind-mounted: it is baked into the image, so every container of it has this fingerprint. Bind-mount the host's /etc/machine-id read-only, or point SVC_MACHINE_ID_FILE at a file on the data volume holding a random 32-hex-digit id`;
}
