// The admin token: SVC_ADMIN_TOKEN when set, else generated at first start into
// SVC_DATA/admin-token (0600) and read back on later starts.
import {
  chmodSync,
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { MIN_TOKEN_LENGTH } from '../config.js';
import { newToken } from '../shared/ids.js';
import { Secret } from '../shared/secret.js';

export const adminTokenFile = (dataDir: string): string => join(dataDir, 'admin-token');

export function loadOrCreateAdminToken(
  dataDir: string,
  configured: Secret | null,
): { token: Secret; created: boolean; file: string | null } {
  if (configured !== null) return { token: configured, created: false, file: null };
  const file = adminTokenFile(dataDir);
  try {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
    const value = readFileSync(file, 'utf8').trim();
    if (value.length < MIN_TOKEN_LENGTH)
      throw new Error(`${file} holds no usable token; delete it to generate a new one`);
    return { token: new Secret(value), created: false, file };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const value = newToken();
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, `${value}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { token: new Secret(value), created: true, file };
}
