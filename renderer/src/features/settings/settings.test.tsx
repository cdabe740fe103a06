// The settings forms' logic: a logo refused before sending (size, type), the accent's
// contrast words, and the impact figures' body (capitals, empty is 0).
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { contrastRatio, readableAccent } from '../branding/index.js';
import { figuresOf } from './impact.js';
import { LOGO_MAX_BYTES, LogoField, bytesOf, logoRefusal } from './logo-field.js';

afterEach(cleanup);

describe('a logo', () => {
  it('is refused over 500 KB or when it is not an image type', () => {
    expect(logoRefusal({ name: 'a.png', size: LOGO_MAX_BYTES, type: 'image/png' })).toBeNull();
    expect(logoRefusal({ name: 'big.png', size: LOGO_MAX_BYTES + 1, type: 'image/png' })).toMatch(
      /^big\.png is 500\.0 KB \(512,001 bytes\); a logo may be at most 500 KB/,
    );
    expect(logoRefusal({ name: 'logo.gif', size: 10, type: 'image/gif' })).toBe(
      'logo.gif is image/gif; a logo is a PNG, JPEG, WebP or SVG image.',
    );
  });

  it('says so beside the chooser and keeps the old logo', () => {
    const onChange = vi.fn();
    render(
      <LogoField
        slot="mark"
        title="Mark"
        hint="The small square sign"
        value={null}
        problem={null}
        disabled={false}
        onChange={onChange}
      />,
    );
    const input = screen.getByLabelText('Choose an image for the mark');
    const big = new File([new Uint8Array(LOGO_MAX_BYTES + 10)], 'huge.png', { type: 'image/png' });
    fireEvent.change(input, { target: { files: [big] } });
    expect(screen.getByRole('alert').textContent).toContain('huge.png is 500.0 KB');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(onChange).not.toHaveBeenCalled();
  });

  it('counts the decoded bytes of a base64 or percent-encoded data URI', () => {
    expect(bytesOf('data:image/png;base64,AAAA')).toBe(3);
    expect(bytesOf('data:image/png;base64,AAA=')).toBe(2);
    expect(bytesOf('data:image/svg+xml,%3Csvg%2F%3E')).toBe(6);
  });
});

describe('the accent', () => {
  it('measures contrast as WCAG does and keeps the default below 4.5:1', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#3b6ac0', '#ffffff')).toBeCloseTo(5.24, 2);
    expect(readableAccent('#3B6AC0', 'light')).toBe('#3b6ac0');
    expect(readableAccent('#3b6ac0', 'dark')).toBeNull();
    expect(readableAccent('blue', 'light')).toBeNull();
  });
});

describe('the impact figures', () => {
  it('sends the currency in capitals and every amount as a number, empty as 0', () => {
    expect(
      figuresOf({
        currency: ' eur ',
        engineer_hour: '95.5',
        triage_min: '12',
        fix_min: '',
        manual_resolve_min: '45',
        downtime_hour: '0',
        callout: '150',
        annual_cost: '',
      }),
    ).toEqual({
      currency: 'EUR',
      engineer_hour: 95.5,
      triage_min: 12,
      fix_min: 0,
      manual_resolve_min: 45,
      downtime_hour: 0,
      callout: 150,
      annual_cost: 0,
    });
  });
});
