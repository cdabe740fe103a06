// Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers as
// JSON.stringify writes them (the RFC 8785 rules for the values this service stores).
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError('canonical JSON has no representation for non-finite numbers');
    }
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
      throw new TypeError(`canonical JSON cannot hold ${typeof value}`);
    }
    if (typeof value === 'bigint') throw new TypeError('canonical JSON cannot hold bigint');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((v: unknown) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}
