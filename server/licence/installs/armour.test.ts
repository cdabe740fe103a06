import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ARMOUR_BYTES, payloadJson, readArmour, writeArmour } from './armour.js';

const payload = Buffer.from(JSON.stringify({ hello: 'world', n: 'x'.repeat(200) }), 'utf8');
const sig = Buffer.alloc(64, 7).toString('base64url');
const text = writeArmour({
  label: 'SVC INSTALL REQUEST',
  headers: [
    ['Label', 'dr-site-b'],
    ['Code', '418 207'],
  ],
  payload,
  sig,
});

describe('armour', () => {
  it('writes BEGIN, headers, a blank line, 64-character payload lines, .sig= and END', () => {
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('-----BEGIN SVC INSTALL REQUEST-----');
    expect(lines[1]).toBe('Label: dr-site-b');
    expect(lines[2]).toBe('Code: 418 207');
    expect(lines[3]).toBe('');
    const body = lines.slice(4, -2);
    expect(body.length).toBeGreaterThan(1);
    for (const l of body.slice(0, -1)) expect(l).toHaveLength(64);
    expect(body.join('')).toBe(payload.toString('base64url'));
    expect(lines.at(-2)).toBe(`.sig=${sig}`);
    expect(lines.at(-1)).toBe('-----END SVC INSTALL REQUEST-----');
  });

  it('reads back what it wrote, attachments included', () => {
    const r = readArmour(text, { label: 'SVC INSTALL REQUEST' });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.armoured.headers).toEqual([
      ['Label', 'dr-site-b'],
      ['Code', '418 207'],
    ]);
    expect(r.armoured.payload.equals(payload)).toBe(true);
    expect(r.armoured.sig).toBe(sig);
    const licence = Buffer.from('{"format":"svc-licence/1"}'.repeat(20));
    const g = writeArmour({
      label: 'SVC INSTALL GRANT',
      headers: [],
      payload,
      sig,
      attachments: { licence },
    });
    const back = readArmour(g, { label: 'SVC INSTALL GRANT', attachments: ['licence'] });
    expect(back.ok && back.armoured.attachments['licence']?.equals(licence)).toBe(true);
  });

  it('tolerates CRLF, blank lines around the block, indentation and blank lines between wrapped lines', () => {
    const mangled = [
      '',
      '  ',
      ...text
        .trimEnd()
        .split('\n')
        .map((l, i) => (i % 2 === 0 ? `    ${l}` : `\t${l}  `)),
      '',
      '',
    ].join('\r\n');
    const r = readArmour(mangled, { label: 'SVC INSTALL REQUEST' });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    if (r.ok) expect(r.armoured.payload.equals(payload)).toBe(true);
    const spaced = text.replace(/\n(?=[A-Za-z0-9_-]{64}\n)/g, '\n\n');
    expect(readArmour(spaced, { label: 'SVC INSTALL REQUEST' }).ok).toBe(true);
  });

  it('says why it refuses a text, naming the problem', () => {
    const cases: [unknown, RegExp][] = [
      [42, /not a string/],
      ['hello', /BEGIN SVC INSTALL REQUEST/],
      [text.replace(/REQUEST/g, 'GRANT'), /this is a SVC INSTALL GRANT, not a SVC INSTALL REQUEST/],
      [text.replace(/REQUEST/g, 'THING'), /not a text this service reads/],
      [text.slice(0, text.length - 20), /does not end with/],
      [`Dear admin,\n${text}`, /BEGIN/],
      [`${text}\nThanks`, /does not end with/],
      [text.replace('.sig=', '.sag='), /unexpected field/],
      [text.replace(`.sig=${sig}`, ''), /no ".sig=" line/],
      [text.replace(`.sig=${sig}`, `.sig=${sig}\n.sig=${sig}`), /twice/],
      [text.replace('Code: 418 207\n', 'Code: 418 207\nnot base64!\n'), /neither a header nor/],
      [text.replace(`.sig=${sig}`, `.sig=${sig}+`), /not base64url/],
      [text.replace(`.sig=${sig}`, '.sig='), /empty/],
      [`${text}${text}`, /END|more than one/],
    ];
    for (const [input, why] of cases) {
      const r = readArmour(input, { label: 'SVC INSTALL REQUEST' });
      expect(r.ok, String(input)).toBe(false);
      if (!r.ok) expect(r.reason).toMatch(why);
    }
  });

  it('refuses non-canonical base64url (a changed trailing bit decodes to the same bytes)', () => {
    const b64 = Buffer.from('ab', 'utf8').toString('base64url'); // 3 characters, 2 spare bits
    const last = b64.charAt(2);
    const twin =
      b64.slice(0, 2) + (last === 'I' ? 'J' : String.fromCharCode(last.charCodeAt(0) + 1));
    expect(Buffer.from(twin, 'base64url').toString()).toBe('ab');
    const t = `-----BEGIN SVC INSTALL REQUEST-----\n\n${twin}\n.sig=${sig}\n-----END SVC INSTALL REQUEST-----`;
    const r = readArmour(t, { label: 'SVC INSTALL REQUEST' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/canonical/);
  });

  it(`refuses a text over ${String(MAX_ARMOUR_BYTES)} bytes, counted in UTF-8`, () => {
    const big = `${text}${' '.repeat(MAX_ARMOUR_BYTES - text.length + 1)}`;
    expect(readArmour(big, { label: 'SVC INSTALL REQUEST' })).toMatchObject({ ok: false });
    const wide = `${text}${'é'.repeat(Math.ceil((MAX_ARMOUR_BYTES - text.length) / 2) + 1)}`;
    expect(wide.length).toBeLessThanOrEqual(MAX_ARMOUR_BYTES);
    const r = readArmour(wide, { label: 'SVC INSTALL REQUEST' });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/larger than/);
  });

  it('never throws, whatever the text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.anything()), (t) => {
        readArmour(t, { label: 'SVC INSTALL REQUEST', attachments: ['licence'] });
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.nat(text.length), fc.string({ maxLength: 8 }), (at, s) => {
        readArmour(text.slice(0, at) + s + text.slice(at), { label: 'SVC INSTALL REQUEST' });
      }),
      { numRuns: 2000 },
    );
  });

  it('reads payload JSON strictly', () => {
    expect(payloadJson(Buffer.from('{"a":1}'))).toEqual({ ok: true, value: { a: 1 } });
    expect(payloadJson(Buffer.from('{"a":1,"a":2}')).ok).toBe(false);
    expect(payloadJson(Buffer.from([0xff, 0xfe])).ok).toBe(false);
    expect(payloadJson(Buffer.from('{"a":1} x')).ok).toBe(false);
  });
});
