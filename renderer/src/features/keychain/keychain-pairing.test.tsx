// Keychain parts in a DOM: the pairing code field takes six digits typed with or without a
// space or dash and hands over the digits only; health and site-key badges say their state in
// glyph and word, never colour alone; a sealed-file refusal is said in plain words.
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../shared/api.js';
import { HealthBadge, SiteKeyBadge } from './keychain-bits.js';
import { CodeForm } from './keychain-pairing.js';
import { quietText, sealedWords } from './keychain-words.js';

afterEach(cleanup);

function codeForm(why: string | null = null) {
  const onCode = vi.fn<(digits: string) => void>();
  render(
    <CodeForm
      name="Confirm pairing"
      field="Code shown on the home"
      submit="Confirm"
      why={why}
      busy={false}
      onCode={onCode}
    />,
  );
  const input = screen.getByLabelText('Code shown on the home');
  const button = screen.getByRole('button', { name: 'Confirm' });
  return { onCode, input, button };
}

describe('the pairing code field', () => {
  it('takes six digits with a space or dash and sends the digits only', () => {
    const { onCode, input, button } = codeForm();
    fireEvent.change(input, { target: { value: '123 456' } });
    fireEvent.click(button);
    fireEvent.change(input, { target: { value: '654-321' } });
    fireEvent.click(button);
    expect(onCode.mock.calls).toEqual([['123456'], ['654321']]);
  });

  it('refuses anything but six digits, saying what it wants', () => {
    const { onCode, input, button } = codeForm();
    expect(button).toHaveProperty('disabled', true);
    fireEvent.change(input, { target: { value: '12345' } });
    expect(screen.getByText('Six digits, as 123456 or 123 456.')).toBeTruthy();
    expect(button).toHaveProperty('disabled', true);
    fireEvent.change(input, { target: { value: '12a456' } });
    fireEvent.submit(button);
    expect(onCode).not.toHaveBeenCalled();
  });

  it('is off with the reason when this person may not pair', () => {
    const { input, button } = codeForm('Pairing needs the admin role');
    expect(input).toHaveProperty('disabled', true);
    expect(button.getAttribute('title')).toBe('Pairing needs the admin role');
  });
});

describe('keychain badges and words', () => {
  it('say health and site-key state by glyph and word', () => {
    render(
      <>
        <HealthBadge health="silent" quiet={quietText(4 * 60)} />
        <SiteKeyBadge status="locked" />
        <SiteKeyBadge status="something-new" />
      </>,
    );
    expect(screen.getByText('▲ silent').getAttribute('title')).toBe('quiet for 4 min');
    expect(screen.getByText('■ locked').getAttribute('title')).toBe('five wrong secrets locked it');
    expect(screen.getByText('? something-new')).toBeTruthy();
  });

  it('says a sealed-file refusal in plain words, and leaves the others to the server', () => {
    const refusal = (error: string) => new ApiError(400, { error, message: 'older: v3 < v4' });
    expect(sealedWords(refusal('sealed_unreadable'))).toMatch(/passphrase is wrong/);
    expect(sealedWords(refusal('sealed_rollback'))).toMatch(/older .* \(older: v3 < v4\)$/);
    expect(sealedWords(refusal('invalid_input'))).toBeNull();
  });
});
