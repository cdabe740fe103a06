// The digest's per-day chart: incidents opened and ended each day, as an SVG a Markdown file
// can carry. Written by hand (design/libraries.md allows it for small charts): the server has
// no React, and the file must stand alone. Ended bars are hatched so colour is never alone.

const W = 640;
const H = 200;
const M = { top: 28, right: 12, bottom: 36, left: 36 };

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function dayChartSvg(
  perDay: readonly { day: string; opened: number; ended: number }[],
): string {
  const innerW = W - M.left - M.right;
  const innerH = H - M.top - M.bottom;
  const max = Math.max(1, ...perDay.flatMap((d) => [d.opened, d.ended]));
  const band = innerW / Math.max(1, perDay.length);
  const bar = Math.max(2, band * 0.35);
  const y = (v: number): number => M.top + innerH - (v / max) * innerH;
  const every = Math.ceil(perDay.length / 10);
  const said = perDay
    .map((d) => `${d.day}: ${String(d.opened)} opened, ${String(d.ended)} ended`)
    .join('; ');
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${String(W)}" height="${String(H)}" viewBox="0 0 ${String(W)} ${String(H)}" role="img" aria-label="${esc(`Incidents per day: ${said}`)}">`,
    `<title>${esc(`Incidents per day: ${said}`)}</title>`,
    '<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/><line x1="0" y1="0" x2="0" y2="6" stroke="#1e7a3a" stroke-width="3"/></pattern></defs>',
    `<rect width="${String(W)}" height="${String(H)}" fill="#ffffff"/>`,
    `<text x="${String(M.left)}" y="16" font-family="sans-serif" font-size="12" fill="#1b1f24">Incidents per day: <tspan fill="#1f5fbf">■ opened</tspan>  <tspan fill="#1e7a3a">▨ ended</tspan></text>`,
    `<line x1="${String(M.left)}" y1="${String(M.top + innerH)}" x2="${String(W - M.right)}" y2="${String(M.top + innerH)}" stroke="#5b6470"/>`,
    `<line x1="${String(M.left)}" y1="${String(M.top)}" x2="${String(M.left)}" y2="${String(M.top + innerH)}" stroke="#5b6470"/>`,
    `<text x="${String(M.left - 4)}" y="${String(M.top + 4)}" text-anchor="end" font-family="sans-serif" font-size="11" fill="#1b1f24">${String(max)}</text>`,
    `<text x="${String(M.left - 4)}" y="${String(M.top + innerH)}" text-anchor="end" font-family="sans-serif" font-size="11" fill="#1b1f24">0</text>`,
  ];
  perDay.forEach((d, i) => {
    const x = M.left + i * band + (band - 2 * bar) / 2;
    parts.push(
      `<rect x="${x.toFixed(1)}" y="${y(d.opened).toFixed(1)}" width="${bar.toFixed(1)}" height="${(M.top + innerH - y(d.opened)).toFixed(1)}" fill="#1f5fbf"><title>${d.day}: ${String(d.opened)} opened</title></rect>`,
      `<rect x="${(x + bar).toFixed(1)}" y="${y(d.ended).toFixed(1)}" width="${bar.toFixed(1)}" height="${(M.top + innerH - y(d.ended)).toFixed(1)}" fill="url(#hatch)" stroke="#1e7a3a"><title>${d.day}: ${String(d.ended)} ended</title></rect>`,
    );
    if (i % every === 0)
      parts.push(
        `<text x="${(M.left + i * band + band / 2).toFixed(1)}" y="${String(H - 16)}" text-anchor="middle" font-family="sans-serif" font-size="11" fill="#1b1f24">${d.day.slice(5)}</text>`,
      );
  });
  parts.push('</svg>');
  return parts.join('');
}
