// The anchored row is centred again whenever the page's size changes, until the person takes
// over (scroll, key, click) or the time is up; nothing after the stop.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keepInView } from './keep-in-view.js';

let resized: (() => void) | null = null;
class FakeResizeObserver {
  constructor(callback: () => void) {
    resized = callback;
  }
  observe(): void {}
  disconnect(): void {
    resized = null;
  }
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
  document.body.innerHTML = '';
});

function row() {
  const el = document.body.appendChild(document.createElement('li'));
  const scrolled = vi.fn();
  el.scrollIntoView = scrolled;
  return { el, scrolled };
}

describe('keepInView', () => {
  it('centres at once and again on each change of size, until the person scrolls', () => {
    vi.stubGlobal('ResizeObserver', FakeResizeObserver);
    const { el, scrolled } = row();
    keepInView(el);
    expect(scrolled).toHaveBeenCalledWith({ block: 'center' });
    resized?.();
    expect(scrolled).toHaveBeenCalledTimes(2);
    window.dispatchEvent(new Event('wheel'));
    expect(resized).toBeNull();
  });

  it('stops by itself when the time is up, and on its stop', () => {
    vi.useFakeTimers();
    vi.stubGlobal('ResizeObserver', FakeResizeObserver);
    const { el } = row();
    keepInView(el, 1000);
    vi.advanceTimersByTime(1001);
    expect(resized).toBeNull();
    const stop = keepInView(el);
    stop();
    expect(resized).toBeNull();
  });
});
