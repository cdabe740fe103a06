// How the Study page shows a reading's value.

/** A reading's value as a person reads it: bytes in MiB or GiB, shares as %, else 3 figures. */
export function shown(reading: string, v: number): string {
  if (reading === 'memory' || reading === 'host_memory_available') {
    const mib = v / 1_048_576;
    return mib >= 1024 ? `${(mib / 1024).toFixed(1)} GiB` : `${mib.toFixed(0)} MiB`;
  }
  if (reading === 'host_cpu_busy' || reading === 'up') return `${String(Math.round(v * 100))}%`;
  return String(Number(v.toPrecision(3)));
}
