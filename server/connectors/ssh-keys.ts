// The ssh kind's two helpers behind POST /v1/connectors/ssh/keypair and /hostkey: make a key
// pair whose private half goes straight to a 0600 secret file (the answer names the file,
// never the key), with the authorized_keys line that forces the gate; and read the key a
// host offers, so that it can be pinned in the connector's host_key setting.
import { InvalidInputError } from '../shared/errors.js';
import { isConnectorName } from './document.js';
import { generateKeyPair, scanHostKey } from './kinds/ssh.js';
import { fingerprintOf, hostKeyLineOf } from './kinds/ssh.parse.js';
import { writeSecretFile } from '../secrets/index.js';
import { secretFileOf } from './secret-files.js';

export const CONNECTOR_KEYPAIR = 'config.connector_keypair';
export const DEFAULT_GATE_PATH = '/usr/local/bin/svc-gate';
/** The path goes inside command="…": no quotes, spaces or anything a shell would read. */
const GATE_PATH = /^\/[A-Za-z0-9._/-]{1,255}$/;
const HOST = /^[A-Za-z0-9._:-]{1,253}$/;
export const HOSTKEY_SCAN_TIMEOUT_MS = 10_000;

export interface KeypairInput {
  readonly name: string;
  readonly gate_path?: string;
}

export interface Keypair {
  readonly name: string;
  readonly public_key: string;
  readonly fingerprint: string;
  readonly authorized_keys: string;
  readonly private_key: { readonly file: string };
}

export interface HostkeyInput {
  readonly host: string;
  readonly port?: number;
}

export interface HostKeyScan {
  readonly host: string;
  readonly port: number;
  readonly host_key: string;
  readonly fingerprint: string;
}

const invalid = (field: string, message: string): InvalidInputError =>
  new InvalidInputError('invalid_input', message, { field });

/**
 * A new ed25519 key for the connector `name`, its private half written (0600) to the file
 * its private_key setting will point at. A second call for the same name replaces the key.
 */
export function createKeypair(secretsDir: string, input: KeypairInput): Keypair {
  if (!isConnectorName(input.name))
    throw invalid('name', 'name must be lower case letters, digits and -, starting with a letter');
  const gatePath = input.gate_path ?? DEFAULT_GATE_PATH;
  if (!GATE_PATH.test(gatePath) || gatePath.includes('..'))
    throw invalid('gate_path', 'gate_path must be an absolute path of letters, digits and . _ - /');
  const comment = `svc-${input.name}`;
  const pair = generateKeyPair(comment);
  const [type = '', blob = ''] = pair.publicKey.split(/\s+/);
  const file = secretFileOf(secretsDir, input.name, 'private_key');
  writeSecretFile(file, pair.privateKey.reveal());
  return {
    name: input.name,
    public_key: `${type} ${blob} ${comment}`,
    fingerprint: fingerprintOf(Buffer.from(blob, 'base64')),
    authorized_keys: `restrict,command="${gatePath}" ${type} ${blob} ${comment}`,
    private_key: { file },
  };
}

/** The host's key, for pinning; 400 naming host when it cannot be read in time. */
export async function scanHost(
  input: HostkeyInput,
  timeoutMs = HOSTKEY_SCAN_TIMEOUT_MS,
): Promise<HostKeyScan> {
  const port = input.port ?? 22;
  if (!HOST.test(input.host)) throw invalid('host', 'host must be a host name or an IP address');
  if (!Number.isInteger(port) || port < 1 || port > 65_535)
    throw invalid('port', 'port must be an integer from 1 to 65535');
  const ac = new AbortController();
  const timer = setTimeout(() => {
    ac.abort(new Error(`no host key within ${String(timeoutMs / 1000)} s`));
  }, timeoutMs);
  try {
    const { key } = await scanHostKey(input.host, port, ac.signal);
    return {
      host: input.host,
      port,
      host_key: hostKeyLineOf(key),
      fingerprint: fingerprintOf(key),
    };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new InvalidInputError('host_key_scan_failed', `cannot read the host key: ${why}`, {
      field: 'host',
      why,
    });
  } finally {
    clearTimeout(timer);
  }
}
