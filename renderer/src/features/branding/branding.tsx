// Branding (GET /v1/branding, docs/branding.md): the install's name, logos, theme, accent
// colour and support links, read without a credential so the sign-in page shows them too,
// and applied to the document as soon as they change (no reload).
import { useEffect, useSyncExternalStore } from 'react';
import { type BrandingTheme, type SupportLink } from './api.js';
import { useBranding } from './queries.js';
import './branding.css';

/** What the top bar says before the branding has arrived, or when it cannot be read. */
export const DEFAULT_NAME = 'Incident response';

/** The backgrounds of styles.css, which the accent must stand on as text. */
export const BACKGROUND = { light: '#ffffff', dark: '#14171b' } as const;

/** WCAG 1.4.3 AA for text: links are written in the accent colour. */
export const MIN_TEXT_CONTRAST = 4.5;

export type ColourScheme = 'light' | 'dark';

const HEX = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i;

/** WCAG 2.x relative luminance of `#rrggbb` (0 black … 1 white); null for anything else. */
export function relativeLuminance(hex: string): number | null {
  const m = HEX.exec(hex.trim());
  if (m === null) return null;
  const [r, g, b] = m.slice(1).map((h) => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rrggbb` colours (1 … 21); null if either is not one. */
export function contrastRatio(a: string, b: string): number | null {
  const la = relativeLuminance(a);
  const lb = relativeLuminance(b);
  if (la === null || lb === null) return null;
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/**
 * The accent to use as text and focus ring on a scheme's background: the brand's own when it
 * reaches 4.5:1 there, else null (keep the theme's default accent from styles.css).
 */
export function readableAccent(accent: string, scheme: ColourScheme): string | null {
  const ratio = contrastRatio(accent, BACKGROUND[scheme]);
  return ratio !== null && ratio >= MIN_TEXT_CONTRAST ? accent.trim().toLowerCase() : null;
}

const DARK_QUERY = '(prefers-color-scheme: dark)';

function subscribeToScheme(listener: () => void): () => void {
  const media = window.matchMedia(DARK_QUERY);
  media.addEventListener('change', listener);
  return () => {
    media.removeEventListener('change', listener);
  };
}

const systemIsDark = (): boolean => window.matchMedia(DARK_QUERY).matches;

/** The scheme shown: the branding's theme, or the operating system's for 'system'. */
export function useColourScheme(theme: BrandingTheme | undefined): ColourScheme {
  const dark = useSyncExternalStore(subscribeToScheme, systemIsDark);
  if (theme === 'light' || theme === 'dark') return theme;
  return dark ? 'dark' : 'light';
}

/**
 * Applies the branding to the document whenever it changes: the title, the theme
 * (`data-theme` on <html>, absent for 'system'), the accent (`--accent` on <html> when it is
 * readable in the scheme shown) and the tab icon (the mark). Renders nothing.
 */
export function BrandingEffect(): null {
  const { data } = useBranding();
  const scheme = useColourScheme(data?.theme);
  useEffect(() => {
    // Not yet read (or the cache was just cleared at sign-in/out): keep what is applied.
    if (data === undefined) return;
    const root = document.documentElement;
    document.title = data.name;
    if (data.theme === 'system') root.removeAttribute('data-theme');
    else root.setAttribute('data-theme', data.theme);
    const accent = readableAccent(data.accent, scheme);
    if (accent === null) root.style.removeProperty('--accent');
    else root.style.setProperty('--accent', accent);
    const icon = document.querySelector<HTMLLinkElement>('link[rel~="icon"]');
    if (icon !== null) icon.href = data.logos.mark ?? 'data:,';
  }, [data, scheme]);
  return null;
}

/** The logo (the mark, else the logo for the scheme shown) at 24 px and the name. */
export function BrandMark() {
  const { data, isError } = useBranding();
  const scheme = useColourScheme(data?.theme);
  const name = data?.name ?? (isError ? DEFAULT_NAME : '');
  const logo = data === undefined ? null : (data.logos.mark ?? data.logos[scheme]);
  return (
    <span className="brand-mark">
      {logo !== null && <img src={logo} alt="" height={24} />}
      <strong>{name}</strong>
    </span>
  );
}

const SAFE_LINK = /^(https?:|mailto:)/i;

/** The support links as a small list; nothing when there are none. */
export function SupportLinks({ links }: { links?: readonly SupportLink[] }) {
  const { data } = useBranding();
  const shown = (links ?? data?.support ?? []).filter((l) => SAFE_LINK.test(l.url));
  if (shown.length === 0) return null;
  return (
    <nav aria-label="Support">
      <ul className="support-links">
        {shown.map((l, i) => (
          <li key={`${String(i)}:${l.url}`}>
            <a
              href={l.url}
              {...(/^https?:/i.test(l.url) && { target: '_blank', rel: 'noopener noreferrer' })}
            >
              {l.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
