// An alert severity as glyph + word + colour (console.md D.1): never colour alone.
import './severity.css';

const GLYPHS: Record<string, string> = {
  critical: '▲',
  high: '◆',
  warning: '●',
  info: '◌',
  unknown: '–',
};

export function SeverityBadge({ value }: { value: string | undefined }) {
  const severity = value !== undefined && value in GLYPHS ? value : 'unknown';
  return (
    <span className={`severity severity-${severity}`}>
      <span aria-hidden="true">{GLYPHS[severity]}</span> {severity}
    </span>
  );
}
