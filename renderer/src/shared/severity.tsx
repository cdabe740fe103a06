// Severity as the console shows it everywhere: a glyph, the word and a colour (console.md D.1;
// never colour alone). The words are intake's five severities, worst first; the colours are
// Okabe–Ito hues, shaded so that each reads at 4.5:1 on the page and on a hovered row.
import './severity.css';

export const SEVERITIES = ['critical', 'high', 'warning', 'info', 'unknown'] as const;
export type Severity = (typeof SEVERITIES)[number];

const GLYPHS: Record<Severity, string> = {
  critical: '▲',
  high: '◆',
  warning: '●',
  info: '◌',
  unknown: '–',
};

/** A severity from the wire; anything the console does not know reads as unknown. */
export function severityOf(value: string | null | undefined): Severity {
  return (SEVERITIES as readonly string[]).includes(value ?? '') ? (value as Severity) : 'unknown';
}

/** 0 for the worst (critical) up to 4 (unknown): sort ascending for worst first. */
export function severityRank(value: string | null | undefined): number {
  return SEVERITIES.indexOf(severityOf(value));
}

export function severityGlyph(value: string | null | undefined): string {
  return GLYPHS[severityOf(value)];
}

export function SeverityMark({ severity }: { severity: string | null | undefined }) {
  const s = severityOf(severity);
  return (
    <span className={`sev sev-${s}`}>
      <span aria-hidden="true">{GLYPHS[s]}</span> {s}
    </span>
  );
}
