// Formatting of figures, times and ids for display.

/** Bytes as KiB/MiB/GiB with one decimal. */
export function bytes(n: number | undefined): string {
  if (n === undefined) return '—';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** An ISO time as the browser's local date and time, or a dash. */
export function time(iso: string | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** A long hash or key shortened for a table cell (the full value goes in a title). */
export function short(value: string | undefined, keep = 12): string {
  if (!value) return '—';
  return value.length > keep + 1 ? `${value.slice(0, keep)}…` : value;
}

/** A flat object as "key=value, …" for compact cells (capacity, limits). */
export function pairs(obj: Record<string, unknown> | null | undefined): string {
  if (!obj) return '—';
  const entries = Object.entries(obj).filter(([, v]) => v !== undefined && v !== null);
  return entries.length ? entries.map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`).join(', ') : '—';
}
