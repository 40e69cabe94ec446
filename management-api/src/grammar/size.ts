// Memory sizes as the manifest writes them (`512m`, `4g`, bytes): rules and the runtime read them alike.

/** `4g` → bytes; a bare number is bytes (the unit letters follow Docker's). */
export function memoryBytes(limit: string): number {
  const match = /^([0-9]+)([kmg]?)$/.exec(limit);
  const scale = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match?.[2] ?? ''] ?? 1;
  return Number(match?.[1] ?? 0) * scale;
}
