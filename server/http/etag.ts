// Conditional GET: a strong entity tag and the If-None-Match comparison of RFC 9110 §13.1.2
// (weak comparison: a W/ prefix on either side still matches; `*` matches any).

/** A strong entity tag for an opaque version string (letters, digits, `.`, `-`). */
export const strongTag = (version: string): string => `"${version}"`;

/** Whether an If-None-Match header names `tag` (so the answer is 304 Not Modified). */
export function noneMatch(header: string | string[] | undefined, tag: string): boolean {
  if (header === undefined) return false;
  const want = tag.replace(/^W\//, '');
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const given = part.trim();
    if (given === '*' || given.replace(/^W\//, '') === want) return true;
  }
  return false;
}
