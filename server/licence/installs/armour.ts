// The armoured texts a person carries between installs (licence.md §3.7): a BEGIN line, untrusted
// header lines (comments, as in minisign: whoever reads them compares them with the payload), the
// payload as base64url in 64-character lines, a `.sig=` line, optional attachments (`.licence=`
// on a grant), an END line. Mail clients and terminals mangle pasted text, so reading tolerates
// CRLF, blank lines around the block and indentation; it never throws, it says what is wrong.
// No checksum line: the signature covers integrity.
import { parseStrictJson } from '../document/strict-json.js';

export const ARMOUR_LABELS = [
  'SVC INSTALL REQUEST',
  'SVC INSTALL GRANT',
  'SVC INSTALL FORWARD',
] as const;
export type ArmourLabel = (typeof ARMOUR_LABELS)[number];

/** The most bytes a request or forward text may take (a pasted text, a peer body). */
export const MAX_ARMOUR_BYTES = 64 * 1024;
/** A grant carries E's whole licence envelope (up to 256 KiB, base64url-expanded) beside it. */
export const MAX_GRANT_ARMOUR_BYTES = 512 * 1024;

const LINE = 64;
const HEADER = /^([A-Za-z][A-Za-z0-9-]{0,31}):[ \t]*(.*)$/;
const FIELD = /^\.([a-z][a-z0-9_]{0,31})=(.*)$/;
const B64URL = /^[A-Za-z0-9_-]*$/;
const MAX_HEADERS = 16;

export interface Armoured {
  readonly label: ArmourLabel;
  /** header lines in order; untrusted, for people and for comparison with the payload */
  readonly headers: readonly (readonly [string, string])[];
  /** the exact payload bytes the signature covers */
  readonly payload: Buffer;
  /** the `.sig=` value, base64url */
  readonly sig: string;
  /** other `.name=` fields (e.g. `licence` on a grant), decoded bytes */
  readonly attachments: Readonly<Record<string, Buffer>>;
}

export interface ArmourSpec {
  readonly label: ArmourLabel;
  readonly headers: readonly (readonly [string, string])[];
  readonly payload: Buffer;
  readonly sig: string;
  readonly attachments?: Readonly<Record<string, Buffer>>;
}

function wrap(b64: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += LINE) lines.push(b64.slice(i, i + LINE));
  return lines;
}

/** Writes an armoured text; header values are kept to one line. */
export function writeArmour(spec: ArmourSpec): string {
  const lines = [`-----BEGIN ${spec.label}-----`];
  for (const [name, value] of spec.headers) {
    lines.push(`${name}: ${value.replace(/[\r\n]+/g, ' ')}`);
  }
  lines.push('', ...wrap(spec.payload.toString('base64url')), `.sig=${spec.sig}`);
  for (const [name, bytes] of Object.entries(spec.attachments ?? {})) {
    lines.push(`.${name}=`, ...wrap(bytes.toString('base64url')));
  }
  lines.push(`-----END ${spec.label}-----`, '');
  return lines.join('\n');
}

export type ArmourRead =
  | { readonly ok: true; readonly armoured: Armoured }
  | { readonly ok: false; readonly reason: string };

export interface ReadOptions {
  /** the label expected; any other is refused by name */
  readonly label: ArmourLabel;
  /** the `.name=` fields allowed beside `sig` */
  readonly attachments?: readonly string[];
  readonly maxBytes?: number;
}

const no = (reason: string): ArmourRead => ({ ok: false, reason });

function decode(b64: string, what: string): Buffer | string {
  if (!B64URL.test(b64)) return `${what} is not base64url`;
  const bytes = Buffer.from(b64, 'base64url');
  // One spelling per value: a changed trailing bit would otherwise decode to the same bytes.
  if (bytes.toString('base64url') !== b64) return `${what} is not canonical base64url`;
  return bytes;
}

/** Reads one armoured block of `opts.label` from pasted text; never throws. */
export function readArmour(text: unknown, opts: ReadOptions): ArmourRead {
  if (typeof text !== 'string') return no('the text is not a string');
  const max = opts.maxBytes ?? MAX_ARMOUR_BYTES;
  if (text.length > max || Buffer.byteLength(text, 'utf8') > max) {
    return no(`the text is larger than ${String(max)} bytes`);
  }
  const lines = text.split(/\r\n|\r|\n/).map((l) => l.trim());
  let i = 0;
  while (i < lines.length && lines[i] === '') i++;
  const begin = /^-----BEGIN ([A-Z ]{1,40})-----$/.exec(lines[i] ?? '');
  if (begin === null) return no(`no "-----BEGIN ${opts.label}-----" line starts the text`);
  const label = begin[1] ?? '';
  if (label !== opts.label) {
    return no(
      (ARMOUR_LABELS as readonly string[]).includes(label)
        ? `this is a ${label}, not a ${opts.label}`
        : `"${label}" is not a text this service reads`,
    );
  }
  let end = lines.length - 1;
  while (end > i && lines[end] === '') end--;
  if (lines[end] !== `-----END ${label}-----`) {
    return no(`the text does not end with "-----END ${label}-----" (cut short?)`);
  }
  const body = lines.slice(i + 1, end);
  if (body.some((l) => l.startsWith('-----'))) return no('more than one armoured block');

  const headers: [string, string][] = [];
  let j = 0;
  for (; j < body.length; j++) {
    const m = HEADER.exec(body[j] ?? '');
    if (m === null) break;
    if (headers.length === MAX_HEADERS) return no(`more than ${String(MAX_HEADERS)} header lines`);
    headers.push([m[1] ?? '', (m[2] ?? '').trim()]);
  }
  const payloadParts: string[] = [];
  const fields = new Map<string, string[]>();
  let current: string[] = payloadParts;
  for (; j < body.length; j++) {
    const line = body[j] ?? '';
    if (line === '') continue; // blank lines a mail client added between wrapped lines
    const field = FIELD.exec(line);
    if (field !== null) {
      const name = field[1] ?? '';
      if (name !== 'sig' && !(opts.attachments ?? []).includes(name)) {
        return no(`unexpected field ".${name}="`);
      }
      if (fields.has(name)) return no(`".${name}=" appears twice`);
      current = [field[2] ?? ''];
      fields.set(name, current);
      continue;
    }
    if (!B64URL.test(line)) {
      return no(
        fields.size === 0
          ? `line ${String(i + 2 + j)} is neither a header nor base64url payload`
          : `line ${String(i + 2 + j)} is not base64url`,
      );
    }
    current.push(line);
  }
  if (payloadParts.length === 0) return no('no payload lines');
  const payload = decode(payloadParts.join(''), 'the payload');
  if (typeof payload === 'string') return no(payload);
  const sigParts = fields.get('sig');
  if (sigParts === undefined) return no('no ".sig=" line');
  const sig = sigParts.join('');
  const sigBytes = decode(sig, 'the signature');
  if (typeof sigBytes === 'string') return no(sigBytes);
  if (sigBytes.length === 0) return no('the signature is empty');
  const attachments: Record<string, Buffer> = {};
  for (const [name, parts] of fields) {
    if (name === 'sig') continue;
    const bytes = decode(parts.join(''), `".${name}="`);
    if (typeof bytes === 'string') return no(bytes);
    attachments[name] = bytes;
  }
  return {
    ok: true,
    armoured: { label: opts.label, headers, payload, sig, attachments },
  };
}

/** The payload's JSON, read strictly (UTF-8, no duplicate keys, nothing after); never throws. */
export function payloadJson(
  bytes: Buffer,
):
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string } {
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes))
    return { ok: false, reason: 'the payload is not UTF-8' };
  try {
    return { ok: true, value: parseStrictJson(text, bytes.length) };
  } catch (err) {
    return { ok: false, reason: `the payload is not JSON: ${(err as Error).message}` };
  }
}
