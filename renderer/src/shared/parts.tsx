// Small shared pieces: links that keep the single-page app, error and empty states, and the
// formatting of times and durations.
import type { ReactNode } from 'react';
import { ApiError } from './api.js';
import { navigate } from './router.js';

export function Link({
  to,
  children,
  className,
}: {
  to: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <a
      href={to}
      className={className}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const text =
    error instanceof ApiError
      ? `${error.message}${error.field !== undefined ? ` (${error.field})` : ''}`
      : error instanceof Error
        ? error.message
        : JSON.stringify(error);
  return (
    <p className="error" role="alert">
      ⚠ {text}
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="empty">{children}</p>;
}

/** A time of day to the second, 24-hour ("14:05:10"), as "data as of" says it. */
export const timeOfDay = (ms: number): string =>
  new Date(ms).toLocaleTimeString('en-GB', { hour12: false });

export function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '—';
  if (seconds < 60) return `${String(Math.round(seconds))} s`;
  if (seconds < 3600) {
    const rest = Math.round(seconds % 60);
    return `${String(Math.floor(seconds / 60))} min${rest === 0 ? '' : ` ${String(rest)} s`}`;
  }
  const h = Math.floor(seconds / 3600);
  return `${String(h)} h ${String(Math.round((seconds % 3600) / 60))} min`;
}

export function age(iso: string, now: number): string {
  return duration(Math.max(0, (now - Date.parse(iso)) / 1000));
}

/** A timestamp as local date and time, to the second; the ISO text in its title. */
export function Time({ iso }: { iso: string | null }) {
  if (iso === null) return <span>—</span>;
  const d = new Date(iso);
  return (
    <time dateTime={iso} title={iso}>
      {d.toLocaleString('en-GB', { dateStyle: 'short', timeStyle: 'medium' })}
    </time>
  );
}
