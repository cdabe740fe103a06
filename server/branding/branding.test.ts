// The logo and document checks of the branding service, without a database: data URIs
// of every allowed type, magic bytes, the decoded size limit, SVGs that could run script.
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../shared/errors.js';
import { DEFAULT_BRANDING, LOGO_MAX_BYTES } from './branding.schemas.js';
import { checkBranding, checkLogo, checkSvg } from './branding.service.js';

// ── fixtures, built here ──

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A valid 1×1 RGBA PNG. */
function png(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const row = Buffer.from([0, 0x3b, 0x6a, 0xc0, 0xff]); // filter byte + one pixel
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(row)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The start of a JFIF JPEG (SOI, APP0 "JFIF") and its end marker. */
const JPEG = Buffer.from(
  'ffd8ffe000104a46494600010100000100010000' + 'ffd9', // SOI APP0(JFIF 1.1) … EOI
  'hex',
);

/** A 1×1 lossless WebP (RIFF … WEBP VP8L). */
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

const SVG =
  '<?xml version="1.0" encoding="UTF-8"?>\n' +
  '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" viewBox="0 0 1 1">' +
  '<rect width="1" height="1" fill="#3b6ac0"/></svg>';

const b64 = (type: string, bytes: Buffer | string) =>
  `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
const pct = (svg: string) => `data:image/svg+xml,${encodeURIComponent(svg)}`;

/** The error a check throws, or null. */
function refusal(fn: () => unknown): InvalidInputError | null {
  try {
    fn();
    return null;
  } catch (err) {
    if (err instanceof InvalidInputError) return err;
    throw err;
  }
}

describe('checkLogo', () => {
  it.each([
    ['a PNG', b64('image/png', png()), 'image/png'],
    ['a JPEG', b64('image/jpeg', JPEG), 'image/jpeg'],
    ['a WebP', b64('image/webp', WEBP), 'image/webp'],
    ['an SVG in base64', b64('image/svg+xml', SVG), 'image/svg+xml'],
    ['a percent-encoded SVG', pct(SVG), 'image/svg+xml'],
    [
      'an SVG with a charset',
      `data:image/svg+xml;charset=utf-8,${encodeURIComponent(SVG)}`,
      'image/svg+xml',
    ],
    ['an upper-case type', b64('IMAGE/PNG', png()), 'image/png'],
  ])('accepts %s', (_what, uri, type) => {
    expect(checkLogo('logos.light', uri)).toMatchObject({ type });
  });

  it('measures the decoded bytes and accepts exactly 512,000', () => {
    const bytes = Buffer.alloc(LOGO_MAX_BYTES);
    png().copy(bytes);
    expect(checkLogo('logos.mark', b64('image/png', bytes))).toEqual({
      type: 'image/png',
      bytes: 512_000,
    });
  });

  it.each([
    ['one byte more in base64', (b: Buffer) => b64('image/png', b), 512_001],
    ['600 KB in base64', (b: Buffer) => b64('image/png', b), 614_400],
  ])('refuses %s, saying the size found', (_what, make, size) => {
    const bytes = Buffer.alloc(size);
    png().copy(bytes);
    const err = refusal(() => checkLogo('logos.light', make(bytes)));
    expect(err?.details).toEqual({ field: 'logos.light', bytes: size, limit: 512_000 });
    expect(err?.message).toContain(size.toLocaleString('en-GB'));
  });

  it('refuses a percent-encoded SVG over the limit after decoding', () => {
    const big = SVG.replace('</svg>', `<!--${'x'.repeat(LOGO_MAX_BYTES)}--></svg>`);
    const err = refusal(() => checkLogo('logos.dark', pct(big)));
    expect(err?.details).toMatchObject({ field: 'logos.dark', bytes: Buffer.byteLength(big) });
  });

  it.each([
    ['a PNG whose bytes are not PNG', b64('image/png', JPEG), 'are not image/png'],
    ['a JPEG whose bytes are a PNG', b64('image/jpeg', png()), 'are not image/jpeg'],
    ['a WebP whose bytes are a PNG', b64('image/webp', png()), 'are not image/webp'],
    ['a GIF', b64('image/gif', Buffer.from('GIF89a')), 'has type image/gif'],
    ['a type of odd characters', b64('image/<b>\n', png()), 'has an unknown type'],
    ['image/jpg', b64('image/jpg', JPEG), 'has type image/jpg'],
    ['text/html', `data:text/html,${encodeURIComponent('<p>')}`, 'has type text/html'],
    ['a URL that is not a data URI', 'https://example.com/logo.png', 'is not a data URI'],
    ['no comma', 'data:image/png;base64', 'no comma'],
    ['a PNG not in base64', `data:image/png,${png().toString('latin1')}`, 'must be base64'],
    ['base64 with a line break', b64('image/png', png()).replace(/,(.{8})/, ',$1\n'), 'base64'],
    ['base64 of a wrong length', `${b64('image/png', png())}A`, 'base64'],
    ['no data at all', 'data:image/png;base64,', 'no data'],
    ['an SVG that is not SVG', b64('image/svg+xml', '<html></html>'), 'no <svg>'],
    ['an SVG that is not UTF-8', b64('image/svg+xml', Buffer.from([0x3c, 0xff, 0xfe])), 'UTF-8'],
    ['bad percent-encoding', 'data:image/svg+xml,%E0%A4%A', 'percent-encoded'],
    ['an unescaped #', `data:image/svg+xml,${SVG}`, '%23'],
  ])('refuses %s', (_what, uri, words) => {
    const err = refusal(() => checkLogo('logos.dark', uri));
    expect(err?.details).toMatchObject({ field: 'logos.dark' });
    expect(err?.message).toContain(words);
  });
});

describe('checkSvg', () => {
  it.each([
    ['a script', '<script>alert(1)</script>'],
    ['a SCRIPT in capitals', '<SCRIPT>alert(1)</SCRIPT>'],
    ['a namespaced script', '<svg:script>alert(1)</svg:script>'],
    ['an onload attribute', '<rect onload="alert(1)"/>'],
    ['an OnClick attribute without quotes', '<rect width="1" OnClick=alert(1) />'],
    ['a javascript: link', '<a href="javascript:alert(1)"><rect/></a>'],
    ['a javascript: link split by a tab', '<a href="java\tscript:alert(1)"><rect/></a>'],
    ['a javascript: link written as references', '<a href="&#106;ava&#x73;cript:x"><rect/></a>'],
    ['a foreignObject', '<foreignObject><div/></foreignObject>'],
    ['an entity declaration', ''],
  ])('refuses %s', (_what, inner) => {
    const doc =
      inner === ''
        ? '<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>'
        : `<svg xmlns="http://www.w3.org/2000/svg">${inner}</svg>`;
    const err = refusal(() => {
      checkSvg('logos.mark', doc);
    });
    expect(err?.details).toEqual({ field: 'logos.mark' });
    expect(err?.message).toMatch(/logos\.mark is an SVG with .*; logos may not carry scripts/);
  });

  it('accepts words that merely contain "on" and a comment', () => {
    const doc =
      '<svg xmlns="http://www.w3.org/2000/svg" data-icon="x"><!-- logo -->' +
      '<text font-family="Helvetica">Common ground</text><g transform="rotate(5)"/></svg>';
    expect(
      refusal(() => {
        checkSvg('logos.mark', doc);
      }),
    ).toBeNull();
  });
});

describe('checkBranding', () => {
  it('fills every missing field with its default', () => {
    expect(checkBranding({})).toEqual(DEFAULT_BRANDING);
    expect(DEFAULT_BRANDING).toEqual({
      name: 'Incident response',
      logos: {},
      theme: 'system',
      accent: '#3b6ac0',
      support: [],
    });
  });

  it('keeps what was given, trims text, lower-cases the accent, drops null logos', () => {
    const logo = b64('image/png', png());
    expect(
      checkBranding({
        name: '  Acme SRE ',
        logos: { light: logo, dark: null },
        theme: 'dark',
        accent: '#AABBCC',
        support: [{ label: ' Runbook ', url: 'https://wiki.example.com/sre' }],
      }),
    ).toEqual({
      name: 'Acme SRE',
      logos: { light: logo },
      theme: 'dark',
      accent: '#aabbcc',
      support: [{ label: 'Runbook', url: 'https://wiki.example.com/sre' }],
    });
  });

  it.each([
    ['a bad accent', { accent: 'blue' }, 'accent'],
    ['a short accent', { accent: '#abc' }, 'accent'],
    ['a bad theme', { theme: 'sepia' }, 'theme'],
    ['a name too long', { name: 'x'.repeat(81) }, 'name'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a name with a control character', { name: 'a\u0007b' }, 'name'],
    ['an unknown field', { colour: 'red' }, 'colour'],
    ['an unknown logo', { logos: { favicon: 'data:' } }, 'logos.favicon'],
    [
      'nine support links',
      { support: Array(9).fill({ label: 'a', url: 'https://a.b' }) },
      'support',
    ],
    [
      'a label too long',
      { support: [{ label: 'x'.repeat(61), url: 'https://a.b' }] },
      'support.0.label',
    ],
    [
      'a javascript: link',
      { support: [{ label: 'x', url: 'javascript:alert(1)' }] },
      'support.0.url',
    ],
    ['an ftp link', { support: [{ label: 'x', url: 'ftp://example.com' }] }, 'support.0.url'],
    ['a relative link', { support: [{ label: 'x', url: '/help' }] }, 'support.0.url'],
    ['a link with a space', { support: [{ label: 'x', url: 'https://a.b/x y' }] }, 'support.0.url'],
    [
      'a link too long',
      { support: [{ label: 'x', url: `https://a.b/${'x'.repeat(490)}` }] },
      'support.0.url',
    ],
    ['a mailto without an address', { support: [{ label: 'x', url: 'mailto:' }] }, 'support.0.url'],
    [
      'a logo of a wrong type',
      { logos: { dark: b64('image/gif', Buffer.from('GIF89a')) } },
      'logos.dark',
    ],
    ['not an object', [], 'body'],
  ])('refuses %s, naming the field', (_what, input, field) => {
    const err = refusal(() => checkBranding(input));
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err?.details).toMatchObject({ field });
  });

  it('accepts http, https and mailto links', () => {
    const support = [
      { label: 'Status', url: 'http://status.internal' },
      { label: 'Wiki', url: 'https://wiki.example.com/a?b=c#d' },
      { label: 'Mail', url: 'mailto:sre@example.com?subject=Help' },
    ];
    expect(checkBranding({ support }).support).toEqual(support);
  });
});

describe('the default accent', () => {
  // WCAG 2.x relative luminance and contrast ratio.
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const luminance = (hex: string) => {
    const n = parseInt(hex.slice(1), 16);
    return 0.2126 * channel(n >> 16) + 0.7152 * channel((n >> 8) & 255) + 0.0722 * channel(n & 255);
  };
  const contrast = (a: string, b: string) => {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
    return (hi + 0.05) / (lo + 0.05);
  };

  it('carries white text at AA (4.5:1) and stands out from the dark background (3:1)', () => {
    expect(contrast(DEFAULT_BRANDING.accent, '#ffffff')).toBeCloseTo(5.24, 2);
    expect(contrast(DEFAULT_BRANDING.accent, '#0f1115')).toBeCloseTo(3.61, 2);
  });
});
