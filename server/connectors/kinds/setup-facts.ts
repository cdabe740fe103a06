// Helpers for the `setup` operation of the kinds: facts are flat key → short text, and
// anything that could hold a secret (a configuration file) is reduced to a SHA-256.
import { createHash } from 'node:crypto';

export type SetupFacts = Record<string, string>;

export const sha256 = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The SHA-256 of every top-level section of a YAML document, keyed by the section name.
 * Prometheus and Alertmanager print their loaded configuration in a normal form (top-level
 * keys at column 0), so splitting on those lines is enough; no YAML parser is needed, and
 * the text (which may hold secrets) never leaves this function.
 */
export function yamlSectionHashes(yaml: string): SetupFacts {
  const sections = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of yaml.split('\n')) {
    const top = /^([A-Za-z_][\w.-]*):/.exec(line);
    if (top?.[1] !== undefined) {
      current = [];
      sections.set(top[1], current);
    }
    current?.push(line);
  }
  const out: SetupFacts = {};
  for (const [name, lines] of sections) out[name] = sha256(`${lines.join('\n').trimEnd()}\n`);
  return out;
}
