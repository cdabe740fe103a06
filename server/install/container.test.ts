import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { containerFacts, imageBakedMachineId, type ContainerPaths } from './container.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function host(files: Partial<Record<keyof ContainerPaths, string>>): ContainerPaths {
  const dir = mkdtempSync(join(tmpdir(), 'container-'));
  dirs.push(dir);
  const paths = {
    dockerenv: join(dir, '.dockerenv'),
    containerenv: join(dir, '.containerenv'),
    cgroup: join(dir, 'cgroup'),
    mountinfo: join(dir, 'mountinfo'),
  };
  for (const [k, text] of Object.entries(files))
    writeFileSync(paths[k as keyof ContainerPaths], text);
  return paths;
}

const MOUNT = (point: string) =>
  `1234 1200 8:1 /etc/machine-id ${point} ro,relatime - ext4 /dev/sda1 rw\n`;

describe('containerFacts', () => {
  it('a plain host: no container', () => {
    const p = host({ cgroup: '0::/init.scope\n', mountinfo: '' });
    expect(containerFacts('/etc/machine-id', p)).toEqual({
      container: null,
      machineIdMounted: false,
    });
  });

  it('Docker with an image-baked machine id, then with the host’s bind-mounted', () => {
    const baked = host({ dockerenv: '', mountinfo: '' });
    expect(containerFacts('/etc/machine-id', baked)).toEqual({
      container: baked.dockerenv,
      machineIdMounted: false,
    });
    const mounted = host({ dockerenv: '', mountinfo: MOUNT('/etc/machine-id') });
    expect(containerFacts('/etc/machine-id', mounted).machineIdMounted).toBe(true);
  });

  it('Podman’s marker file, and a Kubernetes cgroup', () => {
    const podman = host({ containerenv: '' });
    expect(containerFacts('/etc/machine-id', podman).container).toBe(podman.containerenv);
    const k8s = host({ cgroup: '0::/kubepods/besteffort/pod1234/abcd\n' });
    expect(containerFacts('/etc/machine-id', k8s).container).toContain('container cgroup');
  });

  it('an image-baked machine id is named only for /etc/machine-id in a container, not bind-mounted', () => {
    const baked = host({ dockerenv: '', mountinfo: '' });
    expect(imageBakedMachineId('machine-id', '/etc/machine-id', baked)).toContain(
      'baked into the image',
    );
    // A file chosen on a data volume, a hardware id, a bind mount or a plain host: no warning.
    expect(imageBakedMachineId('machine-id', '/data/host-id', baked)).toBeNull();
    expect(imageBakedMachineId('hardware-id', '/etc/machine-id', baked)).toBeNull();
    const mounted = host({ dockerenv: '', mountinfo: MOUNT('/etc/machine-id') });
    expect(imageBakedMachineId('machine-id', '/etc/machine-id', mounted)).toBeNull();
    const plain = host({ mountinfo: '' });
    expect(imageBakedMachineId('machine-id', '/etc/machine-id', plain)).toBeNull();
  });
});
